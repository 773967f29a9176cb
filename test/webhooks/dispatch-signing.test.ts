// Deliveries as a receiver sees them: signed so that the `standardwebhooks`
// package verifies them (with the current secret, and during a rotation's
// grace with the previous one too), recorded as delivered with the attempt
// in the log; and the same package refusing a tampered body and a stale
// timestamp — both over HTTP too (a proxy that changes the body on the way;
// the dispatcher's clock set back), so the refusal comes back as a recorded
// failed attempt.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher, USER_AGENT, type WebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import { newSigningSecret } from '../../api/webhooks/signing-secret.ts';
import type { Database } from '../../engine/store/database.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';
import { addEndpoint, deliveriesOf, enqueueCompleted, eventually } from './outbox.ts';
import { startReceiver, verify, type Receiver } from './receiver.ts';

const testDb = createTestDatabase();
let database: Database;
let receiver: Receiver;
let secrets: string[] = [];
let dispatcher: WebhookDispatcher | undefined;
const secretKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  database = await testDb.open();
  receiver = await startReceiver(() => secrets);
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});
afterAll(async () => {
  await receiver?.close();
  await testDb.cleanup();
});

function dispatch(options: { now?: () => Date } = {}) {
  dispatcher = startWebhookDispatcher({ db: database.db, allowPrivateNetworks: true, secretKey, idlePollMs: 50, ...options });
}

describe('signed deliveries', () => {
  it('verify with standardwebhooks, carry the event as JSON, and are recorded as delivered with their attempt', async () => {
    const endpoint = await addEndpoint(database.db, `${receiver.url}/hooks/a`, { secretKey });
    secrets = [endpoint.secret];
    const [eventId] = await enqueueCompleted(database.db, endpoint.account);
    dispatch();
    const [got] = await receiver.waitFor(1);
    expect(got.path).toBe('/hooks/a');
    expect(got.headers['webhook-id']).toBe(eventId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe(USER_AGENT);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(JSON.parse(got.body)).toMatchObject({ type: 'process_instance.completed', data: { bpmnProcessId: 'order', version: 1 } });

    const [row] = await eventually(async () => {
      const found = await deliveriesOf(database.db, endpoint.id);
      return found[0]?.status === 'delivered' ? found : undefined;
    });
    expect(row).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null, claimed_until: null });
    expect(row.delivered_at).toBeInstanceOf(Date);
    expect(row.log).toHaveLength(1);
    expect(row.log[0]).toMatchObject({ statusCode: 200 });
    expect(row.log[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(new Date(row.log[0].at).getTime()).toBe(row.delivered_at!.getTime());
  });

  it('are refused by standardwebhooks when the body is tampered with or the key is another', () => {
    const got = receiver.received.find((d) => d.refused === undefined)!;
    const secret = secrets[0];
    expect(verify([secret], got.body, got.headers)).toBeUndefined();
    expect(verify([secret], got.body.replace('"order"', '"0rder"'), got.headers)).toMatch(/signature/i);
    expect(verify([newSigningSecret()], got.body, got.headers)).toMatch(/signature/i);
  });

  it('with a body changed on the way are refused by the receiver over HTTP, and that is a recorded failed attempt', async () => {
    const proxy = await tamperingProxy(receiver.url);
    try {
      const endpoint = await addEndpoint(database.db, `${proxy.url}/tampered`, { secretKey });
      secrets = [endpoint.secret];
      await enqueueCompleted(database.db, endpoint.account);
      dispatch();
      const [row] = await eventually(async () => {
        const found = await deliveriesOf(database.db, endpoint.id);
        return found[0]?.attempts === 1 ? found : undefined;
      });
      const got = receiver.received.find((d) => d.path === '/tampered')!;
      expect(got.body).toContain('"0rder"');
      expect(got.refused).toMatch(/signature/i);
      expect(row).toMatchObject({ status: 'pending', last_status_code: 400 });
      expect(row.last_error).toMatch(/^answered 400: refused: .*signature/i);
    } finally {
      await proxy.close();
    }
  });

  it('with a stale timestamp are refused by the receiver, and that is a recorded failed attempt', async () => {
    const endpoint = await addEndpoint(database.db, `${receiver.url}/stale`, { secretKey });
    secrets = [endpoint.secret];
    await enqueueCompleted(database.db, endpoint.account);
    const before = receiver.received.length;
    // The clock that stamps the attempt is 10 minutes slow (standardwebhooks tolerates 5); by it the row is due.
    await database.db.execute(sql`update webhook_deliveries set next_attempt_at = now() - interval '1 hour' where endpoint_id = ${endpoint.id}`);
    dispatch({ now: () => new Date(Date.now() - 600_000) });
    const [row] = await eventually(async () => {
      const found = await deliveriesOf(database.db, endpoint.id);
      return found[0]?.attempts === 1 ? found : undefined;
    });
    const got = receiver.received.slice(before).find((d) => d.path === '/stale')!;
    expect(got.refused).toMatch(/too old/i);
    expect(row).toMatchObject({ status: 'pending', last_status_code: 400 });
    expect(row.last_error).toMatch(/^answered 400: refused: .*too old/i);
    expect(row.log[0]).toMatchObject({ statusCode: 400, error: row.last_error });
  });

  it('during a rotation grace carry both signatures, so a receiver still on the previous secret verifies', async () => {
    const previous = newSigningSecret();
    const endpoint = await addEndpoint(database.db, `${receiver.url}/rotated`, {
      secretKey,
      previousSecret: previous,
      previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
    });
    secrets = [previous];
    await enqueueCompleted(database.db, endpoint.account);
    const before = receiver.received.filter((d) => d.refused === undefined).length;
    dispatch();
    const verified = await receiver.waitFor(before + 1);
    const got = verified.at(-1)!;
    expect(got.path).toBe('/rotated');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify([endpoint.secret], got.body, got.headers)).toBeUndefined();
  });

  it('after the grace carry only the current signature', async () => {
    const endpoint = await addEndpoint(database.db, `${receiver.url}/expired`, {
      secretKey,
      previousSecret: newSigningSecret(),
      previousSecretExpiresAt: new Date(Date.now() - 1_000),
    });
    secrets = [endpoint.secret];
    await enqueueCompleted(database.db, endpoint.account);
    const before = receiver.received.filter((d) => d.refused === undefined).length;
    dispatch();
    const got = (await receiver.waitFor(before + 1)).at(-1)!;
    expect(got.path).toBe('/expired');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });
});

/** A loopback HTTP proxy to `target` that changes `"order"` to `"0rder"` in each body it forwards, headers and signature left as they came. */
async function tamperingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.from(Buffer.concat(chunks).toString('utf8').replace('"order"', '"0rder"'));
      const headers = { ...request.headers, 'content-length': String(body.length) };
      const forwarded = httpRequest(`${target}${request.url}`, { method: request.method, headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forwarded.on('error', () => response.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
