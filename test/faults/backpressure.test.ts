// Backpressure: when a partition's command stream holds more than
// `maxPendingCommands` (its leader is gone or slow), new starts are refused
// with a retryable BACKPRESSURE error and never enter the stream, while
// completions are still accepted (they drain work rather than add it). Once
// a leader drains the stream, everything accepted is applied once and the
// refused start goes through on retry.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EngineError, type Engine } from '../../engine/partition/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { faultSuite, ONE_TASK, storedTruth, untilAnswered, waitFor } from './fault-support.ts';

const ACCOUNT = 'acct-backpressure';
const MAX_PENDING = 2;

faultSuite('fault: backpressure on a deep command stream', () => {
  let fixture: EngineFixture;
  let api: Engine;

  beforeAll(async () => {
    fixture = await engineFixture();
    // One partition, so every command meets the same stream.
    api = await fixture.start({ role: 'api', partitions: 1, maxPendingCommands: MAX_PENDING, replyTimeoutMs: 300 });
  }, 60_000);

  afterAll(() => fixture?.cleanup(), 60_000);

  async function errorOf(promise: Promise<unknown>): Promise<EngineError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    return error as EngineError;
  }

  it('refuses new starts with a retryable BACKPRESSURE while completions are still accepted', async () => {
    const leader = await fixture.start({ role: 'engine', partitions: 1 });
    await api.deploy(ACCOUNT, ONE_TASK, 'one.bpmn');
    const first = await api.startInstance(ACCOUNT, 'one', {}, { commandKey: 'first' });
    const job = await waitFor(async () => (await api.activateJobs(ACCOUNT, 'work', 1, 'w'))[0], 'the first job');
    // The leader stops: nothing drains the stream any more.
    await leader.close();

    // Starts pile up unanswered (TIMEOUT: accepted, retry later) until the stream is deeper than the limit.
    const accepted: string[] = [];
    let refused: EngineError | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      const error = await errorOf(api.startInstance(ACCOUNT, 'one', { i }, { commandKey: `queued-${i}` }));
      if (error.code === 'BACKPRESSURE') refused = error;
      else {
        expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true });
        accepted.push(`queued-${i}`);
      }
    }
    expect(refused).toMatchObject({ code: 'BACKPRESSURE', retryable: true });
    expect(accepted).toHaveLength(MAX_PENDING + 1);
    const refusedKey = `queued-${accepted.length}`;
    expect(await api.queues.commands.pending(0)).toBe(MAX_PENDING + 1);

    // A completion is still accepted into the deep stream (it times out waiting for a leader, it is not refused).
    const completion = await errorOf(api.completeJob(ACCOUNT, job.key, { done: true }, { commandKey: 'done-first' }));
    expect(completion).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(await api.queues.commands.pending(0)).toBe(MAX_PENDING + 2);
    // The refused start did not enter the stream, and is refused again while the stream is deep.
    expect(await errorOf(api.startInstance(ACCOUNT, 'one', {}, { commandKey: refusedKey }))).toMatchObject({ code: 'BACKPRESSURE' });
    expect(await api.queues.commands.pending(0)).toBe(MAX_PENDING + 2);

    // A leader comes back and drains the stream; every retry (same keys) gets its one result.
    await fixture.start({ role: 'engine', partitions: 1 });
    await untilAnswered(() => api.completeJob(ACCOUNT, job.key, { done: true }, { commandKey: 'done-first' }));
    const results = new Map<string, string>();
    for (const key of [...accepted, refusedKey]) {
      results.set(key, (await untilAnswered(() => api.startInstance(ACCOUNT, 'one', {}, { commandKey: key }))).processInstanceKey);
    }

    const truth = await storedTruth(fixture.config.schema!, ACCOUNT);
    expect(truth.instances.get(first.processInstanceKey)).toBe('COMPLETED');
    expect(new Set(truth.instances.keys())).toEqual(new Set([first.processInstanceKey, ...results.values()]));
    expect(truth.instances.size).toBe(1 + accepted.length + 1);
    expect(truth.completedJobs.get(job.key)).toBe(1);
    for (const counts of truth.records.values()) expect(counts.get('PROCESS_INSTANCE_STARTED')).toBe(1);
  }, 60_000);
});
