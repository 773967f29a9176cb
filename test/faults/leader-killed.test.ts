// Fault: the process leading the partitions is SIGKILLed while starts and
// job completions flow. Engine shards run as child processes (`orca start
// --role engine`) on the test's own schema and Redis prefix; the test
// process is an API-only engine driving the load. First the leader dies with
// a hot standby running, which must take every partition over (bounded
// wait); then the standby dies with no shard left, commands time out, and a
// shard started afterwards takes over. No acknowledged start or completion
// may be lost or applied twice, and commands that timed out, retried with
// the same key, must yield their original result.
import { afterAll, beforeAll, expect, it, onTestFailed, onTestFinished } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import {
  faultSuite,
  leadsAll,
  Load,
  ONE_TASK,
  spawnShard,
  type ShardProcess,
  storedResults,
  storedTruth,
  untilAllCompleted,
  waitFor,
} from './fault-support.ts';

const ACCOUNT = 'acct-kill';
const PARTITIONS = 2;
const LEASE_MS = 1_000;
const STARTS = 300;

faultSuite('fault: the partition leader is killed mid-batch', () => {
  let fixture: EngineFixture;
  let api: Engine;
  const shards: ShardProcess[] = [];

  beforeAll(async () => {
    fixture = await engineFixture();
    api = await fixture.start({ role: 'api', partitions: PARTITIONS, replyTimeoutMs: 1_000 });
    await api.deploy(ACCOUNT, ONE_TASK, 'one.bpmn');
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(shards.map((s) => s.stop()));
    await fixture?.cleanup();
  }, 60_000);

  function flowing(load: Load, started: number) {
    return () => {
      if (load.failure() !== undefined) throw load.failure();
      return load.started.size >= started && load.inFlight >= 4 ? true : undefined;
    };
  }

  it('another shard leads within the lease time and nothing acknowledged is lost or applied twice', async () => {
    onTestFailed(() => {
      for (const shard of shards) process.stderr.write(`--- shard ${shard.pid} output ---\n${shard.output}\n`);
    });
    const first = spawnShard(fixture.config, LEASE_MS, PARTITIONS, shards);
    await first.ready();
    await waitFor(leadsAll(api, first, PARTITIONS), 'the first shard to lead every partition', 30_000);
    // A second shard is up (its fair share handed over to it) before the leader dies.
    const standby = spawnShard(fixture.config, LEASE_MS, PARTITIONS, shards);
    await standby.ready();

    const load = new Load(api, ACCOUNT, { total: STARTS, starters: 8, workers: 4 });
    load.run();
    // Even when an assertion fails: no load loop outlives its test.
    onTestFinished(() => load.stop());

    // 1. Kill the leader while commands are in flight, after some starts and completions were acknowledged.
    await waitFor(() => (load.completed.size >= 10 ? flowing(load, 40)() : undefined), 'load to be flowing', 30_000, 5);
    first.child.kill('SIGKILL');
    await first.exited;
    const atFirstKill = load.started.size;
    // Bounded wait, not a timing assertion: the standby takes every partition once the dead lease expires.
    await waitFor(leadsAll(api, standby, PARTITIONS), `the standby to lead every partition (lease ${LEASE_MS} ms)`, 15_000);

    // 2. Kill the new leader too, with no shard left: commands now go unanswered
    //    (TIMEOUT, retryable) until a shard started afterwards takes over.
    await waitFor(flowing(load, atFirstKill + 40), 'load to flow through the standby', 30_000, 5);
    standby.child.kill('SIGKILL');
    await standby.exited;
    const retriesBefore = load.retries;
    await waitFor(() => (load.retries > retriesBefore ? true : undefined), 'a command to time out with no leader', 15_000);
    const late = spawnShard(fixture.config, LEASE_MS, PARTITIONS, shards);
    await late.ready();
    await waitFor(leadsAll(api, late, PARTITIONS), `the late shard to lead every partition (lease ${LEASE_MS} ms)`, 15_000);

    await load.startsDone();
    expect(load.started.size).toBe(STARTS);
    // Every instance gets its job completed, across both takeovers.
    await untilAllCompleted(load, fixture.config.schema!, ACCOUNT, STARTS);

    const truth = await storedTruth(fixture.config.schema!, ACCOUNT);
    // Every start that got an answer exists exactly once, and nothing else was started.
    const acknowledged = [...load.started.values()];
    expect(new Set(acknowledged).size).toBe(STARTS);
    expect(truth.instances.size).toBe(STARTS);
    for (const key of acknowledged) expect(truth.instances.get(key)).toBe('COMPLETED');
    // Each start's answer, retried or not, is its original result: the one in the durable command log.
    expect(load.retried.size).toBeGreaterThan(0);
    const results = await storedResults(
      fixture.config.schema!,
      [...load.started.keys()].map((k) => `${ACCOUNT}:${k}`),
    );
    for (const [commandKey, instanceKey] of load.started) {
      expect(results.get(`${ACCOUNT}:${commandKey}`)).toMatchObject({ ok: true, value: { processInstanceKey: instanceKey } });
    }
    // Every instance started once, completed its one job once, and completed once.
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
    // Every acknowledged completion: the job is gone, was completed exactly once, and its instance completed.
    for (const [jobKey, instanceKey] of load.completed) {
      expect(truth.jobs.has(jobKey)).toBe(false);
      expect(truth.completedJobs.get(jobKey)).toBe(1);
      expect(truth.instances.get(instanceKey)).toBe('COMPLETED');
    }
    expect(truth.jobs.size).toBe(0);
    // Redis kept every activation, so no job was delivered twice: a NOT_FOUND would mean a retry was applied anew.
    expect(load.redelivered.size).toBe(0);
    // The kills happened with work outstanding (otherwise this test proved nothing).
    expect(atFirstKill).toBeLessThan(STARTS);
  }, 180_000);
});
