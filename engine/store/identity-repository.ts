// Who is who: account e-mail addresses, API keys, the short-lived access
// tokens minted from them, and pending signups. Only sha256 hashes of
// secrets are stored, and a secret is found by its hash (an index probe), so
// the lookup leaks nothing an attacker could time. A token is valid only
// while the key it came from is, which is what makes rotation immediate.
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { appendLedger } from './ledger-repository.ts';
import { accessTokens, accountEmails, accounts, apiKeys, signups } from './schema.ts';
import { runStatement, type Statement } from './statement.ts';
import { assertAccount } from './tenancy.ts';

/** A key about to be stored: its public id and the sha256 of the secret. */
export interface NewKey {
  id: string;
  hash: string;
  /** The key's first characters, for key lists. */
  prefix?: string;
}

export interface NewAccount {
  account: string;
  email: string;
  openingBalance: number;
  key: NewKey;
}

export type CreateAccountResult = { created: true } | { created: false; existingAccount: string };

export type ConfirmSignupResult =
  | { status: 'created' | 'reissued'; account: string; email: string }
  | { status: 'exists'; account: string; email: string }
  | { status: 'unknown' | 'used' | 'expired' };

// Every authenticated request runs one of these two lookups, so they are
// fixed statements prepared once per connection (statement.ts): each table
// access is a probe of a unique index (api_keys.hash, access_tokens.hash,
// api_keys.id), so the cached generic plan cannot go wrong. The instant
// travels as ISO text cast in SQL, so every driver path sends the same value.
const FIND_KEY: Statement = {
  name: 'orca-find-key',
  text: `select k.id, k.account, k.hash from api_keys k where k.hash = $1 and k.retired_at is null`,
};

const FIND_TOKEN: Statement = {
  name: 'orca-find-token',
  text: `select t.account, t.key_id as "keyId", t.hash, t.expires_at as "expiresAt"
         from access_tokens t
         join api_keys k on k.id = t.key_id
         where t.hash = $1 and t.expires_at > $2::timestamptz and k.retired_at is null`,
};

