// Fault: Redis loses everything (FLUSHDB) while workers activate and
// complete jobs and starters start instances. Postgres is the truth, so the
// partition leaders — which keep running, nothing restarts — must notice the
// loss and rebuild their queues from it: every instance still completes, no
// acknowledged start or completion is lost or applied twice. Commands that
// were in the flushed streams time out and are retried with the same key.
// Runs on a Redis logical database of its own so the flush never wipes the
// keys of other test runs.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { deleteByPrefix } from '../../engine/queue/testing/redis.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { faultSuite, flushWhileLoaded, Load, ONE_TASK, redisUrl, storedTruth, untilAllCompleted, untilAnswered, waitFor } from './fault-support.ts';

/** Logical database 14: FLUSHDB here never touches database 0 (or 15, which the queue tests flush). */
const FLUSH_DB = 14;

function onDatabase(url: string, db: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}

faultSuite('fault: Redis is flushed under load', () => {
  let fixture: EngineFixture;
  let engine: Engine;
  let flushUrl: string;
  let admin: Redis;

  beforeAll(async () => {
    fixture = await engineFixture();
    flushUrl = onDatabase(redisUrl!, FLUSH_DB);
    admin = new Redis(flushUrl, { connectionName: 'orca-test-flush' });
    engine = await fixture.start({ redisUrl: flushUrl, partitions: 2, replyTimeoutMs: 1_000 });
  }, 60_000);

  afterAll(async () => {
    await fixture?.cleanup();
    if (flushUrl) await deleteByPrefix(flushUrl, fixture.config.redisPrefix!);
    await admin?.quit().catch(() => admin.disconnect());
  }, 60_000);

  it('a running leader notices the flush and queues every job again from Postgres', async () => {
    const account = 'acct-flush-idle';
    await engine.deploy(account, ONE_TASK, 'one.bpmn');
    const started: string[] = [];
    for (let i = 0; i < 20; i++) started.push((await engine.startInstance(account, 'one', {}, { commandKey: `s-${i}` })).processInstanceKey);
    await waitFor(async () => ((await engine.queues.jobs.depth(account, 'work')) === 20 ? true : undefined), '20 jobs queued');

    await admin.flushdb();

    // Nothing restarts and nothing fails: only the leader's own check can bring the jobs back.
    await waitFor(async () => ((await engine.queues.jobs.depth(account, 'work')) === 20 ? true : undefined), 'the 20 jobs to be queued again', 15_000);
    const jobs = await engine.activateJobs(account, 'work', 100, 'w');
    expect(jobs.map((j) => j.processInstanceKey).sort()).toEqual([...started].sort());
    for (const job of jobs) await untilAnswered(() => engine.completeJob(account, job.key, {}, { commandKey: `done-${job.key}` }));
    const truth = await storedTruth(fixture.config.schema!, account);
    expect([...truth.instances.values()]).toEqual(Array(20).fill('COMPLETED'));
  }, 60_000);

  it('every instance completes across flushes while starters and workers run, each effect applied once', async () => {
    const account = 'acct-flush-load';
    const STARTS = 300;
    await engine.deploy(account, ONE_TASK, 'one.bpmn');
    const load = new Load(engine, account, { total: STARTS, starters: 8, workers: 4 });
    load.run();
    // Even when an assertion fails: no load loop outlives its test.
    onTestFinished(() => load.stop());
    await flushWhileLoaded(load, [60, 160], () => admin.flushdb());
    await load.startsDone();
    await untilAllCompleted(load, fixture.config.schema!, account, STARTS);

    const truth = await storedTruth(fixture.config.schema!, account);
    expect(load.started.size).toBe(STARTS);
    expect(new Set(load.started.values()).size).toBe(STARTS);
    expect(truth.instances.size).toBe(STARTS);
    for (const key of load.started.values()) expect(truth.instances.get(key)).toBe('COMPLETED');
    for (const [instanceKey, counts] of truth.records) {
      expect({
        instanceKey,
        started: counts.get('PROCESS_INSTANCE_STARTED'),
        jobDone: counts.get('JOB_COMPLETED'),
        ended: counts.get('PROCESS_INSTANCE_COMPLETED'),
      }).toEqual({
        instanceKey,
        started: 1,
        jobDone: 1,
        ended: 1,
      });
    }
    for (const [jobKey, instanceKey] of load.completed) {
      expect(truth.jobs.has(jobKey)).toBe(false);
      expect(truth.completedJobs.get(jobKey)).toBe(1);
      expect(truth.instances.get(instanceKey)).toBe('COMPLETED');
    }
    // A job delivered again after the flush (its activation lived only in Redis) was completed once, by someone.
    for (const jobKey of load.redelivered) expect(truth.completedJobs.get(jobKey)).toBe(1);
    expect(truth.jobs.size).toBe(0);
  }, 180_000);
});
