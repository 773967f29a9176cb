// The delivery log over real HTTP with the service's own dispatcher sending
// to a real receiver: an engine event delivered at its first attempt (only an
// outcome in its batch row) is listed beside the deliveries with rows of
// their own, with its response code and duration; the cursor pages across
// both kinds without a gap or a repeat; one is got by id; and sent again it
// becomes a delivery row (its first attempt in its log) that reaches the
// receiver a second time under the same webhook-id. Past the retention, both
// kinds are pruned alike, and a delivery still pending is kept.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLogPrune } from '../../api/webhooks/log-prune.ts';
import { rows } from '../../engine/store/index.ts';
import { eventually } from '../webhooks/outbox.ts';
import type { Receiver } from '../webhooks/receiver.ts';
import type { ApiFixture } from './api-fixture.ts';
import { webhookEndpointFixture, type WebhookEndpointFixture } from './webhook-endpoint-fixture.ts';
import { startInstance, type Json } from './workflow-support.ts';

let fixture: WebhookEndpointFixture;
let api: ApiFixture;
let receiver: Receiver;
let apiKey: string;
let endpointId: string;

beforeAll(async () => {
  fixture = await webhookEndpointFixture('/log');
  ({ api, receiver, apiKey, endpointId } = fixture);
}, 60_000);
afterAll(() => fixture?.close());

const base = () => `/api/v1/webhooks/${endpointId}/deliveries`;

async function log(): Promise<Json[]> {
  const res = await api.call('GET', base(), { apiKey, query: { limit: 1000 } });
  expect(res.status, res.text).toBe(200);
  return res.json.items;
}

/** Waits until the log holds `count` deliveries, all delivered. */
async function settled(count: number): Promise<Json[]> {
  return eventually(async () => {
    const items = await log();
    return items.length === count && items.every((d) => d.status === 'delivered') ? items : undefined;
  });
}

async function completed(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(`msg_${await startInstance(api, apiKey, 'quick')}_process_instance_completed`);
  return ids;
}

async function testEvent(): Promise<string> {
  const res = await api.call('POST', `/api/v1/webhooks/${endpointId}/test`, { apiKey });
  expect(res.status, res.text).toBe(202);
  return res.json.id;
}