export function identityRepository(db: Db) {
  // Inside a transaction: the account row, its address, its first key and the
  // opening grant on the ledger, or nothing when the address is taken.
  async function insertAccount(tx: Db, input: NewAccount): Promise<CreateAccountResult> {
    assertAccount(input.account);
    const [claimed] = await tx
      .insert(accountEmails)
      .values({ account: input.account, email: input.email })
      .onConflictDoNothing({ target: accountEmails.email })
      .returning({ account: accountEmails.account });
    if (!claimed) {
      const [existing] = await tx.select({ account: accountEmails.account }).from(accountEmails).where(eq(accountEmails.email, input.email));
      return { created: false, existingAccount: existing.account };
    }
    await tx.insert(accounts).values({ id: input.account, creditBalance: input.openingBalance });
    await tx.insert(apiKeys).values({ id: input.key.id, hash: input.key.hash, prefix: input.key.prefix, account: input.account });
    if (input.openingBalance > 0) {
      await appendLedger(tx, { account: input.account, amount: input.openingBalance, reason: 'opening balance', balanceAfter: input.openingBalance });
    }
    return { created: true };
  }

  async function createAccount(input: NewAccount): Promise<CreateAccountResult> {
    return db.transaction((tx) => insertAccount(tx, input));
  }

  /** The account of an active key. */
  async function findKey(hash: string): Promise<{ id: string; account: string; hash: string } | null> {
    const [row] = await runStatement<{ id: string; account: string; hash: string }>(db, FIND_KEY, [hash]);
    return row ?? null;
  }

  /** The account of a token that has not expired at `now` and whose key is not retired. */
  async function findToken(hash: string, now: Date): Promise<{ account: string; keyId: string; hash: string; expiresAt: Date } | null> {
    const [row] = await runStatement<{ account: string; keyId: string; hash: string; expiresAt: Date | string }>(db, FIND_TOKEN, [hash, now.toISOString()]);
    return row ? { ...row, expiresAt: new Date(row.expiresAt) } : null;
  }

  async function insertToken(token: { hash: string; account: string; keyId: string; expiresAt: Date }): Promise<void> {
    assertAccount(token.account);
    await db.insert(accessTokens).values(token);
  }

  /**
   * Retires the active key — the one with hash `old`, or the account's key
   * with that id (a signed-in person rotating from the key list) — and stores `next` for the same
   * account, dropping the old key's tokens; null when the old key is not (or
   * no longer: a concurrent rotation won) active.
   */
  async function rotateKey(
    old: string | { account: string; keyId: string },
    next: NewKey,
    now: Date,
  ): Promise<{ account: string; retiredKeyId: string } | null> {
    const which = typeof old === 'string' ? eq(apiKeys.hash, old) : and(eq(apiKeys.account, old.account), eq(apiKeys.id, old.keyId));
    return db.transaction(async (tx) => {
      const [retired] = await tx
        .update(apiKeys)
        .set({ retiredAt: now })
        .where(and(which, isNull(apiKeys.retiredAt)))
        .returning({ id: apiKeys.id, account: apiKeys.account });
      if (!retired) return null;
      await tx.insert(apiKeys).values({ id: next.id, hash: next.hash, prefix: next.prefix, account: retired.account });
      // Already dead through the join in findToken; deleting keeps the table small.
      await tx.delete(accessTokens).where(eq(accessTokens.keyId, retired.id));
      return { account: retired.account, retiredKeyId: retired.id };
    });
  }

  async function retireKey(id: string, now: Date): Promise<void> {
    await db.transaction(async (tx) => {
      await tx
        .update(apiKeys)
        .set({ retiredAt: now })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.retiredAt)));
      await tx.delete(accessTokens).where(eq(accessTokens.keyId, id));
    });
  }

  async function emailOf(account: string): Promise<string | null> {
    assertAccount(account);
    const [row] = await db.select({ email: accountEmails.email }).from(accountEmails).where(eq(accountEmails.account, account));
    return row?.email ?? null;
  }

  async function accountOfEmail(email: string): Promise<string | null> {
    const [row] = await db.select({ account: accountEmails.account }).from(accountEmails).where(eq(accountEmails.email, email));
    return row?.account ?? null;
  }

  async function createSignup(signup: { tokenHash: string; email: string; expiresAt: Date }): Promise<void> {
    await db.insert(signups).values(signup);
  }

  /**
   * Uses a signup token once: creates the account with its first key, or —
   * when an earlier confirmation created it but its welcome message then
   * failed (see releaseSignup) — adds a fresh key to that account. A token
   * that is unknown, used or expired changes nothing.
   */
  async function confirmSignup(tokenHash: string, now: Date, create: Omit<NewAccount, 'email'>): Promise<ConfirmSignupResult> {
    return db.transaction(async (tx): Promise<ConfirmSignupResult> => {
      const [claimed] = await tx
        .update(signups)
        .set({ confirmedAt: now })
        .where(and(eq(signups.tokenHash, tokenHash), isNull(signups.confirmedAt), gt(signups.expiresAt, now)))
        .returning({ email: signups.email, account: signups.account });
      if (!claimed) {
        const [row] = await tx.select({ confirmedAt: signups.confirmedAt }).from(signups).where(eq(signups.tokenHash, tokenHash));
        if (!row) return { status: 'unknown' };
        return { status: row.confirmedAt ? 'used' : 'expired' };
      }
      if (claimed.account !== null) {
        await tx.insert(apiKeys).values({ id: create.key.id, hash: create.key.hash, prefix: create.key.prefix, account: claimed.account });
        return { status: 'reissued', account: claimed.account, email: claimed.email };
      }
      const result = await insertAccount(tx, { ...create, email: claimed.email });
      if (!result.created) return { status: 'exists', account: result.existingAccount, email: claimed.email };
      await tx.update(signups).set({ account: create.account }).where(eq(signups.tokenHash, tokenHash));
      return { status: 'created', account: create.account, email: claimed.email };
    });
  }

  /** Makes a confirmed signup token usable again (its welcome message could not be sent). */
  async function releaseSignup(tokenHash: string): Promise<void> {
    await db.update(signups).set({ confirmedAt: null }).where(eq(signups.tokenHash, tokenHash));
  }

  return guarded({
    createAccount,
    findKey,
    findToken,
    insertToken,
    rotateKey,
    retireKey,
    emailOf,
    accountOfEmail,
    createSignup,
    confirmSignup,
    releaseSignup,
  });
}
