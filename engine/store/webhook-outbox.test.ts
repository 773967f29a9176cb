// The outbox's write: an event becomes one delivery row per enabled endpoint
// of its account subscribed to its type, nothing for anyone else, and a
// repeated write adds nothing (the event id is the deduplication key).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import type { Database } from './database.ts';
import { rows } from './index.ts';
import { enqueueWebhookEvents, webhookEventId, type WebhookEvent } from './webhook-outbox.ts';
import { webhookEndpoints } from './schema.ts';

const testDb = createTestDatabase();
let database: Database;

beforeAll(async () => {
  database = await testDb.open();
  await database.db.insert(webhookEndpoints).values([
    { id: 'ep_a1', account: 'acct-a', url: 'https://a.example/1', events: ['process_instance.completed'], secret: 's1' },
    { id: 'ep_a2', account: 'acct-a', url: 'https://a.example/2', events: ['process_instance.completed', 'incident.created'], secret: 's2' },
    { id: 'ep_a3', account: 'acct-a', url: 'https://a.example/3', events: ['process_instance.completed'], secret: 's3', status: 'disabled' },
    { id: 'ep_b1', account: 'acct-b', url: 'https://b.example/1', events: ['incident.created'], secret: 's4' },
  ]);
});
afterAll(() => testDb.cleanup());

function completed(account: string, instanceKey: string): WebhookEvent {
  return {
    id: webhookEventId('process_instance.completed', instanceKey),
    account,
    type: 'process_instance.completed',
    timestamp: '2026-11-24T12:00:00.000Z',
    data: { processInstanceKey: instanceKey, bpmnProcessId: 'order', version: 1 },
  };
}

async function deliveries(eventId: string) {
  return rows<{ endpoint_id: string; payload: unknown; status: string }>(
    database.db,
    sql`select endpoint_id, payload, status from webhook_deliveries where event_id = ${eventId} order by endpoint_id`,
  );
}

describe('enqueueWebhookEvents', () => {
  it('writes one pending delivery per enabled endpoint subscribed to the type, with the thin payload', async () => {
    const event = completed('acct-a', '4503599627370497');
    await enqueueWebhookEvents(database.db, [event, completed('acct-b', '4503599627370498')]);
    const written = await deliveries(event.id);
    expect(written.map((d) => d.endpoint_id)).toEqual(['ep_a1', 'ep_a2']);
    expect(written[0].status).toBe('pending');
    expect(written[0].payload).toEqual({ type: event.type, timestamp: event.timestamp, data: event.data });
    expect(await deliveries(webhookEventId('process_instance.completed', '4503599627370498'))).toEqual([]);
  });

  it('adds nothing when the same event is written again', async () => {
    const event = completed('acct-a', '4503599627370499');
    await enqueueWebhookEvents(database.db, [event]);
    await enqueueWebhookEvents(database.db, [event]);
    expect(await deliveries(event.id)).toHaveLength(2);
  });

  it('writes nothing when the transaction it is part of rolls back', async () => {
    const event = completed('acct-a', '4503599627370500');
    await database.db
      .transaction(async (tx) => {
        await enqueueWebhookEvents(tx, [event]);
        tx.rollback();
      })
      .catch(() => undefined);
    expect(await deliveries(event.id)).toEqual([]);
  });
});
