// The delivery log's entries that live in the leaders' batch rows: an engine
// event delivered at its first attempt has no delivery row, only an outcome
// in its webhook_batches row (`outcomes`: endpoint, event id, status code,
// duration, time). This module reads those outcomes as deliveries of one
// endpoint (listed, got by id) and turns one into a delivery row when it is
// sent again; and prunes the log past its retention. Such a delivery's id is derived, not stored: `b`, the batch
// key's numbers and the event's index in the batch's `events`, joined by
// `-` (`b3-17-1042-0`); the endpoint is the route's. The position both
// sources are ordered by, newest first, is (created_at, source, tie) with a
// batch entry before a delivery row of the same instant.
import { sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { runStatement, type Statement } from './statement.ts';
import type { WebhookDeliveryRow } from './webhooks-repository.ts';

/** Where an entry of the merged log stands: `t` created_at to the microsecond (ISO, UTC), `k` its source, `x` its id. */
export interface LogPosition {
  t: string;
  k: 'b' | 'd';
  x: string;
}

const POSITION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([bd])\|(.{1,80})$/;
const BATCH_ID = /^b(0|[1-9]\d{0,9})-(0|[1-9]\d{0,15})-(0|[1-9]\d{0,15})-(0|[1-9]\d{0,5})$/;

/** created_at as a position's `t`: microseconds kept, so ties are real ties. */
export const POSITION_TIME = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export function encodePosition(p: LogPosition): string {
  return `${p.t}|${p.k}|${p.x}`;
}

export function decodePosition(text: string): LogPosition | undefined {
  const m = POSITION.exec(text);
  if (m === null) return undefined;
  const p = { t: m[1], k: m[2] as 'b' | 'd', x: m[3] };
  if (p.k === 'b' ? parseBatchDeliveryId(p.x) === undefined : !/^[1-9]\d{0,18}$/.test(p.x)) return undefined;
  return p;
}

/** Orders two positions of the merged log: negative when `a` comes first (is newer). */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.t !== b.t) return a.t > b.t ? -1 : 1;
  return a.k === b.k ? 0 : a.k === 'b' ? -1 : 1;
}

/** The id of the delivery recorded as outcome of the event at `index` of batch `key`. */
export function batchDeliveryId(key: string, index: number): string {
  return `b${key.replaceAll(':', '-')}-${index}`;
}

export function parseBatchDeliveryId(id: string): { key: string; index: number } | undefined {
  const m = BATCH_ID.exec(id);
  return m === null ? undefined : { key: `${m[1]}:${m[2]}:${m[3]}`, index: Number(m[4]) };
}

export const isBatchDeliveryId = (id: string): boolean => parseBatchDeliveryId(id) !== undefined;

interface EntryRow {
  t: string;
  key: string;
  idx: number;
  event: { i: string; a: string; ty: string; ts: string; d: Record<string, unknown> };
  outcome: { e: string; i: string; c: number; ms: number; at: string };
}

export type LoggedDelivery = WebhookDeliveryRow & { position: LogPosition };

function toDelivery(row: EntryRow, endpointId: string): LoggedDelivery {
  const { event, outcome } = row;
  const id = batchDeliveryId(row.key, Number(row.idx));
  const at = new Date(outcome.at);
  return {
    id,
    endpointId,
    eventId: event.i,
    type: event.ty,
    payload: { type: event.ty, timestamp: event.ts, data: event.d },
    status: 'delivered',
    attempts: 1,
    nextAttemptAt: at,
    lastStatusCode: outcome.c,
    lastError: null,
    log: [{ at: outcome.at, statusCode: outcome.c, durationMs: outcome.ms }],
    createdAt: new Date(row.t),
    deliveredAt: at,
    position: { t: row.t, k: 'b', x: id },
  };
}

// An outcome of the endpoint, its event (the account's) and the event's index. An
// entry whose event has a delivery row for the endpoint (it was sent again) is that
// row's from then on, and not listed here.
const ENTRY = (endpointId: string, account: string) => sql`
  cross join lateral jsonb_array_elements(b.outcomes) as o(v)
  cross join lateral (
    select e.v, e.n - 1 as idx from jsonb_array_elements(b.events) with ordinality as e(v, n) where e.v->>'i' = o.v->>'i' limit 1
  ) as ev
  where b.delivered_at is not null and o.v->>'e' = ${endpointId} and ev.v->>'a' = ${account}
    and not exists (select 1 from webhook_deliveries d where d.endpoint_id = ${endpointId} and d.event_id = o.v->>'i')`;

/** The endpoint's batch entries after `after` (exclusive), newest first, at most `limit`. */
export async function listBatchEntries(db: Db, account: string, endpointId: string, after: LogPosition | undefined, limit: number): Promise<LoggedDelivery[]> {
  let before = sql``;
  if (after?.k === 'd') before = sql`and b.created_at < ${after.t}::timestamptz`;
  else if (after?.k === 'b') {
    const { key, index } = parseBatchDeliveryId(after.x)!;
    before = sql`and (b.created_at < ${after.t}::timestamptz or (b.created_at = ${after.t}::timestamptz
      and (b.key collate "C" < ${key} or (b.key = ${key} and ev.idx < ${index}))))`;
  }
  const found = await rows<EntryRow>(
    db,
    sql`select ${sql.raw(POSITION_TIME('b.created_at'))} as t, b.key, ev.idx, ev.v as event, o.v as outcome
    from webhook_batches b ${ENTRY(endpointId, account)}
      and b.endpoints @> array[${endpointId}]::text[] ${before}
    order by b.created_at desc, b.key collate "C" desc, ev.idx desc
    limit ${limit}`,
  );
  return found.map((row) => toDelivery(row, endpointId));
}

