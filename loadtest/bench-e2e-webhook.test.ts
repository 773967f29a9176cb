// bench:e2e --webhook checking itself without a benchmark run: its receiver
// process gets real deliveries from the dispatcher and computes each one's lag from
// the event's timestamp; the runs alternate sides by round; the flag parses.
import { afterAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher } from '../api/webhooks/dispatcher.ts';
import { signedHeaders } from '../api/webhooks/signature.ts';
import { newSigningSecret, signingKeyOf } from '../api/webhooks/signing-secret.ts';
import { createTestDatabase } from '../engine/store/testing/database.ts';
import { addEndpoint, enqueueCompleted } from '../test/webhooks/outbox.ts';
import { parseArgs } from './bench-e2e.ts';
import { startBenchReceiver, webhookOrder } from './bench-e2e-webhook.ts';
import { eventLagMs, signatureMatches } from './bench-e2e-webhook-receiver.ts';

const testDb = createTestDatabase();
afterAll(() => testDb.cleanup());

describe('bench:e2e --webhook', () => {
  it("its receiver checks and takes the dispatcher's deliveries and measures each one's lag from the event timestamp", async () => {
    const { db } = await testDb.open();
    const secret = newSigningSecret();
    const receiver = await startBenchReceiver(secret);
    const endpoint = await addEndpoint(db, receiver.url, { secret });
    const written = Date.now();
    const ids = await enqueueCompleted(db, endpoint.account, 20);
    const dispatcher = startWebhookDispatcher({ db, allowPrivateNetworks: true, idlePollMs: 20 });
    try {
      let got = await receiver.deliveries();
      for (let i = 0; i < 400 && got.length < ids.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        got = await receiver.deliveries();
      }
      expect(got.map((d) => d.id).sort()).toEqual([...ids].sort());
      expect((await receiver.deliveries(15)).map((d) => d.id)).toEqual(got.slice(15).map((d) => d.id));
      for (const { receivedAt, lagMs } of got) {
        expect(lagMs).toBeGreaterThanOrEqual(0);
        // The events were stamped between `written` and their enqueueing: the lag cannot exceed the time since.
        expect(lagMs).toBeLessThanOrEqual(receivedAt - written + 1);
      }
      expect(await receiver.refused()).toBe(0);
      // A tampered body is refused (401) and not noted.
      const body = JSON.stringify({ type: 'process_instance.completed', timestamp: new Date().toISOString(), data: {} });
      const headers = signedHeaders([signingKeyOf(secret)], 'msg_tampered', Math.floor(Date.now() / 1000), body);
      const tampered = await fetch(receiver.url, { method: 'POST', headers, body: body.replace('{}', '{"x":1}') });
      expect(tampered.status).toBe(401);
      expect(await receiver.refused()).toBe(1);
      expect((await receiver.deliveries()).map((d) => d.id)).not.toContain('msg_tampered');
    } finally {
      await dispatcher.stop();
      await receiver.close();
    }
  });

  it('its receiver notes each event of a batched delivery under its own id', async () => {
    const { db } = await testDb.open();
    const secret = newSigningSecret();
    const receiver = await startBenchReceiver(secret);
    const endpoint = await addEndpoint(db, receiver.url, { secret, batching: { maxEvents: 4, maxWaitMs: 0 } });
    const ids = await enqueueCompleted(db, endpoint.account, 10);
    const dispatcher = startWebhookDispatcher({ db, allowPrivateNetworks: true, idlePollMs: 20 });
    try {
      let got = await receiver.deliveries();
      for (let i = 0; i < 400 && got.length < ids.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        got = await receiver.deliveries();
      }
      expect(got.map((d) => d.id).sort()).toEqual([...ids].sort());
      for (const { lagMs } of got) expect(lagMs).toBeGreaterThanOrEqual(0);
      expect(await receiver.refused()).toBe(0);
    } finally {
      await dispatcher.stop();
      await receiver.close();
    }
  });

  it('computes the lag from the timestamp (as the store prints jsonb too), and none without one; checks signatures', () => {
    expect(eventLagMs(JSON.stringify({ type: 't', timestamp: '2026-11-24T12:00:00.000Z', data: {} }), Date.parse('2026-11-24T12:00:00.250Z'))).toBe(250);
    expect(eventLagMs('{"data": {}, "type": "t", "timestamp": "2026-11-24T12:00:00.000Z"}', Date.parse('2026-11-24T12:00:01.000Z'))).toBe(1000);
    const key = signingKeyOf(newSigningSecret());
    const other = signingKeyOf(newSigningSecret());
    const header = signedHeaders([other, key], 'msg_1', 1700000000, 'body')['webhook-signature'];
    expect(signatureMatches(key, 'msg_1', '1700000000', 'body', header)).toBe(true);
    expect(signatureMatches(key, 'msg_1', '1700000001', 'body', header)).toBe(false);
    expect(signatureMatches(key, 'msg_1', '1700000000', 'body', 'v1,AAAA')).toBe(false);
    expect(eventLagMs('{}', 0)).toBeNaN();
    expect(eventLagMs('not json', 0)).toBeNaN();
  });

  it('alternates the sides by round, and parses the flag', () => {
    expect(webhookOrder(2).map((r) => `${r.round}:${r.side}`)).toEqual(['1:without', '1:with', '2:with', '2:without']);
    expect(parseArgs(['--webhook', '--rounds=3'])).toMatchObject({ webhook: true, rounds: 3 });
    expect(parseArgs([]).webhook).toBeUndefined();
    expect(() => parseArgs(['--webhook=yes'])).toThrow(/malformed/);
    expect(parseArgs(['--webhook-batching=100:50'])).toMatchObject({ webhook: true, webhookBatching: { maxEvents: 100, maxWaitMs: 50 } });
    expect(() => parseArgs(['--webhook-batching=0:50'])).toThrow(/1\.\.1000/);
    expect(() => parseArgs(['--webhook-batching=100'])).toThrow(/malformed/);
  });
});
