// Fault: a shard's lease is taken over behind its back (its renewals
// stalled, say, and another shard acquired the expired lease) while it still
// believes it leads. Its next batch must fail the epoch fence with
// StaleEpochError, write nothing, and the shard must stop leading the
// partition. The command it could not commit stays in the stream, so the
// partition's next leader applies it once and a retry with the same key gets
// that result.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import type { BatchOutcome, CommitInput } from '../../engine/store/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { faultSuite, isRetryable, ONE_TASK, query, storedResults, storedTruth, untilAnswered, waitFor } from './fault-support.ts';

const ACCOUNT = 'acct-lease';
/** Long enough that the shard's own renewal tick (every third of it) does not run during the test. */
const LEASE_MS = 120_000;

faultSuite('fault: a shard whose lease was taken over cannot commit', () => {
  let fixture: EngineFixture;
  let engine: Engine;
  const commits: { batch: CommitInput; outcome?: BatchOutcome; error?: unknown }[] = [];

  beforeAll(async () => {
    fixture = await engineFixture();
    // The commits stay on the main thread, where the shard's commit group uses the store object watched below
    // (the commit thread's own handling of a stale epoch: commit-thread.test.ts).
    engine = await fixture.start({ partitions: 1, leaseMs: LEASE_MS, replyTimeoutMs: 1_500 }, { commitThread: false });
    // Watch the leaders' commits.
    const commitBatches = engine.store.commitBatches;
    engine.store.commitBatches = async (batches) => {
      const entries: (typeof commits)[number][] = batches.map((batch) => ({ batch }));
      commits.push(...entries);
      try {
        const outcomes = await commitBatches(batches);
        outcomes.forEach((outcome, i) => (entries[i].outcome = outcome));
        return outcomes;
      } catch (error) {
        for (const entry of entries) entry.error = error;
        throw error;
      }
    };
    await engine.deploy(ACCOUNT, ONE_TASK, 'one.bpmn');
  }, 60_000);

  afterAll(() => fixture?.cleanup(), 60_000);

  it("the old leader's next commit fails with StaleEpochError, writes nothing, and it stops leading", async () => {
    const before = await engine.startInstance(ACCOUNT, 'one', {}, { commandKey: 'before' });
    expect(engine.ownedPartitions()).toEqual([0]);
    const lease = (await engine.store.leases.listLeases()).find((l) => l.partition === 0)!;
    const oldEpoch = lease.epoch;

    // Another shard takes the partition over: the lease expires (as when renewals stall), then it acquires it.
    await query(fixture.config.schema!, `update partitions set lease_expires_at = now() - interval '1 second' where id = 0`);
    const taken = await engine.store.leases.acquireLease(0, 'intruder', LEASE_MS);
    expect(taken?.epoch).toBe(oldEpoch + 1);
    const historyBefore = await storedTruth(fixture.config.schema!, ACCOUNT);

    // The old leader still reads the stream, applies the start, and tries to commit it.
    const error = await engine.startInstance(ACCOUNT, 'one', { late: true }, { commandKey: 'after-takeover' }).catch((e: unknown) => e);
    expect(isRetryable(error)).toBe(true);
    const stale = commits.find((c) => keysOf(c.batch).commands.includes(`${ACCOUNT}:after-takeover`));
    // Fenced out: refused with the partition's current epoch (the leader turns that into StaleEpochError).
    expect(stale?.batch.epoch).toBe(oldEpoch);
    expect(stale?.outcome).toEqual({ ok: false, epoch: oldEpoch + 1 });
    // Nothing of that batch was written: not its instance, its history, its job, or its command result.
    const written = keysOf(stale!.batch).instances;
    expect(written.length).toBeGreaterThan(0);
    const after = await storedTruth(fixture.config.schema!, ACCOUNT);
    for (const key of written) expect(after.instances.has(key)).toBe(false);
    expect([...after.instances.keys()]).toEqual([before.processInstanceKey]);
    expect(after.records).toEqual(historyBefore.records);
    expect(after.jobs).toEqual(historyBefore.jobs);
    expect((await storedResults(fixture.config.schema!, [`${ACCOUNT}:after-takeover`])).size).toBe(0);
    // And the shard no longer leads the partition (bounded wait).
    await waitFor(() => (engine.ownedPartitions().length === 0 ? true : undefined), 'the old shard to stop leading');
    const now = (await engine.store.leases.listLeases()).find((l) => l.partition === 0)!;
    expect(now).toMatchObject({ leader: 'intruder', epoch: oldEpoch + 1 });

    // The intruder goes away; a new shard leads, replays the uncommitted start once, and the retry gets its result.
    expect(await engine.store.leases.releaseLease(0, 'intruder', oldEpoch + 1)).toBe(true);
    const next = await fixture.start({ role: 'engine', partitions: 1, leaseMs: LEASE_MS });
    expect(next.ownedPartitions()).toEqual([0]);
    const late = await untilAnswered(() => engine.startInstance(ACCOUNT, 'one', { late: true }, { commandKey: 'after-takeover' }));
    const again = await engine.startInstance(ACCOUNT, 'one', { late: true }, { commandKey: 'after-takeover' });
    expect(again).toEqual(late);
    const final = await storedTruth(fixture.config.schema!, ACCOUNT);
    expect(new Set(final.instances.keys())).toEqual(new Set([before.processInstanceKey, late.processInstanceKey]));
    expect(final.records.get(late.processInstanceKey)?.get('PROCESS_INSTANCE_STARTED')).toBe(1);
    // The old shard wrote nothing after the takeover: every later commit came from the new epoch.
    const afterTakeover = commits.slice(commits.indexOf(stale!) + 1);
    expect(afterTakeover.every((c) => c.batch.epoch !== oldEpoch)).toBe(true);
  }, 60_000);
});

/** The keys of what a commit writes, read from the sealed rows (`k` in the instance and command rows) when the leader sealed it (it does). */
function keysOf(batch: CommitInput): { instances: string[]; commands: string[] } {
  if (!('parts' in batch)) return { instances: (batch.instances ?? []).map((i) => i.document.key), commands: (batch.commands ?? []).map((c) => c.key) };
  const rowKeys = (field: string) => (JSON.parse(`[${batch.parts.get(field) ?? ''}]`) as { k: string }[]).map((row) => row.k);
  return { instances: rowKeys('i'), commands: rowKeys('c') };
}
