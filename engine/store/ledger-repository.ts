// The credit ledger: an account's balance lives on its `accounts` row and
// every movement is an append-only `ledger` row written in the same
// transaction. Charges go in groups (chargeMany, one statement each) that
// lock the account row first, so concurrent groups serialise on that lock and
// can never overdraw; a group costs one round trip however many charges it
// holds, which is what lets the API coalesce the charges of a busy account.
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { accounts, ledger } from './schema.ts';
import { runsAlone, runStatement, type Statement } from './statement.ts';
import { assertAccount } from './tenancy.ts';
import { ENQUEUE_WEBHOOK_EVENTS, webhookEventId } from './webhook-outbox.ts';

export interface LedgerEntry {
  id: string;
  /** Negative for a charge, positive for a refund or grant. */
  amount: number;
  reason: string;
  reference: string | null;
  balanceAfter: number;
  createdAt: Date;
}

export interface LedgerMovement {
  /** The ledger row written. */
  id: string;
  balanceAfter: number;
}

export interface Charge {
  amount: number;
  reason: string;
  reference?: string | null;
}

/** What became of one charge of a group. */
export type ChargeResult =
  | ({ granted: true } & LedgerMovement)
  /** `balance` is what was left when the charge's turn came; null for an unknown account. */
  | { granted: false; balance: number | null };

/** Appends a ledger row; for callers already inside a transaction (account creation). */
export async function appendLedger(
  tx: Db,
  row: { account: string; amount: number; reason: string; reference?: string | null; balanceAfter: number },
): Promise<string> {
  const [inserted] = await tx
    .insert(ledger)
    .values({ account: row.account, amount: row.amount, reason: row.reason, reference: row.reference ?? null, balanceAfter: row.balanceAfter })
    .returning({ id: ledger.id });
  return String(inserted.id);
}

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`store: a credit amount must be a positive whole number, not ${amount}`);
}

// The credits.low event of the charge that takes the balance from at least
// the threshold ($4; null: none) to below it, as webhook deliveries written by
// the charge statement itself (webhook-outbox.ts's insert, its rows drawn
// from the walk): it commits with the charge or not at all. A group's
// balances only fall, so at most one of its charges crosses; when none does,
// or the account has no enabled endpoint (an index probe), nothing is written.
const [EVENT_ID_BEFORE, EVENT_ID_AFTER] = webhookEventId('credits.low', '#').split('#');
const LOW_EVENTS = `(select coalesce(jsonb_agg(jsonb_build_object(
    'id', '${EVENT_ID_BEFORE}' || l.id::text || '${EVENT_ID_AFTER}',
    'account', $1::text,
    'type', 'credits.low',
    'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', jsonb_build_object('balance', l.balance, 'threshold', $4::int8))), '[]'::jsonb) from low l)`;
if (!ENQUEUE_WEBHOOK_EVENTS.text.includes('$1::jsonb')) throw new Error('store: ENQUEUE_WEBHOOK_EVENTS no longer reads its events from $1::jsonb');
const CREDITS_LOW_DELIVERIES = ENQUEUE_WEBHOOK_EVENTS.text.replace('$1::jsonb', LOW_EVENTS);

/**
 * A group of charges against one account ($1), given in order as a jsonb
 * array ($2), in one statement and so one implicit transaction. The account
 * row is locked (FOR UPDATE) before anything is decided, so the walk starts
 * from the latest committed balance and no other charge or refund moves it
 * until this commits. The walk takes the charges in order, exactly as if each
 * had run alone in that order: a charge is granted iff the balance left by
 * the granted ones before it covers it, so one that does not fit is refused
 * and a smaller one after it may still be granted. It is recursive because
 * each step depends on the one before; a step is O(1) (the amounts are an
 * array), so a group of n costs O(n). Ledger ids are drawn in the walk too,
 * step by step, so they ascend in charge order like the balances descend.
 * An unknown account has no balance: every comparison is null, nothing is
 * granted and nothing is written.
 *
 * Table accesses are the accounts primary key (twice) and an insert into
 * ledger, which has no plan to choose, so the statement is prepared once per
 * connection (statement.ts).
 *
 * Run as a transaction of its own ($3 = 'off'), its commit does not wait
 * for the WAL flush (synchronous_commit off for this transaction only,
 * `lazy`; inside a caller's transaction, $3 is null and the setting stays
 * whatever that transaction has). A charge is never what a client is told
 * succeeded: the start or completion it pays for is, and that commits after
 * it with a flush, which makes every earlier commit durable too (the WAL is
 * flushed up to a point, not per transaction); a failed action's refund
 * flushes likewise. A crash in between loses the charge together with the
 * action it paid for. That takes one flush — one disk wait — off every
 * charged request.
 */
