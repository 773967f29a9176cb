// Fault: engine webhook events under a killed leader and a flushed Redis.
// An account has an endpoint subscribed to process_instance.completed
// (written straight into the store: the routes are not needed for this);
// one-task instances are started and their jobs completed while (a) the
// engine process leading the partitions is SIGKILLed mid-batch and another
// takes over, and (b) Redis is flushed twice. The events are written in the
// leaders' batch commits, so the outbox must then hold exactly one delivery
// per completed instance — none lost with a batch that died, none doubled
// by a batch replayed, none for an instance that did not complete. Reuses
// the harness of leader-killed.test.ts and redis-flush.test.ts.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, onTestFailed, onTestFinished } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { deleteByPrefix } from '../../engine/queue/testing/redis.ts';
import { webhookEventId } from '../../engine/store/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { OUTBOX_DELIVERIES } from '../../engine/store/testing/outbox-deliveries.ts';
import {
  faultSuite,
  flushWhileLoaded,
  leadsAll,
  Load,
  ONE_TASK,
  query,
  redisUrl,
  spawnShard,
  type ShardProcess,
  storedTruth,
  untilAllCompleted,
  waitFor,
} from './fault-support.ts';

const PARTITIONS = 2;
const LEASE_MS = 1_000;
const STARTS = 200;
/** Logical database 13: FLUSHDB here touches no other test's keys (redis-flush.test.ts uses 14, the queue tests 15). */
const FLUSH_DB = 13;

async function subscribe(schema: string, account: string): Promise<void> {
  await query(schema, `insert into webhook_endpoints (id, account, url, events, secret) values ($1, $2, $3, $4, $5)`, [
    `ep_${account}`,
    account,
    'https://receiver.example/hooks',
    JSON.stringify(['process_instance.completed']),
    'sealed-secret',
  ]);
}

/** Exactly one delivery per completed instance of the account, each about that instance, and none else. */
async function expectOneDeliveryPerCompletion(schema: string, account: string, expected: number): Promise<void> {
  const truth = await storedTruth(schema, account);
  const completed = [...truth.instances].filter(([, state]) => state === 'COMPLETED').map(([key]) => key);
  expect(completed).toHaveLength(expected);
  const deliveries = await query<{ event_id: string; type: string; instance_key: string; endpoint_id: string }>(
    schema,
    `select event_id, type, payload->'data'->>'processInstanceKey' as instance_key, endpoint_id from ${OUTBOX_DELIVERIES} where account = $1`,
    [account],
  );
  expect(deliveries).toHaveLength(completed.length);
  expect(new Set(deliveries.map((d) => d.event_id)).size).toBe(deliveries.length);
  expect(deliveries.map((d) => d.event_id).sort()).toEqual(completed.map((key) => webhookEventId('process_instance.completed', key)).sort());
  for (const d of deliveries) {
    expect(d).toMatchObject({
      type: 'process_instance.completed',
      endpoint_id: `ep_${account}`,
      event_id: webhookEventId('process_instance.completed', d.instance_key),
    });
  }
}

faultSuite('fault: webhook events survive a killed leader', () => {
  const ACCOUNT = 'acct-hook-kill';
  let fixture: EngineFixture;
  let api: Engine;
  const shards: ShardProcess[] = [];

  beforeAll(async () => {
    fixture = await engineFixture();
    api = await fixture.start({ role: 'api', partitions: PARTITIONS, replyTimeoutMs: 1_000 });
    await api.deploy(ACCOUNT, ONE_TASK, 'one.bpmn');
    await subscribe(fixture.config.schema!, ACCOUNT);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(shards.map((s) => s.stop()));
    await fixture?.cleanup();
  }, 60_000);

  it('one process_instance.completed delivery per completed instance across the kill, none invented', async () => {
    onTestFailed(() => {
      for (const shard of shards) process.stderr.write(`--- shard ${shard.pid} output ---\n${shard.output}\n`);
    });
    const first = spawnShard(fixture.config, LEASE_MS, PARTITIONS, shards);
    await first.ready();
    await waitFor(leadsAll(api, first, PARTITIONS), 'the first shard to lead every partition', 30_000);

    const load = new Load(api, ACCOUNT, { total: STARTS, starters: 8, workers: 4 });
    load.run();
    onTestFinished(() => load.stop());

    // Killed with batches in flight, after some instances completed (their events committed with them).
    await waitFor(
      () => {
        if (load.failure() !== undefined) throw load.failure();
        return load.completed.size >= 20 && load.inFlight >= 4 ? true : undefined;
      },
      'load to be flowing',
      30_000,
      5,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const completedAtKill = load.completed.size;
    const next = spawnShard(fixture.config, LEASE_MS, PARTITIONS, shards);
    await next.ready();
    await waitFor(leadsAll(api, next, PARTITIONS), `the new shard to lead every partition (lease ${LEASE_MS} ms)`, 15_000);

    await load.startsDone();
    await untilAllCompleted(load, fixture.config.schema!, ACCOUNT, STARTS);
    expect(completedAtKill).toBeLessThan(STARTS);
    expect(load.retried.size).toBeGreaterThan(0);
    await expectOneDeliveryPerCompletion(fixture.config.schema!, ACCOUNT, STARTS);
  }, 180_000);
});

faultSuite('fault: webhook events survive a Redis flush', () => {
  const ACCOUNT = 'acct-hook-flush';
  let fixture: EngineFixture;
  let engine: Engine;
  let flushUrl: string;
  let admin: Redis;

  beforeAll(async () => {
    fixture = await engineFixture();
    const parsed = new URL(redisUrl!);
    parsed.pathname = `/${FLUSH_DB}`;
    flushUrl = parsed.toString();
    admin = new Redis(flushUrl, { connectionName: 'orca-test-webhook-flush' });
    engine = await fixture.start({ redisUrl: flushUrl, partitions: PARTITIONS, replyTimeoutMs: 1_000 });
    await engine.deploy(ACCOUNT, ONE_TASK, 'one.bpmn');
    await subscribe(fixture.config.schema!, ACCOUNT);
  }, 60_000);

  afterAll(async () => {
    await fixture?.cleanup();
    if (flushUrl) await deleteByPrefix(flushUrl, fixture.config.redisPrefix!);
    await admin?.quit().catch(() => admin.disconnect());
  }, 60_000);

  it('one process_instance.completed delivery per completed instance across two flushes, none invented', async () => {
    const load = new Load(engine, ACCOUNT, { total: STARTS, starters: 8, workers: 4 });
    load.run();
    onTestFinished(() => load.stop());
    await flushWhileLoaded(load, [40, 110], () => admin.flushdb());
    await load.startsDone();
    await untilAllCompleted(load, fixture.config.schema!, ACCOUNT, STARTS);
    await expectOneDeliveryPerCompletion(fixture.config.schema!, ACCOUNT, STARTS);
  }, 180_000);
});
