// The webhook outbox as its writers see it: the event types an account can
// subscribe to, the stable id of an event, and how events are written.
// Whoever makes a change writes its events with it, in the same
// transaction. A partition leader's batch statement (commit-batch-sql.ts,
// payload fields `ev` and `eb`) writes one `webhook_batches` row holding the
// batch's events, keyed by webhookBatchKey so a replayed statement adds
// nothing; its dispatcher then sends them (api/webhooks). A deploy, an
// incident's resolution or a credit charge write delivery rows, one per
// enabled endpoint of the account subscribed to the event's type
// (ENQUEUE_WEBHOOK_EVENTS); a write replayed finds its rows already there.
import type { Db } from './db.ts';
import { runStatement, type Statement } from './statement.ts';

export const WEBHOOK_EVENT_TYPES = [
  'process_instance.completed',
  'process_instance.canceled',
  'process_instance.incident',
  'case_instance.completed',
  'case_instance.terminated',
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
 * The `webhook-id` of the event `type` about the object `key` (a process or
 * case instance, incident, job, deployment or ledger row key): each such event happens
 * once per object, so the id is derived, not drawn, and a write repeated by
 * a retry or a replay is recognised by it.
 */
export function webhookEventId(type: string, key: string): string {
  return `msg_${key}_${type.replace('.', '_')}`;
}

/** The key of a leader's batch's outbox row: unique, since every leadership of a partition has an epoch of its own. */
export function webhookBatchKey(batch: { partition: number; epoch: number; seq?: number }): string {
  return `${batch.partition}:${batch.epoch}:${batch.seq ?? 0}`;
}

/** A committed batch's events, as its leader hands them to the dispatcher of its process (Engine.takeWebhookEvents). */
export interface CommittedWebhookEvents {
  /** The batch's outbox row (webhookBatchKey), held for the taker until its hold lapses. */
  key: string;
  events: readonly WebhookEvent[];
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
