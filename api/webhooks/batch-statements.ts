// The dispatcher's SQL for the leaders' batch rows (webhook_batches, one per
// committed batch with wanted events): the enabled endpoints of the accounts
// whose events it took in memory, finishing the batches it sent (their
// failed deliveries become delivery rows with a retry schedule and the rows
// are marked delivered, in one statement for a whole group), giving holds
// back on shutdown, and taking over rows whose hold lapsed undelivered (the
// dispatcher holding them died): turned into delivery rows and deleted.
import { runStatement, type Db, type Statement } from '../../engine/index.ts';
import type { WebhookBatching } from './delivery-statements.ts';

/** An enabled endpoint as the in-memory path sends to it. */
export interface EndpointRow {
  id: string;
  account: string;
  url: string;
  events: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
  failing_since: Date | string | null;
  batching: WebhookBatching | null;
}

const ENDPOINTS: Statement = {
  text: `select w.id, w.account, w.url, w.events, w.secret, w.previous_secret, w.previous_secret_expires_at, w.failing_since, w.batching
from webhook_endpoints w
where w.account = any (array(select jsonb_array_elements_text($1::jsonb))) and w.status = 'enabled'`,
};

/** The enabled endpoints of `accounts`. */
export function enabledEndpoints(db: Db, accounts: readonly string[]): Promise<EndpointRow[]> {
  return runStatement<EndpointRow>(db, ENDPOINTS, [JSON.stringify(accounts)]);
}

/**
 * A delivery of a fresh batch that failed, or that was never tried because
 * its endpoint's queue here was full (`entry` null): it becomes a delivery
 * row, sent from there on by the claim path (or failed for good).
 */
export interface FailedFresh {
  e: string;
  a: string;
  i: string;
  ty: string;
  /** The body sent. */
  b: string;
  s: 'pending' | 'failed';
  c: number | null;
  err: string | null;
  entry: { at: string; statusCode?: number; durationMs: number; error?: string } | null;
  n: string | null;
}

/** A fresh batch all of whose deliveries were made (or became delivery rows): `o` is what each one got. */
export interface FinishedBatch {
  k: string;
  o: { e: string; i: string; c: number; ms: number; at: string }[];
  /** The distinct endpoints of `o`: what the endpoints' delivery logs find the row by (its GIN index). */
  n: string[];
}

// $1 failed deliveries, $2 finished batches, $3 now, $4 batch keys whose hold is given back.
const FINISH: Statement = {
  text: `with failed as (
  insert into webhook_deliveries (endpoint_id, account, event_id, type, payload, status, attempts, next_attempt_at,
                                  last_status_code, last_error, log)
  select f.e, f.a, f.i, f.ty, f.b::jsonb, f.s, (f.entry is not null)::int, coalesce(f.n, $3::timestamptz), f.c, f.err,
         case when f.entry is null then '[]'::jsonb else jsonb_build_array(f.entry) end
  from jsonb_to_recordset($1::jsonb) as f(e text, a text, i text, ty text, b text, s text, c int, err text, entry jsonb, n timestamptz)
  on conflict (endpoint_id, event_id) do nothing
), finished as (
  update webhook_batches t set delivered_at = $3::timestamptz, claimed_until = null, outcomes = o.o,
    endpoints = array(select jsonb_array_elements_text(o.n))
  from jsonb_to_recordset($2::jsonb) as o(k text, o jsonb, n jsonb)
  where t.key = o.k and t.delivered_at is null
), released as (
  update webhook_batches t set claimed_until = null
  where t.key = any (array(select jsonb_array_elements_text($4::jsonb))) and t.delivered_at is null
)
select 1`,
};

/** One statement: the failed deliveries written as delivery rows, the batches marked delivered, the holds given back. */
export async function finishBatches(
  db: Db,
  work: { failed: readonly FailedFresh[]; finished: readonly FinishedBatch[]; released: readonly string[]; now: Date },
): Promise<void> {
  if (work.failed.length + work.finished.length + work.released.length === 0) return;
  await runStatement(db, FINISH, [JSON.stringify(work.failed), JSON.stringify(work.finished), work.now.toISOString(), JSON.stringify(work.released)]);
}

// $1 now, $2 how many batch rows.
const TAKE_OVER: Statement = {
  text: `with lapsed as (
  select key from webhook_batches
  where delivered_at is null and (claimed_until is null or claimed_until <= $1::timestamptz)
  order by created_at
  limit $2
  for update skip locked
), gone as (
  delete from webhook_batches t using lapsed l where t.key = l.key returning t.events
), written as (
  insert into webhook_deliveries (endpoint_id, account, event_id, type, payload)
  select w.id, e.a, e.i, e.ty, jsonb_build_object('type', e.ty, 'timestamp', e.ts, 'data', e.d)
  from gone g cross join lateral jsonb_to_recordset(g.events) as e(i text, a text, ty text, ts text, d jsonb)
  join webhook_endpoints w on w.account = e.a and w.status = 'enabled' and w.events ? e.ty
  on conflict (endpoint_id, event_id) do nothing
  returning 1
)
select (select count(*) from gone)::int as batches, (select count(*) from written)::int as deliveries`,
};

/**
 * Batch rows nobody holds (their dispatcher died, or none ran where they
 * were written) become delivery rows, one per enabled endpoint subscribed to
 * each event, and are deleted; the claim path sends them from there. The
 * number of delivery rows written.
 */
export async function takeOverBatches(db: Db, options: { now: Date; limit: number }): Promise<number> {
  const [row] = await runStatement<{ batches: number; deliveries: number }>(db, TAKE_OVER, [options.now.toISOString(), options.limit]);
  return Number(row.deliveries);
}
