// The account row every tenant-owned row refers to. Kept minimal here:
// signup, keys, and the credit ledger build on it from the API side.
import { eq } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { accounts } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export type AccountRecord = typeof accounts.$inferSelect;

export function accountsRepository(db: Db) {
  /** Creates the account unless it exists; `created` says which. The opening balance comes from configuration. */
  async function createAccount(id: string, options: { creditBalance?: number } = {}): Promise<{ account: AccountRecord; created: boolean }> {
    assertAccount(id);
    const [inserted] = await db
      .insert(accounts)
      .values({ id, creditBalance: options.creditBalance ?? 0 })
      .onConflictDoNothing({ target: accounts.id })
      .returning();
    if (inserted) return { account: inserted, created: true };
    const [existing] = await db.select().from(accounts).where(eq(accounts.id, id));
    return { account: existing, created: false };
  }

  async function getAccount(id: string): Promise<AccountRecord | null> {
    assertAccount(id);
    const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
    return row ?? null;
  }

  return guarded({ createAccount, getAccount });
}
