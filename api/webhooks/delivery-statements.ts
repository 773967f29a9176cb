// The dispatcher's SQL, each a single statement for a whole group of
// deliveries: claiming the due ones (rows another dispatcher holds are
// skipped, not waited for: `for update skip locked`, and a claim lapses at
// `claimed_until`, so a crashed dispatcher's rows are taken over), recording
// the attempts, releasing claims on shutdown, and the endpoint side of the
// outcomes (failing_since, disabling on 410 Gone or after days of failures,
// failing the disabled endpoint's pending deliveries). Times come in as
// parameters, never from now(): the dispatcher's clock is injectable.
import { runStatement, type Db, type Statement } from '../../engine/index.ts';

/** A claimed delivery with what is needed to send it. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  /** The payload as stored, already JSON text: sent as it is (no parse and stringify per delivery). */
  body: string;
  /** Attempts made before this one: the record is written only if it is still so (a lapsed claim taken over is not recorded twice). */
  attempts: number;
  /** Null when the endpoint was deleted. */
  url: string | null;
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  endpointStatus: string | null;
  disabledReason: string | null;
  failingSince: Date | null;
  /** The endpoint's batched delivery (null: one event per request). */
  batching: WebhookBatching | null;
}

/** An endpoint's batched delivery: up to maxEvents events per request, the first waiting at most maxWaitMs. */
export interface WebhookBatching {
  maxEvents: number;
  maxWaitMs: number;
}

// $1 now, $2 how many, $3 claimed until, $4 jsonb array of endpoint ids not to claim for (busy here).
const CLAIM: Statement = {
  text: `with due as (
  select id from webhook_deliveries
  where status = 'pending' and next_attempt_at <= $1::timestamptz
    and (claimed_until is null or claimed_until <= $1::timestamptz)
    and endpoint_id <> all (select jsonb_array_elements_text($4::jsonb))
  order by next_attempt_at, id
  limit $2
  for update skip locked
), claimed as (
  update webhook_deliveries d set claimed_until = $3::timestamptz from due where d.id = due.id
  returning d.id, d.endpoint_id, d.event_id, d.payload, d.attempts, d.next_attempt_at
)
select c.id::text as id, c.endpoint_id, c.event_id, c.payload::text as body, c.attempts, w.url, w.secret, w.previous_secret,
  w.previous_secret_expires_at, w.status as endpoint_status, w.disabled_reason, w.failing_since, w.batching
from claimed c left join webhook_endpoints w on w.id = c.endpoint_id
order by c.next_attempt_at, c.id`,
};

interface ClaimRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  body: string;
  attempts: number;
  url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
  endpoint_status: string | null;
  disabled_reason: string | null;
  failing_since: Date | string | null;
  batching: WebhookBatching | null;
}

const asDate = (value: Date | string | null): Date | null => (value === null ? null : value instanceof Date ? value : new Date(value));

export async function claimDue(db: Db, options: { now: Date; limit: number; until: Date; skipEndpoints: readonly string[] }): Promise<ClaimedDelivery[]> {
  const rows = await runStatement<ClaimRow>(db, CLAIM, [
    options.now.toISOString(),
    options.limit,
    options.until.toISOString(),
    JSON.stringify(options.skipEndpoints),
  ]);
  return rows.map((r) => ({
    id: String(r.id),
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    body: r.body,
    attempts: Number(r.attempts),
    url: r.url,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretExpiresAt: asDate(r.previous_secret_expires_at),
    endpointStatus: r.endpoint_status,
    disabledReason: r.disabled_reason,
    failingSince: asDate(r.failing_since),
    batching: r.batching,
  }));
}

/** What became of one claimed delivery. `entry` absent: no attempt was made (its endpoint is gone or disabled). */
export interface DeliveryRecord {
  id: string;
  /** The attempts the claim saw. */
  attempts: number;
  status: 'pending' | 'delivered' | 'failed';
  statusCode: number | null;
  error: string | null;
  entry: { at: string; statusCode?: number; durationMs: number; error?: string } | null;
  deliveredAt: string | null;
  /** When to try again (status pending). */
  nextAttemptAt: string | null;
}

