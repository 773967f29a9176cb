// A collector that is down costs a log line, not requests (issue 15, "Bad
// input and faults"): with traces exported over OTLP/HTTP to a loopback
// endpoint that accepts connections and never answers, or to one that
// refuses them, the service goes on answering every request while spans
// are produced, the failed exports are reported in the log, and shutdown
// does not wait on the collector for long.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../api/tracing/sdk.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually, mustDeploy, serviceProcess } from '../api/workflow-support.ts';

// Read by the SDK from the environment, as in production: export often, give up on an answer soon.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '300';

/** A loopback port that accepts connections and never answers; its sockets are kept open until close. */
async function silentCollector(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on any more: connections are refused. */
async function refusingCollector(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return { url: `http://127.0.0.1:${port}/v1/traces`, close: async () => {} };
}

for (const [name, collector] of [
  ['never answers', silentCollector],
  ['refuses connections', refusingCollector],
] as const) {
  describe(`an OTLP endpoint that ${name}`, () => {
    const logged: string[] = [];
    let endpoint: { url: string; close(): Promise<void> };
    let tracing: Tracing;
    let api: ApiFixture;
    let apiKey: string;

    beforeAll(async () => {
      endpoint = await collector();
      tracing = startTracing({ url: endpoint.url, sampler: { name: 'parentbased_always_on' }, serviceName: 'orca-test' }, { log: (line) => logged.push(line) });
      api = await apiFixture({ tracer: tracing.tracer, config: { metrics: { enabled: false } } });
      ({ apiKey } = await api.newAccount());
      await mustDeploy(api, apiKey, serviceProcess('dead-collector', 'dead-collector-work'));
    });
    afterAll(async () => {
      await api?.close();
      await tracing?.shutdown();
      await endpoint?.close();
    });

    /** Starts `n` instances one after another; their statuses. */
    async function starts(n: number): Promise<number[]> {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) {
        statuses.push((await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'dead-collector', variables: {} } })).status);
      }
      return statuses;
    }

    it('answers every request, reports the failed export in the log, and keeps answering', async () => {
      expect(await starts(20)).toEqual(Array(20).fill(201));
      const line = await eventually(async () => logged[0], 'a log line about the failed export');
      expect(line).toMatch(/^tracing: exporting spans failed: /);
      expect(await starts(20)).toEqual(Array(20).fill(201));
      // One line, not one per failed export: the rest are counted into the next report, a minute on.
      expect(logged).toHaveLength(1);
    });

    it('shuts down without waiting for the collector', async () => {
      await tracing.shutdown();
      // After shutdown nothing is traced, and the service still answers.
      expect(await starts(2)).toEqual([201, 201]);
    });
  });
}
