// The webhook outbox as its writers see it: the event types an account can
// subscribe to, the stable id of an event, and the SQL that turns events
// into delivery rows for every enabled endpoint of the account subscribed to
// their type. Whoever makes a change writes its events with it, in the same
// transaction: the partition leader's batch statement (commit-batch-sql.ts,
// payload field `ev`), a deploy, an incident's resolution, a credit charge.
// An event no endpoint wants writes nothing; a write replayed (a batch sent
// again after a lost answer) finds its rows already there and adds none.
import type { Db } from './db.ts';
import { runStatement, type Statement } from './statement.ts';

export const WEBHOOK_EVENT_TYPES = [
  'process_instance.completed',
  'process_instance.canceled',
  'process_instance.incident',
  'incident.created',
  'incident.closed',
  'user_task.created',
  'user_task.completed',
  'deployment.created',
  'credits.low',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** An event as written to the outbox; sent as `{type, timestamp, data}` under `webhook-id: id`. */
export interface WebhookEvent {
  /** webhookEventId(type, object key): the same however often the change is written. */
  id: string;
  account: string;
  type: WebhookEventType | 'webhook.test';
  /** When the change happened, ISO 8601. */
  timestamp: string;
  /** The account's objects the event is about, by key (e.g. `{processInstanceKey, bpmnProcessId, version}`). */
  data: Record<string, unknown>;
}

/**
 * The `webhook-id` of the event `type` about the object `key` (an instance,
 * incident, job, deployment or ledger row key): each such event happens
 * once per object, so the id is derived, not drawn, and a write repeated by
 * a retry or a replay is recognised by it.
 */
export function webhookEventId(type: string, key: string): string {
  return `msg_${key}_${type.replace('.', '_')}`;
}

/**
 * The events' delivery rows, one per enabled endpoint of the event's account
 * subscribed to its type. `$1` is a jsonb array of WebhookEvent. Written as
 * a CTE body so a bigger statement can embed it with its own source of rows.
 */
export const ENQUEUE_WEBHOOK_EVENTS: Statement = {
  text: `insert into webhook_deliveries (endpoint_id, account, event_id, type, payload)
select w.id, e.account, e.id, e.type, jsonb_build_object('type', e.type, 'timestamp', e.timestamp, 'data', e.data)
from jsonb_to_recordset($1::jsonb) as e(id text, account text, type text, timestamp text, data jsonb)
join webhook_endpoints w on w.account = e.account and w.status = 'enabled' and w.events ? e.type
on conflict (endpoint_id, event_id) do nothing`,
};

/**
 * Writes the events' deliveries on `db` — pass the transaction of the change
 * they report, so both commit or neither does.
 */
export async function enqueueWebhookEvents(db: Db, events: readonly WebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  await runStatement(db, ENQUEUE_WEBHOOK_EVENTS, [JSON.stringify(events)]);
}