const RECORD: Statement = {
  text: `update webhook_deliveries d set
  status = r.status,
  attempts = d.attempts + (r.entry is not null)::int,
  last_status_code = case when r.entry is null then d.last_status_code else r."statusCode" end,
  last_error = r.error,
  log = case when r.entry is null then d.log else d.log || jsonb_build_array(r.entry) end,
  delivered_at = r."deliveredAt",
  next_attempt_at = coalesce(r."nextAttemptAt", d.next_attempt_at),
  claimed_until = null
from jsonb_to_recordset($1::jsonb) as r(id bigint, attempts int, status text, "statusCode" int, error text, entry jsonb,
  "deliveredAt" timestamptz, "nextAttemptAt" timestamptz)
where d.id = r.id and d.attempts = r.attempts and d.status = 'pending'`,
};

export async function recordDeliveries(db: Db, records: readonly DeliveryRecord[]): Promise<void> {
  if (records.length === 0) return;
  await runStatement(db, RECORD, [JSON.stringify(records)]);
}

const RELEASE: Statement = {
  text: `update webhook_deliveries d set claimed_until = null
from jsonb_to_recordset($1::jsonb) as r(id bigint, attempts int)
where d.id = r.id and d.attempts = r.attempts and d.status = 'pending'`,
};

/** Gives claimed deliveries back untried (shutdown), so another dispatcher need not wait for the claims to lapse. */
export async function releaseClaims(db: Db, claims: readonly { id: string; attempts: number }[]): Promise<void> {
  if (claims.length === 0) return;
  await runStatement(db, RELEASE, [JSON.stringify(claims.map(({ id, attempts }) => ({ id, attempts })))]);
}

/** The latest outcome at one endpoint within a group. */
export interface EndpointOutcome {
  id: string;
  ok: boolean;
  /** It answered 410 Gone: disabled at once. */
  gone: boolean;
  at: string;
}

// $1 the outcomes, $2 now, $3 failing since at or before this → disabled.
const ENDPOINT_OUTCOMES: Statement = {
  text: `with r as (
  select * from jsonb_to_recordset($1::jsonb) as r(id text, ok boolean, gone boolean, at timestamptz)
), changed as (
  update webhook_endpoints w set
    failing_since = case when r.ok then null else coalesce(w.failing_since, r.at) end,
    status = case when r.gone or (not r.ok and coalesce(w.failing_since, r.at) <= $3::timestamptz) then 'disabled' else w.status end,
    disabled_reason = case
      when r.gone then 'the endpoint answered 410 Gone at ' || to_char(r.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      when not r.ok and coalesce(w.failing_since, r.at) <= $3::timestamptz
        then 'every delivery has failed since ' || to_char(coalesce(w.failing_since, r.at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
          || ' (' || $4::text || ')'
      else w.disabled_reason end,
    updated_at = $2::timestamptz
  from r
  where w.id = r.id and w.status = 'enabled' and (not r.ok or w.failing_since is not null)
  returning w.id, w.status, w.disabled_reason
)
update webhook_deliveries d set status = 'failed', last_error = 'endpoint disabled: ' || c.disabled_reason, claimed_until = null
from changed c
where c.status = 'disabled' and d.endpoint_id = c.id and d.status = 'pending'`,
};

export async function recordEndpointOutcomes(
  db: Db,
  outcomes: readonly EndpointOutcome[],
  options: { now: Date; disableFailingAfterMs: number },
): Promise<void> {
  if (outcomes.length === 0) return;
  const days = options.disableFailingAfterMs / 86_400_000;
  const span = Number.isInteger(days) ? `${days} days` : `${Math.round(options.disableFailingAfterMs / 1000)} s`;
  await runStatement(db, ENDPOINT_OUTCOMES, [
    JSON.stringify(outcomes),
    options.now.toISOString(),
    new Date(options.now.getTime() - options.disableFailingAfterMs).toISOString(),
    `more than ${span}`,
  ]);
}

// Delivery rows pending, and the events of the leaders' batch rows not yet delivered (batch-statements.ts).
const PENDING: Statement = {
  text: `select (select count(*) from webhook_deliveries where status = 'pending')::int
  + (select coalesce(sum(jsonb_array_length(events)), 0) from webhook_batches where delivered_at is null)::int as n`,
};

/** The outbox's backlog (the metrics gauge); undefined when the database does not answer within `timeoutMs`. */
export async function pendingDeliveries(db: Db, timeoutMs: number): Promise<number | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    const counted = runStatement<{ n: number }>(db, PENDING, []).then(([row]) => Number(row.n));
    return await Promise.race([counted.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
