// Fault: a job activated with a timeout (extension) must come back to the
// queue when its deadline passes even if, meanwhile, Redis lost everything
// or the partition leader was SIGKILLed. The deadline is a timer committed
// through the partition write path before the worker hears of the job, and
// the hold is the job's row (state ACTIVATED): the queue rebuilt from
// Postgres keeps the job with its worker until then, and the next leader
// re-arms the timer from Postgres. The flush runs on a Redis logical
// database of its own (12), so it never wipes other runs' keys.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { deleteByPrefix } from '../../engine/queue/testing/redis.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { faultSuite, leadsAll, ONE_TASK, query, redisUrl, spawnShard, type ShardProcess, untilAnswered, waitFor } from './fault-support.ts';

const FLUSH_DB = 12;
const HOLD_MS = 3_000;

function onDatabase(url: string, db: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}

async function jobRow(schema: string, jobKey: string) {
  const [row] = await query<{ state: string; worker: string | null }>(schema, 'select state, worker from jobs where key = $1::bigint', [jobKey]);
  return row;
}

/** Activates `type` until the job `jobKey` comes back (bounded wait, not a timing assertion); others are completed. */
async function untilOfferedAgain(engine: Engine, account: string, jobKey: string): Promise<void> {
  await waitFor(
    async () => {
      const jobs = await engine.activateJobs(account, 'work', 10, 'second').catch(() => []);
      return jobs.some((j) => j.key === jobKey) ? true : undefined;
    },
    `job ${jobKey} to be offered again after its activation timeout`,
    30_000,
    200,
  );
}

faultSuite('fault: activation timeouts survive a Redis flush and a leader kill', () => {
  let fixture: EngineFixture;
  let flushUrl: string;
  let admin: Redis;
  const shards: ShardProcess[] = [];

  beforeAll(async () => {
    fixture = await engineFixture();
    flushUrl = onDatabase(redisUrl!, FLUSH_DB);
    admin = new Redis(flushUrl, { connectionName: 'orca-test-activation-timeout' });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(shards.map((s) => s.stop()));
    await fixture?.cleanup();
    if (flushUrl) await deleteByPrefix(flushUrl, fixture.config.redisPrefix!);
    await admin?.quit().catch(() => admin.disconnect());
  }, 60_000);

  it('a Redis flush neither offers a held job early nor loses its deadline', async () => {
    const engine = await fixture.start({ redisUrl: flushUrl, partitions: 2, replyTimeoutMs: 1_000 });
    const account = 'acct-hold-flush';
    await engine.deploy(account, ONE_TASK, 'one.bpmn');
    await engine.startInstance(account, 'one', {}, { commandKey: 'held' });
    // Long enough that the flush and the rebuild are over well before it passes.
    const [held] = await engine.activateJobs(account, 'work', 1, 'first', undefined, 15_000);
    expect(held).toBeDefined();
    // Committed before the worker heard of it.
    expect(await jobRow(fixture.config.schema!, held.key)).toEqual({ state: 'ACTIVATED', worker: 'first' });
    const other = (await engine.startInstance(account, 'one', {}, { commandKey: 'other' })).processInstanceKey;
    await waitFor(async () => ((await engine.queues.jobs.depth(account, 'work')) === 1 ? true : undefined), 'the other job to be queued');

    await admin.flushdb();

    // The leader rebuilds from Postgres: the other job is queued again, the held one stays held.
    await waitFor(async () => ((await engine.queues.jobs.depth(account, 'work')) === 1 ? true : undefined), 'the queue to be rebuilt', 15_000);
    const offered = await engine.activateJobs(account, 'work', 10, 'second');
    expect(offered.map((j) => j.processInstanceKey)).toEqual([other]);
    await untilAnswered(() => engine.completeJob(account, offered[0].key, {}, { commandKey: 'done-other' }));
    // The deadline survived the flush: the held job comes back when it passes.
    await untilOfferedAgain(engine, account, held.key);
    // The next test's shards lead the same schema's partitions.
    await engine.close();
  }, 90_000);

  it('the deadline fires under the next leader after the first one is SIGKILLed', async () => {
    onTestFailed(() => {
      for (const shard of shards) process.stderr.write(`--- shard ${shard.pid} output ---\n${shard.output}\n`);
    });
    const api = await fixture.start({ role: 'api', partitions: 2, replyTimeoutMs: 1_000 });
    const account = 'acct-hold-kill';
    await api.deploy(account, ONE_TASK, 'one.bpmn');
    const first = spawnShard(fixture.config, 1_000, 2, shards);
    await first.ready();
    await waitFor(leadsAll(api, first, 2), 'the first shard to lead every partition', 30_000);
    const key = (await untilAnswered(() => api.startInstance(account, 'one', {}, { commandKey: 'k' }))).processInstanceKey;
    await waitFor(async () => ((await api.queues.jobs.depth(account, 'work')) === 1 ? true : undefined), 'the job to be queued');
    const [held] = await api.activateJobs(account, 'work', 1, 'first', undefined, HOLD_MS);
    expect(held.processInstanceKey).toBe(key);

    first.child.kill('SIGKILL');
    await first.exited;
    const next = spawnShard(fixture.config, 1_000, 2, shards);
    await next.ready();
    await waitFor(leadsAll(api, next, 2), 'the next shard to lead every partition', 30_000);

    await untilOfferedAgain(api, account, held.key);
    // Offered again, then activated without a timeout: as SPEC.md, nothing more is stored about that hold.
    expect(await jobRow(fixture.config.schema!, held.key)).toEqual({ state: 'ACTIVATABLE', worker: null });
  }, 90_000);
});
