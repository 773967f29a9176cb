// What a client leaves behind: OrcaClient.close() and a worker's stop().
// The client talks to the real server through a loopback TCP relay that
// counts the connections the client opened and still holds; once close()
// (or the stop() of a worker that made its own client) has resolved, every
// one of them is closed by the client — nothing is left in flight or idle
// to outlive it — while a client passed to a worker stays open for its owner.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, OrcaClient, OrcaError } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually, serviceProcess } from '../api/workflow-support.ts';

let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(() => api?.close());

interface Relay {
  url: string;
  /** Connections the client opened so far. */
  opened: number;
  /** Those the client has not closed yet. */
  open(): number;
  /** Resolves once the client has closed every connection it opened. */
  allClosedByClient(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP relay to the server that tracks each client connection until the client ends it. */
async function relay(target: string): Promise<Relay> {
  const upstream = new URL(target);
  const clientSockets = new Set<Socket>();
  const closings: Promise<void>[] = [];
  const state = { opened: 0, ended: 0 };
  const server: Server = createServer((client) => {
    state.opened++;
    clientSockets.add(client);
    // 'end': the client sent its FIN, i.e. it closed the connection (the relay never closes one first).
    closings.push(new Promise<void>((resolve) => client.once('end', () => resolve(void state.ended++))));
    client.once('close', () => clientSockets.delete(client));
    const toServer = createConnection({ host: upstream.hostname, port: Number(upstream.port) });
    client.pipe(toServer);
    toServer.pipe(client);
    client.on('error', () => toServer.destroy());
    toServer.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get opened() {
      return state.opened;
    },
    open: () => state.opened - state.ended,
    allClosedByClient: async () => {
      await Promise.all(closings);
    },
    close: async () => {
      for (const socket of clientSockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function deployed(type: string, instances: number): Promise<{ apiKey: string; setup: OrcaClient }> {
  const { apiKey } = await api.newAccount();
  const setup = new OrcaClient({ url: api.baseUrl, apiKey });
  await setup.deploy({ name: `${type}.bpmn`, content: serviceProcess(type, type) });
  for (let i = 0; i < instances; i++) await setup.startInstance({ bpmnProcessId: type });
  return { apiKey, setup };
}

describe('closing the client', () => {
  it("a worker's stop() closes every connection of the client it made, after the last outcome was sent", async () => {
    const { apiKey, setup } = await deployed('close-own', 20);
    const proxy = await relay(api.baseUrl);
    try {
      let completed = 0;
      const worker = createWorker({
        url: proxy.url,
        apiKey,
        type: 'close-own',
        maxJobsActive: 8,
        requestTimeout: 200,
        handler: () => ({ done: true }),
        onEvent: (event) => {
          if (event.type === 'job-completed') completed++;
        },
      });
      await eventually(async () => (completed === 20 ? true : undefined), 'twenty jobs completed');
      await worker.stop();
      expect(proxy.opened).toBeGreaterThan(1);
      // Every connection was ended by the client itself: none idle, none with a request in flight.
      await proxy.allClosedByClient();
      expect(proxy.open()).toBe(0);
      expect((await setup.listInstances({ state: 'COMPLETED' })).items).toHaveLength(20);
    } finally {
      await proxy.close();
      await setup.close();
    }
  });

  it('a client passed to a worker stays open after its stop(); close() ends it, and a later call fails unsent', async () => {
    const { apiKey, setup } = await deployed('close-shared', 3);
    const proxy = await relay(api.baseUrl);
    try {
      const client = new OrcaClient({ url: proxy.url, apiKey });
      let completed = 0;
      const worker = createWorker({
        client,
        type: 'close-shared',
        requestTimeout: 200,
        handler: () => ({}),
        onEvent: (event) => {
          if (event.type === 'job-completed') completed++;
        },
      });
      await eventually(async () => (completed === 3 ? true : undefined), 'three jobs completed');
      await worker.stop();
      expect(await client.getAccount()).toBeDefined();
      expect(proxy.open()).toBeGreaterThan(0);

      // A request in flight when close() is called is answered; close() resolves after it.
      const inFlight = client.activateJobs({ type: 'close-shared', maxJobsToActivate: 1, worker: 'w', requestTimeout: 300 });
      const closed = client.close();
      expect(await inFlight).toEqual([]);
      await closed;
      await proxy.allClosedByClient();
      expect(proxy.open()).toBe(0);

      const opened = proxy.opened;
      const error = await client.getAccount().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OrcaError);
      expect(error).toMatchObject({ code: 'CLIENT_CLOSED', status: 0, retryable: false });
      expect(proxy.opened).toBe(opened);
      await client.close(); // Idempotent.
    } finally {
      await proxy.close();
      await setup.close();
    }
  });
});