describe('the delivery log of an endpoint', () => {
  it('lists an engine event delivered at its first attempt, from its batch row, with its response code and duration', async () => {
    const [eventId] = await completed(1);
    await receiver.waitFor(1);
    const [entry] = await settled(1);
    expect(entry).toMatchObject({
      endpointId,
      eventId,
      type: 'process_instance.completed',
      status: 'delivered',
      attempts: 1,
      nextAttemptAt: null,
      lastStatusCode: 200,
      lastError: null,
      payload: { type: 'process_instance.completed', data: { bpmnProcessId: 'quick' } },
    });
    expect(entry.id).toMatch(/^b\d+-\d+-\d+-\d+$/);
    expect(entry.log).toEqual([{ at: entry.deliveredAt, statusCode: 200, durationMs: expect.any(Number) }]);
    expect(entry.log[0].durationMs).toBeGreaterThanOrEqual(0);
    // It has no delivery row: the batch row's outcome is the record.
    expect(await rows(api.engine.store.db, sql`select 1 from webhook_deliveries where event_id = ${eventId}`)).toEqual([]);

    const got = await api.call('GET', `${base()}/${entry.id}`, { apiKey });
    expect(got.status, got.text).toBe(200);
    expect(got.json).toEqual(entry);
  });

  it('pages across batch entries and delivery rows, newest first, without a gap or a repeat', async () => {
    const before = (await log()).length;
    const written: string[] = [];
    for (let round = 0; round < 3; round++) {
      written.push(...(await completed(2)));
      await receiver.waitFor(before + written.length);
      written.push(await testEvent());
      await settled(before + written.length);
    }
    const all = await settled(before + written.length);
    expect(all.some((d) => /^\d+$/.test(d.id))).toBe(true);
    expect(all.filter((d) => d.id.startsWith('b'))).toHaveLength(before + 6);
    const times = all.map((d) => Date.parse(d.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    for (const limit of [1, 2, 3]) {
      const paged: Json[] = [];
      let cursor: string | undefined;
      do {
        const res = await api.call('GET', base(), { apiKey, query: { limit, cursor } });
        expect(res.status, res.text).toBe(200);
        expect(res.json.items.length).toBeLessThanOrEqual(limit);
        paged.push(...res.json.items);
        cursor = res.json.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(paged.map((d) => d.id)).toEqual(all.map((d) => d.id));
    }
  });

  it('sends a batch entry again: it becomes a delivery row with its first attempt, and the receiver gets it again', async () => {
    const items = await log();
    const entry = items.find((d) => d.id.startsWith('b'))!;
    const position = items.indexOf(entry);
    const seen = receiver.received.length;

    const res = await api.call('POST', `${base()}/${entry.id}/redeliver`, { apiKey });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toMatchObject({ eventId: entry.eventId, status: 'pending', attempts: 1, lastStatusCode: 200, createdAt: entry.createdAt });
    expect(res.json.id).toMatch(/^\d+$/);
    expect(res.json.log).toEqual(entry.log);

    const [again] = await receiver.waitFor(seen + 1).then((all) => all.slice(seen));
    expect(again.headers['webhook-id']).toBe(entry.eventId);
    expect(again.refused).toBeUndefined();

    const after = await settled(items.length);
    // The same place in the log, now the delivery row, both attempts in its log.
    expect(after[position]).toMatchObject({ id: res.json.id, eventId: entry.eventId, status: 'delivered', attempts: 2, lastStatusCode: 200 });
    expect(after[position].log).toHaveLength(2);
    expect(after.filter((d) => d.eventId === entry.eventId)).toHaveLength(1);
    // The batch entry's id names the delivery it became.
    const got = await api.call('GET', `${base()}/${entry.id}`, { apiKey });
    expect(got.json).toEqual(after[position]);
  });

  it('answers 404 for an unknown delivery of either kind and 400 for a malformed id or cursor', async () => {
    for (const id of ['b0-0-0-0', '999999999']) {
      const res = await api.call('GET', `${base()}/${id}`, { apiKey });
      expect(res.status, id).toBe(404);
      expect(res.json.errors[0].field).toBe('params.deliveryId');
      expect((await api.call('POST', `${base()}/${id}/redeliver`, { apiKey })).status).toBe(404);
    }
    const bad = await api.call('GET', `${base()}/b1-2`, { apiKey });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].field).toBe('params.deliveryId');
    const cursor = Buffer.from(JSON.stringify({ p: '12' })).toString('base64url');
    expect((await api.call('GET', base(), { apiKey, query: { cursor } })).status).toBe(400);
    // Another account sees none of it.
    const other = await api.newAccount();
    expect((await api.call('GET', base(), { apiKey: other.apiKey })).status).toBe(404);
  });

  it('prunes delivered batch rows and finished delivery rows past the retention, and keeps a pending one', async () => {
    const db = api.engine.store.db;
    const items = await log();
    const kept = items.find((d) => /^\d+$/.test(d.id))!;
    await db.execute(sql`update webhook_deliveries set status = 'pending', next_attempt_at = now() + interval '1 day' where id = ${Number(kept.id)}`);
    const batches = await rows<{ n: number }>(db, sql`select count(*)::int as n from webhook_batches where delivered_at is not null`);
    expect(batches[0].n).toBeGreaterThan(0);

    // Within the retention nothing goes.
    const prune = startLogPrune({ repo: api.engine.store.webhooks, retentionMs: 3_600_000, batch: 2 });
    expect(await prune.runOnce()).toEqual({ batches: 0, deliveries: 0 });
    await prune.stop();
    // Two hours on, everything finished is past it; steps of 2 rows go on until done.
    const later = startLogPrune({ repo: api.engine.store.webhooks, retentionMs: 3_600_000, batch: 2, now: () => new Date(Date.now() + 7_200_000) });
    const gone = await later.runOnce();
    await later.stop();
    expect(gone.batches).toBe(batches[0].n);
    expect(gone.deliveries).toBe(items.filter((d) => /^\d+$/.test(d.id)).length - 1);
    expect((await log()).map((d) => d.id)).toEqual([kept.id]);
    expect(await rows(db, sql`select key from webhook_batches where delivered_at is not null`)).toEqual([]);
  });
});