/** The batch entry `id` of the endpoint, unless it is not one or has a delivery row now. */
export async function getBatchEntry(db: Db, account: string, endpointId: string, id: string): Promise<LoggedDelivery | null> {
  const parsed = parseBatchDeliveryId(id);
  if (parsed === undefined) return null;
  const found = await rows<EntryRow>(
    db,
    sql`select ${sql.raw(POSITION_TIME('b.created_at'))} as t, b.key, ev.idx, ev.v as event, o.v as outcome
    from webhook_batches b ${ENTRY(endpointId, account)} and b.key = ${parsed.key} and ev.idx = ${parsed.index}`,
  );
  return found.length === 0 ? null : toDelivery(found[0], endpointId);
}

/**
 * The event the batch entry `id` names, if any: its delivery row's id when it
 * has one (sent again before), else undefined.
 */
export async function deliveryRowOf(db: Db, account: string, endpointId: string, id: string): Promise<string | undefined> {
  const parsed = parseBatchDeliveryId(id);
  if (parsed === undefined) return undefined;
  const [row] = await rows<{ id: string }>(
    db,
    sql`select d.id::text as id from webhook_batches b
    join webhook_deliveries d on d.endpoint_id = ${endpointId} and d.account = ${account} and d.event_id = b.events->(${parsed.index}::int)->>'i'
    where b.key = ${parsed.key} and b.events->(${parsed.index}::int)->>'a' = ${account}`,
  );
  return row?.id;
}

/**
 * Turns the batch entry `id` into a delivery row, pending and due now: its
 * first attempt in its log, created when the batch was (it keeps its place in
 * the log), retried from there on its schedule. The new row's id; undefined
 * when there is no such entry (or it became a delivery row meanwhile).
 */
export async function batchEntryToDelivery(db: Db, account: string, endpointId: string, id: string): Promise<string | undefined> {
  const parsed = parseBatchDeliveryId(id);
  if (parsed === undefined) return undefined;
  const [row] = await rows<{ id: string }>(
    db,
    sql`insert into webhook_deliveries (endpoint_id, account, event_id, type, payload, status, attempts, next_attempt_at,
                                    last_status_code, log, created_at)
    select ${endpointId}, ${account}, ev.v->>'i', ev.v->>'ty',
           jsonb_build_object('type', ev.v->>'ty', 'timestamp', ev.v->>'ts', 'data', ev.v->'d'), 'pending', 1, now(),
           (o.v->>'c')::int, jsonb_build_array(jsonb_build_object('at', o.v->>'at', 'statusCode', (o.v->>'c')::int, 'durationMs', (o.v->>'ms')::numeric)),
           b.created_at
    from webhook_batches b ${ENTRY(endpointId, account)} and b.key = ${parsed.key} and ev.idx = ${parsed.index}
    on conflict (endpoint_id, event_id) do nothing
    returning id::text as id`,
  );
  return row?.id;
}

// The retention's deletes, oldest first, at most $2 rows per statement, rows
// another process is deleting skipped: delivered batch rows through their
// partial index on created_at (an undelivered one is never deleted), and
// finished delivery rows (pending ones are still being sent) among the oldest
// few by id: ids follow the order rows were written in, so the head of the
// primary key is where expired rows are, and the scan stays bounded however
// large the table (a head of rows still retrying holds the prune back only
// until they finish).
const PRUNE_BATCHES: Statement = {
  text: `with gone as (delete from webhook_batches where key in (
  select key from webhook_batches where delivered_at is not null and created_at <= $1::timestamptz order by created_at limit $2 for update skip locked)
  returning 1)
select count(*)::int as n from gone`,
};
const PRUNE_DELIVERIES: Statement = {
  text: `with gone as (delete from webhook_deliveries where id in (
  select d.id from (select id from webhook_deliveries order by id limit $2 * 4) o join webhook_deliveries d on d.id = o.id
  where d.status <> 'pending' and d.created_at <= $1::timestamptz order by d.id limit $2 for update of d skip locked)
  returning 1)
select count(*)::int as n from gone`,
};

/**
 * Deletes up to `limit` delivered batch rows and up to `limit` finished
 * delivery rows written at or before `before`: the delivery log's entries
 * past its retention. `more`: a statement came back full (go on).
 */
export async function pruneDeliveryLog(db: Db, before: Date, limit: number): Promise<{ batches: number; deliveries: number; more: boolean }> {
  const at = before.toISOString();
  const [batches] = await runStatement<{ n: number }>(db, PRUNE_BATCHES, [at, limit]);
  const [deliveries] = await runStatement<{ n: number }>(db, PRUNE_DELIVERIES, [at, limit]);
  const b = Number(batches.n);
  const d = Number(deliveries.n);
  return { batches: b, deliveries: d, more: b >= limit || d >= limit };
}
