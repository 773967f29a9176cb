// What a receiver can do wrong, each recorded as a failed attempt with its
// reason and retried on the schedule (shortened here; retry-schedule.test.ts
// checks the real one): a 500 until the schedule runs out, a Retry-After
// that outlasts it, 410 Gone (the endpoint is disabled at once and its other
// deliveries fail), failing for days (disabled), an answer that never comes
// (the deadline), a 10 MB answer (only a prefix read, the connection
// dropped), a redirect (not followed: its target sees nothing), and a
// connection closed without an answer. A hanging endpoint never holds up
// another one.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher, type DispatcherOptions, type WebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import type { Database } from '../../engine/store/database.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';
import { addEndpoint, deliveriesOf, endpointRow, enqueueCompleted, eventually, type DeliveryRow } from './outbox.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const SHORT = [50, 50, 50, 50, 50, 50, 50];
const testDb = createTestDatabase();
let database: Database;
let receiver: Receiver;
let secrets: string[] = [];
let dispatcher: WebhookDispatcher | undefined;

beforeAll(async () => {
  database = await testDb.open();
  receiver = await startReceiver(() => secrets);
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
  receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
});
afterAll(async () => {
  await receiver?.close();
  await testDb.cleanup();
});

function dispatch(options: Partial<DispatcherOptions> = {}) {
  dispatcher = startWebhookDispatcher({ db: database.db, allowPrivateNetworks: true, schedule: SHORT, idlePollMs: 40, ...options });
}

async function endpointAt(path: string, options: Parameters<typeof addEndpoint>[2] = {}) {
  const endpoint = await addEndpoint(database.db, `${receiver.url}${path}`, options);
  secrets = [...secrets, endpoint.secret];
  return endpoint;
}

/** The endpoint's deliveries once `done` holds for all of them. */
function settled(endpointId: string, done: (row: DeliveryRow) => boolean, timeoutMs = 20_000) {
  return eventually(
    async () => {
      const found = await deliveriesOf(database.db, endpointId);
      return found.length > 0 && found.every(done) ? found : undefined;
    },
    timeoutMs,
    `deliveries of ${endpointId} settling`,
  );
}

