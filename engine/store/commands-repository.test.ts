import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { commandsRepository } from './commands-repository.ts';
import { commitBatch } from './commit-batch.ts';
import type { Database } from './database.ts';
import { leasesRepository } from './leases-repository.ts';
import { rows } from './db.ts';

const testDb = createTestDatabase();
let database: Database;
let repo: ReturnType<typeof commandsRepository>;
let epochs: Map<number, number>;

beforeAll(async () => {
  database = await testDb.open();
  repo = commandsRepository(database.db);
  epochs = new Map();
  for (const partition of [1, 2]) epochs.set(partition, (await leasesRepository(database.db).acquireLease(partition, 'shard-a', 60_000))!.epoch);
});
afterAll(() => testDb.cleanup());

function store(partition: number, results: Record<string, unknown>) {
  return commitBatch(database.db, {
    partition,
    epoch: epochs.get(partition)!,
    commands: Object.entries(results).map(([key, result]) => ({ key, result })),
  });
}

describe('findCommandResults', () => {
  it('answers stored results by key, on the given partition only; null is an answer, absence is not', async () => {
    await store(1, { a: { processInstanceKey: '1' }, b: null, 'we\'ird "key"': 'x' });
    await store(2, { a: 'partition two' });
    const found = await repo.findCommandResults(1, ['a', 'b', 'never', 'a', 'we\'ird "key"']);
    expect(Object.fromEntries(found)).toEqual({ a: { processInstanceKey: '1' }, b: null, 'we\'ird "key"': 'x' });
    expect(found.has('never')).toBe(false);
    expect((await repo.findCommandResults(2, ['a', 'b'])).get('a')).toBe('partition two');
    expect((await repo.findCommandResults(2, ['a', 'b'])).has('b')).toBe(false);
  });

  it('answers an empty list without asking the database', async () => {
    expect((await repo.findCommandResults(1, [])).size).toBe(0);
  });

  it('looks up thousands of keys in one statement', async () => {
    const results: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) results[`bulk-${i}`] = { i };
    await store(1, results);
    const keys = Array.from({ length: 5000 }, (_, i) => `bulk-${i}`);
    const client = (database.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
    const original = Object.getOwnPropertyDescriptor(client, 'query');
    const query = client.query;
    let calls = 0;
    client.query = (...args: unknown[]) => {
      calls++;
      return query.apply(client, args);
    };
    let found: Map<string, unknown>;
    try {
      found = await repo.findCommandResults(1, keys);
    } finally {
      if (original) Object.defineProperty(client, 'query', original);
      else delete (client as { query?: unknown }).query;
    }
    expect(calls).toBe(1);
    expect(found.size).toBe(3000);
    expect(found.get('bulk-2999')).toEqual({ i: 2999 });
  });

  it('pruneCommands forgets results older than the horizon', async () => {
    await store(2, { old: 1 });
    expect(await repo.pruneCommands(2, new Date(Date.now() - 60_000))).toBe(0);
    expect(await repo.pruneCommands(2, new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(2);
    expect((await repo.findCommandResults(2, ['old', 'a'])).size).toBe(0);
  });

  describe('job commands (the narrow log)', () => {
    // Job keys carry their partition in bits 55..62 (engine/partition/keys.ts).
    const jobKey = (partition: number, n: number) => ((BigInt(partition) << 55n) + BigInt(n)).toString();
    const done = { ok: true, value: { done: true } };
    const origin = { fingerprint: 'f'.repeat(43), request: 'req-1' };

    function storeJobs(partition: number, commands: { key: string; jobKey: string; result: unknown }[]) {
      return commitBatch(database.db, { partition, epoch: epochs.get(partition)!, commands });
    }

    it('answers each reply as it was sent, found by job and key, and only for that job', async () => {
      const rejected = { ok: false, code: 'NOT_FOUND', message: 'gone', origin };
      await storeJobs(1, [
        { key: 'acct:job:k1', jobKey: jobKey(1, 1), result: { ...done, origin } },
        { key: 'acct:job:k2', jobKey: jobKey(1, 2), result: done },
        { key: 'acct:job:k3', jobKey: jobKey(1, 3), result: rejected },
      ]);
      const found = await repo.findCommandResults(
        1,
        [],
        [
          { key: 'acct:job:k1', jobKey: jobKey(1, 1) },
          { key: 'acct:job:k2', jobKey: jobKey(1, 2) },
          { key: 'acct:job:k3', jobKey: jobKey(1, 3) },
          { key: 'acct:job:k1', jobKey: jobKey(1, 2) },
          { key: 'acct:job:never', jobKey: jobKey(1, 1) },
        ],
      );
      expect(Object.fromEntries(found)).toEqual({ 'acct:job:k1': { ...done, origin }, 'acct:job:k2': done, 'acct:job:k3': rejected });
      const written = await rows<{ n: number }>(database.db, sql`select count(*)::int as n from job_command_results where result is null`);
      expect(written[0].n).toBeGreaterThanOrEqual(2);
    });

    it('finds job commands and other commands in one statement, and a job command a version before the narrow log kept in commands', async () => {
      await store(1, { 'acct:start:s1': { processInstanceKey: '9' }, 'acct:job:legacy': done });
      await storeJobs(1, [{ key: 'acct:job:k4', jobKey: jobKey(1, 4), result: done }]);
      const found = await repo.findCommandResults(
        1,
        ['acct:start:s1'],
        [
          { key: 'acct:job:k4', jobKey: jobKey(1, 4) },
          { key: 'acct:job:legacy', jobKey: jobKey(1, 5) },
        ],
      );
      expect(Object.fromEntries(found)).toEqual({ 'acct:start:s1': { processInstanceKey: '9' }, 'acct:job:k4': done, 'acct:job:legacy': done });
    });

    it('writes nothing on a stale epoch', async () => {
      await expect(
        commitBatch(database.db, { partition: 1, epoch: epochs.get(1)! - 1, commands: [{ key: 'acct:job:stale', jobKey: jobKey(1, 6), result: done }] }),
      ).rejects.toThrow();
      expect((await repo.findCommandResults(1, [], [{ key: 'acct:job:stale', jobKey: jobKey(1, 6) }])).size).toBe(0);
    });

    it('pruneCommands forgets them past the horizon, on their own partition only', async () => {
      await storeJobs(2, [{ key: 'acct:job:p2', jobKey: jobKey(2, 1), result: done }]);
      await storeJobs(1, [{ key: 'acct:job:p1', jobKey: jobKey(1, 7), result: done }]);
      await repo.pruneCommands(2, new Date(Date.now() + 60_000));
      expect((await repo.findCommandResults(2, [], [{ key: 'acct:job:p2', jobKey: jobKey(2, 1) }])).size).toBe(0);
      expect((await repo.findCommandResults(1, [], [{ key: 'acct:job:p1', jobKey: jobKey(1, 7) }])).size).toBe(1);
    });
  });
});
