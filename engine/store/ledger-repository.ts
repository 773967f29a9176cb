// The credit ledger: an account's balance lives on its `accounts` row and
// every movement is an append-only `ledger` row written in the same
// transaction. A charge is one conditional UPDATE (`credit_balance >= n`), so
// concurrent charges serialise on the row lock and can never overdraw.
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { accounts, ledger } from './schema.ts';
import { assertAccount } from './tenancy.ts';

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

export function ledgerRepository(db: Db) {
  /** Takes `amount` credits, or returns null (nothing written) when the balance is short or the account unknown. */
  async function charge(account: string, amount: number, reason: string, reference?: string | null): Promise<LedgerMovement | null> {
    assertAccount(account);
    assertAmount(amount);
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(accounts)
        .set({ creditBalance: sql`${accounts.creditBalance} - ${amount}` })
        .where(and(eq(accounts.id, account), gte(accounts.creditBalance, amount)))
        .returning({ balance: accounts.creditBalance });
      if (!row) return null;
      const id = await appendLedger(tx, { account, amount: -amount, reason, reference, balanceAfter: Number(row.balance) });
      return { id, balanceAfter: Number(row.balance) };
    });
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

  return guarded({ charge, credit, balance, list });
}
