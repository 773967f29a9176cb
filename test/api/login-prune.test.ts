// The prune of expired sign-in codes and sessions (api/identity/login-prune.ts)
// on a real database: a pass deletes every expired one in bounded
// statements and nothing live; the service starts it beside the dispatcher.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { startLoginPrune } from '../../api/identity/login-prune.ts';
import { rows } from '../../engine/store/db.ts';
import { loginRepository } from '../../engine/store/login-repository.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';

const testDb = createTestDatabase();
afterAll(() => testDb.cleanup());

const hex = () => randomBytes(8).toString('hex');

describe('the login prune', () => {
  it('deletes every expired code and session, a bounded batch per statement, and keeps the live ones', async () => {
    const { db } = await testDb.open();
    const repo = loginRepository(db);
    const now = new Date('2026-11-25T01:00:00Z');
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    for (const minutes of [-300, -60, -30, -5, -1, 0, 10, 60]) {
      await repo.createCode({ id: hex(), email: 'a@example.com', codeHash: hex(), linkHash: hex(), expiresAt: at(minutes), now: at(minutes - 15) });
    }
    for (const minutes of [-600, -2, 0, 1, 30]) {
      await repo.createSession({ hash: hex(), account: `acct-${hex()}`, now: at(minutes - 60), expiresAt: at(minutes) });
    }
    const calls: number[] = [];
    const prune = startLoginPrune({
      repo: { pruneExpired: (before, limit) => (calls.push(limit), repo.pruneExpired(before, limit)) },
      batch: 2,
      now: () => now,
    });
    try {
      expect(await prune.runOnce()).toEqual({ codes: 6, sessions: 3 });
      // 6 codes at 2 a statement: three full rounds, then one that finds none.
      expect(calls).toEqual([2, 2, 2, 2]);
      const codes = await rows<{ expires_at: Date }>(db, sql`select expires_at from login_codes order by expires_at`);
      expect(codes.map((c) => new Date(c.expires_at).toISOString())).toEqual([at(10), at(60)].map((d) => d.toISOString()));
      const sessions = await rows<{ expires_at: Date }>(db, sql`select expires_at from account_sessions order by expires_at`);
      expect(sessions.map((s) => new Date(s.expires_at).toISOString())).toEqual([at(1), at(30)].map((d) => d.toISOString()));
      expect(await prune.runOnce()).toEqual({ codes: 0, sessions: 0 });
    } finally {
      await prune.stop();
    }
  });

  it('can find the expired rows through the expiry indexes, not only by a scan of the table', async () => {
    const { db } = await testDb.open();
    for (const [table, column] of [
      ['login_codes', 'id'],
      ['account_sessions', 'hash'],
    ]) {
      // The tables here are tiny, so the planner would rightly scan them; what matters is that an index can serve.
      const plan = await db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        return rows<Record<string, string>>(tx, sql.raw(`explain select ${column} from ${table} where expires_at <= now() order by expires_at limit 1000`));
      });
      expect(plan.map((line) => Object.values(line)[0]).join('\n')).toMatch(new RegExp(`(Index|Index Only|Bitmap Index) Scan (using|on) ${table}_expires_idx`));
    }
  });
});