const CHARGE_MANY: Statement = {
  name: 'orca-charge-many',
  text: `/* orca:charge-many */
with recursive
lazy as materialized (select set_config('synchronous_commit', coalesce($3, current_setting('synchronous_commit')), true) as setting),
input as materialized (
  select x.n::int as n, x.a as amount, x.r as reason, x.f as reference
  from rows from (jsonb_to_recordset($2::jsonb) as (a int8, r text, f text)) with ordinality as x(a, r, f, n)
),
amounts as materialized (
  select array_agg(amount order by n) as a, count(*)::int as total from input
),
account as materialized (
  select credit_balance from accounts where id = $1 for update
),
walk (n, balance, granted, id) as (
  select 0, (select credit_balance from account), false, null::int8
  union all
  select w.n + 1,
         case when c.amount <= w.balance then w.balance - c.amount else w.balance end,
         coalesce(c.amount <= w.balance, false),
         case when c.amount <= w.balance then nextval(pg_get_serial_sequence('ledger', 'id')) end
  from walk w
  cross join amounts m
  cross join lateral (select m.a[w.n + 1] as amount) c
  where w.n < m.total
),
steps as materialized (select * from walk where n > 0),
low as (
  select x.id, x.balance
  from (select s.id, s.balance, s.granted, coalesce(lag(s.balance) over (order by s.n), (select credit_balance from account)) as before from steps s) x
  where x.granted and x.before >= $4::int8 and x.balance < $4::int8
),
low_events as (${CREDITS_LOW_DELIVERIES}),
debit as (
  update accounts set credit_balance = credit_balance - (select sum(i.amount) from steps s join input i on i.n = s.n where s.granted)::int8
  where id = $1 and exists (select from steps where granted)
),
entries as (
  insert into ledger (id, account, amount, reason, reference, balance_after)
  select s.id, $1, -i.amount, i.reason, i.reference, s.balance
  from steps s join input i on i.n = s.n
  where s.granted
)
select s.granted, s.id::text as id, s.balance from steps s cross join lazy order by s.n`,
};

export function ledgerRepository(db: Db) {
  /**
   * Takes each charge's amount in order, in one statement (see CHARGE_MANY):
   * a charge is granted iff the balance left by the granted ones before it
   * covers it; a refused one writes nothing. Unknown account: all refused.
   * With `lowThreshold`, the charge that takes the balance below it writes
   * the account's credits.low event too.
   */
  async function chargeMany(account: string, charges: readonly Charge[], options: { lowThreshold?: number } = {}): Promise<ChargeResult[]> {
    assertAccount(account);
    for (const c of charges) assertAmount(c.amount);
    if (charges.length === 0) return [];
    const payload = JSON.stringify(charges.map((c) => ({ a: c.amount, r: c.reason, f: c.reference ?? null })));
    const steps = await runStatement<{ granted: boolean; id: string | null; balance: string | number | bigint | null }>(db, CHARGE_MANY, [
      account,
      payload,
      runsAlone(db) ? 'off' : null,
      options.lowThreshold ?? null,
    ]);
    return steps.map((s): ChargeResult => {
      const balance = s.balance === null ? null : Number(s.balance);
      return s.granted ? { granted: true, id: s.id!, balanceAfter: balance! } : { granted: false, balance };
    });
  }

  /** Takes `amount` credits, or returns null (nothing written) when the balance is short or the account unknown. */
  async function charge(account: string, amount: number, reason: string, reference?: string | null): Promise<LedgerMovement | null> {
    const [result] = await chargeMany(account, [{ amount, reason, reference }]);
    return result.granted ? { id: result.id, balanceAfter: result.balanceAfter } : null;
  }

  /** Gives `amount` credits back (a refund) or grants them; null when the account is unknown. */
  async function credit(account: string, amount: number, reason: string, reference?: string | null): Promise<LedgerMovement | null> {
    assertAccount(account);
    assertAmount(amount);
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(accounts)
        .set({ creditBalance: sql`${accounts.creditBalance} + ${amount}` })
        .where(eq(accounts.id, account))
        .returning({ balance: accounts.creditBalance });
      if (!row) return null;
      const id = await appendLedger(tx, { account, amount, reason, reference, balanceAfter: Number(row.balance) });
      return { id, balanceAfter: Number(row.balance) };
    });
  }

  /** The current balance, or null for an unknown account. */
  async function balance(account: string): Promise<number | null> {
    assertAccount(account);
    const [row] = await db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, account));
    return row ? Number(row.balance) : null;
  }

  /** The account's movements, newest first. */
  async function list(account: string, page: PageRequest = {}): Promise<Page<LedgerEntry>> {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const before = page.cursor ? decodeCursor(page.cursor, isKey) : undefined;
    const fetched = await db
      .select()
      .from(ledger)
      .where(before === undefined ? eq(ledger.account, account) : and(eq(ledger.account, account), lt(ledger.id, Number(before))))
      .orderBy(desc(ledger.id))
      .limit(limit + 1);
    return toPage(
      fetched,
      limit,
      (row) => String(row.id),
      (row) => ({
        id: String(row.id),
        amount: Number(row.amount),
        reason: row.reason,
        reference: row.reference,
        balanceAfter: Number(row.balanceAfter),
        createdAt: row.createdAt,
      }),
    );
  }

  return guarded({ chargeMany, charge, credit, balance, list });
}
