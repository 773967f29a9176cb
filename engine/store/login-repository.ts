// People's sign-in: the one-time codes mailed by POST /api/login, the
// sessions a code (or its link) opens, and the account's API keys as a
// signed-in person sees them. As with every credential, codes, link tokens
// and session tokens are stored only as sha256 hashes and found by them.
// Using a code is one conditional UPDATE, so two requests racing with the
// same code cannot both open a session.
import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { accountEmails, accountSessions, apiKeys, loginCodes } from './schema.ts';
import { runStatement, type Statement } from './statement.ts';
import { assertAccount } from './tenancy.ts';

export type UseCodeResult = { status: 'ok'; email: string } | { status: 'wrong'; attemptsLeft: number } | { status: 'none' };

export interface ApiKeyListing {
  id: string;
  /** The key's first characters; null for keys made before prefixes were kept. */
  prefix: string | null;
  createdAt: Date;
}

// Every request on the dashboard and wallet routes runs this: a probe of the
// primary key (the hash).
const FIND_SESSION: Statement = {
  name: 'orca-find-account-session',
  text: `select s.account, s.hash, s.expires_at as "expiresAt" from account_sessions s
         where s.hash = $1 and s.expires_at > $2::timestamptz and s.ended_at is null`,
};

// The prune's deletes: the oldest expired rows first, through the expiry
// indexes (migration 0014), at most $2 per statement; rows another process
// is deleting are skipped, not waited for.
const PRUNE_CODES: Statement = {
  text: `with gone as (delete from login_codes where id in (
  select id from login_codes where expires_at <= $1::timestamptz order by expires_at limit $2 for update skip locked) returning 1)
select count(*)::int as n from gone`,
};
const PRUNE_SESSIONS: Statement = {
  text: `with gone as (delete from account_sessions where hash in (
  select hash from account_sessions where expires_at <= $1::timestamptz order by expires_at limit $2 for update skip locked) returning 1)
select count(*)::int as n from gone`,
};

export function loginRepository(db: Db) {
  async function createCode(code: { id: string; email: string; codeHash: string; linkHash: string; expiresAt: Date; now: Date }): Promise<void> {
    await db.insert(loginCodes).values({ ...code, createdAt: code.now });
  }

  /**
   * Tries `codeHash` against the address's newest live code (unused, not
   * expired at `now`): a match uses it up; a miss counts an attempt and,
   * at `maxAttempts`, spends the code. 'none': no live code to try.
   */
  async function useCode(email: string, codeHash: string, now: Date, maxAttempts: number): Promise<UseCodeResult> {
    return db.transaction(async (tx): Promise<UseCodeResult> => {
      const [live] = await tx
        .select({ id: loginCodes.id, codeHash: loginCodes.codeHash, attempts: loginCodes.attempts })
        .from(loginCodes)
        .where(and(eq(loginCodes.email, email), isNull(loginCodes.consumedAt), gt(loginCodes.expiresAt, now)))
        .orderBy(desc(loginCodes.createdAt))
        .limit(1)
        .for('update');
      if (!live) return { status: 'none' };
      if (live.codeHash === codeHash) {
        await tx.update(loginCodes).set({ consumedAt: now }).where(eq(loginCodes.id, live.id));
        return { status: 'ok', email };
      }
      const attempts = live.attempts + 1;
      await tx
        .update(loginCodes)
        .set({ attempts, consumedAt: attempts >= maxAttempts ? now : null })
        .where(eq(loginCodes.id, live.id));
      return { status: 'wrong', attemptsLeft: Math.max(0, maxAttempts - attempts) };
    });
  }

  /** Uses the code whose link token has hash `linkHash`, once; null when unknown, used, spent or expired. */
  async function useLink(linkHash: string, now: Date): Promise<{ email: string } | null> {
    const [row] = await db
      .update(loginCodes)
      .set({ consumedAt: now })
      .where(and(eq(loginCodes.linkHash, linkHash), isNull(loginCodes.consumedAt), gt(loginCodes.expiresAt, now)))
      .returning({ email: loginCodes.email });
    return row ?? null;
  }

  /** Whether the link token is live (the GET page says so without using it). */
  async function linkIsLive(linkHash: string, now: Date): Promise<boolean> {
    const [row] = await db
      .select({ id: loginCodes.id })
      .from(loginCodes)
      .where(and(eq(loginCodes.linkHash, linkHash), isNull(loginCodes.consumedAt), gt(loginCodes.expiresAt, now)));
    return row !== undefined;
  }

  async function createSession(session: { hash: string; account: string; now: Date; expiresAt: Date }): Promise<void> {
    assertAccount(session.account);
    await db.insert(accountSessions).values({ hash: session.hash, account: session.account, createdAt: session.now, expiresAt: session.expiresAt });
  }

  async function findSession(hash: string, now: Date): Promise<{ account: string; hash: string; expiresAt: Date } | null> {
    const [row] = await runStatement<{ account: string; hash: string; expiresAt: Date | string }>(db, FIND_SESSION, [hash, now.toISOString()]);
    return row ? { ...row, expiresAt: new Date(row.expiresAt) } : null;
  }

  /** Ends a live session; whether there was one. */
  async function endSession(hash: string, now: Date): Promise<boolean> {
    const ended = await db
      .update(accountSessions)
      .set({ endedAt: now })
      .where(and(eq(accountSessions.hash, hash), isNull(accountSessions.endedAt)))
      .returning({ hash: accountSessions.hash });
    return ended.length > 0;
  }

  async function accountOfEmail(email: string): Promise<string | null> {
    const [row] = await db.select({ account: accountEmails.account }).from(accountEmails).where(eq(accountEmails.email, email));
    return row?.account ?? null;
  }

  /** The account's active keys, newest first (an account holds a handful: api_keys_account_idx). */
  async function listKeys(account: string): Promise<ApiKeyListing[]> {
    assertAccount(account);
    return db
      .select({ id: apiKeys.id, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.account, account), isNull(apiKeys.retiredAt)))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(100);
  }

  /** Deletes up to `limit` codes and up to `limit` sessions that expired at or before `before`; how many of each. */
  async function pruneExpired(before: Date, limit: number): Promise<{ codes: number; sessions: number }> {
    const at = before.toISOString();
    const [codes] = await runStatement<{ n: number }>(db, PRUNE_CODES, [at, limit]);
    const [sessions] = await runStatement<{ n: number }>(db, PRUNE_SESSIONS, [at, limit]);
    return { codes: Number(codes.n), sessions: Number(sessions.n) };
  }

  return guarded({ createCode, useCode, useLink, linkIsLive, createSession, findSession, endSession, accountOfEmail, listKeys, pruneExpired });
}
