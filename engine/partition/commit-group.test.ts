// CommitGroup against the real store: batches that wait while a commit is in
// flight go out together in one statement; each keeps its own fence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../store/testing/database.ts';
import { BatchRejectedError, createStore, StaleEpochError, type Batch, type Store } from '../store/index.ts';
import { instanceDoc, keyOf } from '../store/test-fixtures.ts';
import { CommitGroup } from './commit-group.ts';

const testDb = createTestDatabase();
let store: Store;

beforeAll(async () => {
  store = createStore((await testDb.open()).db);
});
afterAll(() => testDb.cleanup());

function batch(partition: number, epoch: number, n: number): Batch {
  return { partition, epoch, instances: [{ account: 'acme', document: instanceDoc(keyOf(partition, n)) }] };
}

describe('CommitGroup', () => {
  it('sends a lone batch at once and groups the ones that arrive meanwhile', async () => {
    const epochs = await Promise.all([1, 2, 3].map(async (p) => (await store.leases.acquireLease(p, 'shard', 10_000))!.epoch));
    const statements: number[][] = [];
    const group = new CommitGroup((batches) => {
      statements.push(batches.map((b) => b.partition));
      return store.commitBatches(batches);
    });
    const first = group.commit(batch(1, epochs[0], 1));
    const rest = [group.commit(batch(2, epochs[1], 1)), group.commit(batch(3, epochs[2], 1))];
    await Promise.all([first, ...rest]);
    expect(statements).toEqual([[1], [2, 3]]);
    for (const p of [1, 2, 3]) expect(await store.instances.getInstance('acme', keyOf(p, 1))).not.toBeNull();
  });

  it('rejects only the batch whose lease moved on, with StaleEpochError', async () => {
    const held = (await store.leases.acquireLease(4, 'shard', 10_000))!.epoch;
    const lost = (await store.leases.acquireLease(5, 'shard', 1))!.epoch;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = (await store.leases.acquireLease(5, 'other', 10_000))!.epoch;
    // A first statement held in flight, so the two batches after it surely share the next one.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const statements: number[][] = [];
    const group = new CommitGroup(async (batches) => {
      statements.push(batches.map((b) => b.partition));
      if (statements.length === 1) await gate;
      return store.commitBatches(batches);
    });
    const held7 = (await store.leases.acquireLease(7, 'shard', 10_000))!.epoch;
    const first = group.commit(batch(7, held7, 1));
    const results = [group.commit(batch(4, held, 1)), group.commit(batch(5, lost, 1))].map((p) =>
      p.then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    release();
    await first;
    const [ok, stale] = await Promise.all(results);
    expect(statements).toEqual([[7], [4, 5]]);
    expect(ok).toBe('ok');
    expect(stale).toBeInstanceOf(StaleEpochError);
    expect(stale).toMatchObject({ partition: 5, epoch: lost, currentEpoch: now });
    expect(await store.instances.getInstance('acme', keyOf(4, 1))).not.toBeNull();
    expect(await store.instances.getInstance('acme', keyOf(5, 1))).toBeNull();
  });

  it('fails every batch of a statement that fails', async () => {
    const epoch = (await store.leases.acquireLease(6, 'shard', 10_000))!.epoch;
    const group = new CommitGroup((batches) => store.commitBatches(batches));
    const bad: Batch = {
      ...batch(6, epoch, 1),
      jobsUpsert: [
        {
          key: keyOf(6, 2),
          account: 'acme',
          instanceKey: keyOf(6, 1),
          bpmnProcessId: 'p',
          processVersion: 1,
          elementId: 'e',
          elementInstanceKey: keyOf(6, 3),
          type: 't',
          retries: 1,
          state: 'BOGUS' as 'FAILED',
        },
      ],
    };
    await expect(group.commit(bad)).rejects.toThrow();
    expect(await store.instances.getInstance('acme', keyOf(6, 1))).toBeNull();
    // The group is not stuck afterwards (once the partition's leader has recovered).
    group.resume(6);
    await group.commit(batch(6, epoch, 5));
    expect(await store.instances.getInstance('acme', keyOf(6, 5))).not.toBeNull();
  });

  it('a statement refused for what one batch carries is sent again batch by batch: only that batch fails', async () => {
    const parts = [9, 10, 11];
    const epochs = await Promise.all(parts.map(async (p) => (await store.leases.acquireLease(p, 'shard', 10_000))!.epoch));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const statements: number[][] = [];
    const group = new CommitGroup(async (batches) => {
      statements.push(batches.map((b) => b.partition));
      if (statements.length === 1) await gate;
      return store.commitBatches(batches);
    });
    const held = (await store.leases.acquireLease(12, 'shard', 10_000))!.epoch;
    const first = group.commit(batch(12, held, 1));
    const poisoned = batch(10, epochs[1], 1);
    poisoned.instances![0].document.variables[keyOf(10, 1)] = { note: 'x\u0000y' };
    const results = [batch(9, epochs[0], 1), poisoned, batch(11, epochs[2], 1)].map((b) =>
      group.commit(b).then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    release();
    await first;
    const [ok9, bad, ok11] = await Promise.all(results);
    expect(statements).toEqual([[12], [9, 10, 11], [9], [10], [11]]);
    expect([ok9, ok11]).toEqual(['ok', 'ok']);
    expect(bad).toBeInstanceOf(BatchRejectedError);
    expect((bad as BatchRejectedError).sqlState?.slice(0, 2)).toBe('22');
    expect(await store.instances.getInstance('acme', keyOf(9, 1))).not.toBeNull();
    expect(await store.instances.getInstance('acme', keyOf(10, 1))).toBeNull();
    expect(await store.instances.getInstance('acme', keyOf(11, 1))).not.toBeNull();
  });

  it("keeps a partition's batches in order: the next waits for the statement holding the one before", async () => {
    const epoch = (await store.leases.acquireLease(8, 'shard', 10_000))!.epoch;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const statements: string[][] = [];
    // Two statements may be in flight, yet partition 8's second batch must not overtake its first.
    const group = new CommitGroup(async (batches) => {
      statements.push(batches.map((b) => ('instances' in b ? b.instances![0].document.key : 'sealed')));
      if (statements.length === 1) await gate;
      return store.commitBatches(batches);
    }, 2);
    const first = group.commit(batch(8, epoch, 1));
    const second = group.commit(batch(8, epoch, 2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statements).toEqual([[keyOf(8, 1)]]);
    release();
    await Promise.all([first, second]);
    expect(statements).toEqual([[keyOf(8, 1)], [keyOf(8, 2)]]);
  });

  it("fails a partition's waiting batches with the one before them, without sending them", async () => {
    const epoch = (await store.leases.acquireLease(9, 'shard', 10_000))!.epoch;
    const other = (await store.leases.acquireLease(10, 'shard', 10_000))!.epoch;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sent: number[] = [];
    const group = new CommitGroup(async (batches) => {
      sent.push(...batches.map((b) => b.partition));
      if (sent.length === 1) {
        await gate;
        throw new Error('connection lost');
      }
      return store.commitBatches(batches);
    });
    const first = group.commit(batch(9, epoch, 1)).then(
      () => 'ok',
      (e: unknown) => e,
    );
    // Built on the first while it was in flight: it must not commit once the first failed.
    const behind = group.commit(batch(9, epoch, 2)).then(
      () => 'ok',
      (e: unknown) => e,
    );
    const unrelated = group.commit(batch(10, other, 1));
    release();
    expect(await first).toMatchObject({ message: 'connection lost' });
    expect(await behind).toMatchObject({ message: 'connection lost' });
    await unrelated;
    expect(sent).toEqual([9, 10]);
    expect(await store.instances.getInstance('acme', keyOf(9, 2))).toBeNull();
    expect(await store.instances.getInstance('acme', keyOf(10, 1))).not.toBeNull();
  });

  it("fails a partition's batches handed in after one of its batches failed, until its leader resumes it", async () => {
    const epoch = (await store.leases.acquireLease(11, 'shard', 10_000))!.epoch;
    let failNext = true;
    const group = new CommitGroup(async (batches) => {
      if (failNext) {
        failNext = false;
        throw new Error('connection lost');
      }
      return store.commitBatches(batches);
    });
    await expect(group.commit(batch(11, epoch, 1))).rejects.toThrow('connection lost');
    // Still being built when the first failed, so built on it: refused without being sent.
    await expect(group.commit(batch(11, epoch, 2))).rejects.toThrow('connection lost');
    expect(await store.instances.getInstance('acme', keyOf(11, 2))).toBeNull();
    // After recovery the leader builds on what Postgres holds again.
    group.resume(11);
    await group.commit(batch(11, epoch, 3));
    expect(await store.instances.getInstance('acme', keyOf(11, 3))).not.toBeNull();
  });
});