describe('failed attempts', () => {
  it('a 500 is retried on the schedule, every attempt logged, and the delivery fails after the last', async () => {
    const endpoint = await endpointAt('/500');
    receiver.answer = (_d, response) => void response.writeHead(500, { 'content-type': 'text/plain' }).end('database down');
    await enqueueCompleted(database.db, endpoint.account);
    dispatch();
    const [row] = await settled(endpoint.id, (r) => r.status === 'failed');
    expect(row.attempts).toBe(SHORT.length + 1);
    expect(row.log).toHaveLength(SHORT.length + 1);
    for (const entry of row.log) expect(entry).toMatchObject({ statusCode: 500, error: 'answered 500: database down' });
    expect(row).toMatchObject({ last_status_code: 500, last_error: 'answered 500: database down', delivered_at: null });
    // Each retry waited at least the jittered step (50 ms −10 %) after the attempt before it ended.
    for (let i = 1; i < row.log.length; i++) {
      const previous = row.log[i - 1];
      expect(new Date(row.log[i].at).getTime() - new Date(previous.at).getTime() - previous.durationMs).toBeGreaterThanOrEqual(45);
    }
    expect((await endpointRow(database.db, endpoint.id)).failing_since).not.toBeNull();
  });

  it('a success clears the endpoint failing_since', async () => {
    const endpoint = await endpointAt('/recovers', { failingSince: new Date(Date.now() - 3_600_000) });
    await enqueueCompleted(database.db, endpoint.account);
    dispatch();
    await settled(endpoint.id, (r) => r.status === 'delivered');
    await eventually(async () => ((await endpointRow(database.db, endpoint.id)).failing_since === null ? true : undefined));
  });

  it('Retry-After is honoured when longer than the schedule', async () => {
    const endpoint = await endpointAt('/busy');
    receiver.answer = (_d, response) => void response.writeHead(503, { 'retry-after': '120' }).end();
    await enqueueCompleted(database.db, endpoint.account);
    dispatch();
    const [row] = await settled(endpoint.id, (r) => r.attempts === 1);
    expect(row.status).toBe('pending');
    const entry = row.log[0];
    expect(row.next_attempt_at.getTime() - new Date(entry.at).getTime()).toBeGreaterThanOrEqual(120_000);
  });

  it('410 Gone disables the endpoint at once, saying so, and fails its other pending deliveries', async () => {
    const endpoint = await endpointAt('/gone');
    receiver.answer = (_d, response) => void response.writeHead(410).end();
    await enqueueCompleted(database.db, endpoint.account, 3);
    // Only one goes out at a time to this endpoint, so the others are still pending when it is disabled.
    dispatch({ perEndpoint: 1 });
    const rows = await settled(endpoint.id, (r) => r.status === 'failed');
    const attempted = rows.filter((r) => r.attempts === 1);
    expect(attempted.length).toBeGreaterThanOrEqual(1);
    expect(attempted[0]).toMatchObject({ last_status_code: 410, last_error: 'answered 410' });
    // The endpoint's side of a group is written just after its deliveries' (the same flush, the next statement).
    const { status, disabled_reason } = await eventually(async () => {
      const row = await endpointRow(database.db, endpoint.id);
      return row.status === 'disabled' ? row : undefined;
    });
    expect(status).toBe('disabled');
    expect(disabled_reason).toMatch(/^the endpoint answered 410 Gone at \d{4}-/);
    for (const row of rows.filter((r) => r.attempts === 0)) expect(row.last_error).toBe(`endpoint disabled: ${disabled_reason}`);
  });

  it('an endpoint failing for more than 5 days is disabled with the reason', async () => {
    const since = new Date(Date.now() - 6 * 86_400_000);
    const endpoint = await endpointAt('/failing', { failingSince: since });
    receiver.answer = (_d, response) => void response.writeHead(502).end();
    await enqueueCompleted(database.db, endpoint.account, 2);
    dispatch({ perEndpoint: 1 });
    await settled(endpoint.id, (r) => r.status === 'failed');
    // The endpoint's side of a group is written just after its deliveries' (the same flush, the next statement).
    const { status, disabled_reason } = await eventually(async () => {
      const row = await endpointRow(database.db, endpoint.id);
      return row.status === 'disabled' ? row : undefined;
    });
    expect(status).toBe('disabled');
    expect(disabled_reason).toBe(`every delivery has failed since ${since.toISOString().replace(/\.\d{3}Z$/, 'Z')} (more than 5 days)`);
  });

  it('an answer that does not come within the deadline is a failed attempt, and other endpoints are not held up meanwhile', async () => {
    const hanging = await endpointAt('/hang');
    const prompt = await endpointAt('/prompt');
    receiver.answer = (delivery, response) => {
      // The hanging endpoint never answers; the connection closes when the dispatcher gives up.
      if (delivery.path !== '/hang') response.writeHead(204).end();
    };
    await enqueueCompleted(database.db, hanging.account, 20);
    await enqueueCompleted(database.db, prompt.account, 10);
    dispatch({ timeoutMs: 4_000, perEndpoint: 2, concurrency: 4 });
    // Every prompt delivery is recorded while the hanging endpoint's first two still wait for their answer.
    await settled(prompt.id, (r) => r.status === 'delivered');
    expect(receiver.open()).toBe(2);
    expect((await deliveriesOf(database.db, hanging.id)).every((r) => r.attempts === 0)).toBe(true);
    const first = await eventually(async () => (await deliveriesOf(database.db, hanging.id)).find((r) => r.attempts === 1));
    expect(first.last_error).toBe('no complete answer within 4 s');
    expect(first.log[0].durationMs).toBeGreaterThanOrEqual(3_900);
    expect(first.log[0].statusCode).toBeUndefined();
  });

  it('a 10 MB answer: only a prefix is read, kept in the error, and the connection is dropped', async () => {
    const endpoint = await endpointAt('/huge');
    let finished: boolean | undefined;
    receiver.answer = (_d, response) => {
      response.writeHead(500, { 'content-type': 'text/plain', 'content-length': String(10 * 1024 * 1024) });
      response.on('close', () => (finished = response.writableFinished));
      // Written in 64 KiB pieces as the socket drains; the dispatcher stops reading long before the end.
      let left = 160;
      const piece = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (left > 0) {
          left--;
          if (!response.write(piece)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    };
    await enqueueCompleted(database.db, endpoint.account);
    dispatch();
    const [row] = await settled(endpoint.id, (r) => r.attempts >= 1);
    expect(row.last_status_code).toBe(500);
    expect(row.last_error).toBe(`answered 500: ${'x'.repeat(1024)}`);
    await eventually(async () => (finished === undefined ? undefined : true));
    expect(finished).toBe(false);
  });

  it('a redirect is not followed: a failed attempt, and its target sees no request', async () => {
    let reached = 0;
    const target: Server = createServer((_request, response) => {
      reached++;
      response.end('ok');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const location = `http://127.0.0.1:${(target.address() as AddressInfo).port}/internal`;
    try {
      const endpoint = await endpointAt('/redirect');
      receiver.answer = (_d, response) => void response.writeHead(302, { location }).end();
      await enqueueCompleted(database.db, endpoint.account);
      dispatch();
      const [row] = await settled(endpoint.id, (r) => r.attempts >= 1);
      expect(row).toMatchObject({ last_status_code: 302, last_error: `redirect not followed (302 to ${location})` });
      expect(reached).toBe(0);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('a connection closed without an answer is a failed attempt with the reason', async () => {
    const endpoint = await endpointAt('/reset');
    receiver.answer = (_d, response, request) => {
      void response;
      request.socket.destroy();
    };
    await enqueueCompleted(database.db, endpoint.account);
    dispatch();
    const [row] = await settled(endpoint.id, (r) => r.attempts >= 1);
    expect(row.last_status_code).toBeNull();
    expect(row.last_error).toMatch(/^connection closed by the receiver \(other side closed/);
    expect(row.log[0].error).toBe(row.last_error);
  });
});
