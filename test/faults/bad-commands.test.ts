// Bad input and faults at the command level: a command for an unknown or
// finished instance, a completion of a job that was already completed or
// cancelled, duplicates with the same command key (also concurrent ones).
// Each gets a definite answer — NOT_FOUND, INVALID_STATE (a conflict), or
// the original result — and never a second effect: the stored history does
// not change. (test/engine/durable-engine.test.ts covers the sequential
// duplicate start and completion and a second completion with a new key.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EngineError, type Engine } from '../../engine/partition/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { faultSuite, ONE_TASK, storedTruth, waitFor, type StoredTruth } from './fault-support.ts';

/** A key in the layout of keys.ts: partition in bits 55..62, epoch in 35..54, sequence below. */
function keyOn(partition: number, epoch: number, sequence: number): string {
  return ((BigInt(partition) << 55n) | (BigInt(epoch) << 35n) | BigInt(sequence)).toString();
}

faultSuite('fault: bad commands get a definite answer and no second effect', () => {
  let fixture: EngineFixture;
  let engine: Engine;

  beforeAll(async () => {
    fixture = await engineFixture();
    engine = await fixture.start();
  }, 60_000);

  afterAll(() => fixture?.cleanup(), 60_000);

  async function setup(account: string) {
    await engine.deploy(account, ONE_TASK, 'one.bpmn');
    const truth = () => storedTruth(fixture.config.schema!, account);
    const activate = () => waitFor(async () => (await engine.activateJobs(account, 'work', 1, 'w'))[0], 'a job');
    return { truth, activate };
  }

  /** The answer of a command that must be rejected: its EngineError code. */
  async function rejection(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).retryable).toBe(false);
    return (error as EngineError).code;
  }

  function unchanged(before: StoredTruth, after: StoredTruth): void {
    expect(after.instances).toEqual(before.instances);
    expect(after.records).toEqual(before.records);
    expect(after.jobs).toEqual(before.jobs);
  }

  it('a command for an unknown instance is NOT_FOUND, whatever the key looks like', async () => {
    const account = 'acct-unknown';
    const { truth } = await setup(account);
    const before = await truth();
    for (const key of [keyOn(0, 1, 999_999), keyOn(3, 77, 1), keyOn(200, 1, 1), '0', '-5', 'abc', '9'.repeat(40), '']) {
      expect(await rejection(engine.cancelInstance(account, key))).toBe('NOT_FOUND');
      expect(await rejection(engine.completeJob(account, key))).toBe('NOT_FOUND');
      expect(await rejection(engine.failJob(account, key, 1, 'x'))).toBe('NOT_FOUND');
    }
    expect(await rejection(engine.startInstance(account, 'no-such-process'))).toBe('NOT_FOUND');
    unchanged(before, await truth());
  });

  it('a command for a finished instance is a conflict, and changes nothing', async () => {
    const account = 'acct-finished';
    const { truth, activate } = await setup(account);
    const started = await engine.startInstance(account, 'one');
    const job = await activate();
    await engine.completeJob(account, job.key);
    const before = await truth();
    expect(before.instances.get(started.processInstanceKey)).toBe('COMPLETED');

    expect(await rejection(engine.cancelInstance(account, started.processInstanceKey))).toBe('INVALID_STATE');
    expect(await rejection(engine.completeJob(account, job.key, { again: true }))).toBe('NOT_FOUND');
    expect(await rejection(engine.failJob(account, job.key, 3, 'late'))).toBe('NOT_FOUND');
    // Another account cannot even see it.
    expect(await rejection(engine.cancelInstance('acct-stranger', started.processInstanceKey))).toBe('NOT_FOUND');
    unchanged(before, await truth());
  });

  it('a cancelled instance: cancelling again is a conflict; its job can be neither completed nor failed', async () => {
    const account = 'acct-cancelled';
    const { truth, activate } = await setup(account);
    const started = await engine.startInstance(account, 'one');
    const job = await activate();
    await engine.cancelInstance(account, started.processInstanceKey);
    const before = await truth();
    expect(before.instances.get(started.processInstanceKey)).toBe('TERMINATED');
    expect(before.jobs.has(job.key)).toBe(false);

    expect(await rejection(engine.cancelInstance(account, started.processInstanceKey))).toBe('INVALID_STATE');
    expect(await rejection(engine.completeJob(account, job.key, { late: true }))).toBe('NOT_FOUND');
    expect(await rejection(engine.failJob(account, job.key, 0, 'late'))).toBe('NOT_FOUND');
    // The cancelled job is not offered again either.
    expect(await engine.activateJobs(account, 'work', 10, 'w2')).toEqual([]);
    unchanged(before, await truth());
  });

  it('a job that failed into an incident cannot be completed or failed again', async () => {
    const account = 'acct-incident';
    const { truth, activate } = await setup(account);
    const started = await engine.startInstance(account, 'one');
    const job = await activate();
    await engine.failJob(account, job.key, 0, 'broken');
    const before = await truth();
    expect(before.instances.get(started.processInstanceKey)).toBe('INCIDENT');

    expect(await rejection(engine.completeJob(account, job.key))).toBe('INVALID_STATE');
    expect(await rejection(engine.failJob(account, job.key, 0, 'again'))).toBe('INVALID_STATE');
    unchanged(before, await truth());
  });

  it('concurrent duplicates with one command key are applied once and all get the original result', async () => {
    const account = 'acct-dup-concurrent';
    const { truth, activate } = await setup(account);
    const starts = await Promise.all(Array.from({ length: 6 }, () => engine.startInstance(account, 'one', { n: 1 }, { commandKey: 'same-start' })));
    for (const s of starts) expect(s).toEqual(starts[0]);
    const job = await activate();
    expect(job.processInstanceKey).toBe(starts[0].processInstanceKey);
    await Promise.all(Array.from({ length: 6 }, (_, i) => engine.completeJob(account, job.key, { by: i }, { commandKey: 'same-done' })));
    // Later duplicates, after the instance ended, still get the original results.
    expect(await engine.startInstance(account, 'one', { n: 2 }, { commandKey: 'same-start' })).toEqual(starts[0]);
    await engine.completeJob(account, job.key, { by: 'late' }, { commandKey: 'same-done' });

    const after = await truth();
    expect([...after.instances]).toEqual([[starts[0].processInstanceKey, 'COMPLETED']]);
    const counts = after.records.get(starts[0].processInstanceKey)!;
    expect(counts.get('PROCESS_INSTANCE_STARTED')).toBe(1);
    expect(counts.get('JOB_COMPLETED')).toBe(1);
    expect(counts.get('PROCESS_INSTANCE_COMPLETED')).toBe(1);
    const row = await engine.store.instances.getInstance(account, starts[0].processInstanceKey);
    // Exactly one of the concurrent completions' variables was applied.
    expect(Object.keys(row!.document.variables[starts[0].processInstanceKey]).sort()).toEqual(['by', 'n']);
    expect(row!.document.variables[starts[0].processInstanceKey].n).toBe(1);
  });

  it('command keys are scoped by account: the same key in two accounts is two commands', async () => {
    await setup('acct-key-a');
    await setup('acct-key-b');
    const a = await engine.startInstance('acct-key-a', 'one', {}, { commandKey: 'k' });
    const b = await engine.startInstance('acct-key-b', 'one', {}, { commandKey: 'k' });
    expect(b.processInstanceKey).not.toBe(a.processInstanceKey);
    expect((await storedTruth(fixture.config.schema!, 'acct-key-a')).instances.size).toBe(1);
    expect((await storedTruth(fixture.config.schema!, 'acct-key-b')).instances.size).toBe(1);
  });
});
