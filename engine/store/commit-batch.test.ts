import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { commitBatch, commitBatches, type Batch } from './commit-batch.ts';
import type { Database } from './database.ts';
import { rows } from './db.ts';
import { StaleEpochError } from './errors.ts';
import { COMMIT_BATCH } from './commit-batch-sql.ts';
import { instanceEndedEvent } from './engine-events.ts';
import { createStore, type Store } from './index.ts';
import { historyRows, incidentRow, jobRow, timerRow } from './runtime-rows.ts';
import { webhookEndpoints } from './schema.ts';
import { webhookEventId } from './webhook-outbox.ts';
import { historyWrite, incidentWrite, instanceDoc, jobWrite, keyOf, timerWrite } from './test-fixtures.ts';
import { OUTBOX_DELIVERIES } from './testing/outbox-deliveries.ts';

const testDb = createTestDatabase();
let database: Database;
let store: Store;

beforeAll(async () => {
  database = await testDb.open();
  store = createStore(database.db);
});
afterAll(() => testDb.cleanup());

async function counts(partition: number) {
  const [row] = await rows<Record<string, number>>(
    database.db,
    sql`select
      (select count(*)::int from instances where partition = ${partition}) as instances,
      (select count(*)::int from jobs where partition = ${partition}) as jobs,
      (select count(*)::int from timers where partition = ${partition}) as timers,
      (select count(*)::int from incidents where partition = ${partition}) as incidents,
      (select coalesce(sum(jsonb_array_length(records)), 0)::int from history where partition = ${partition}) as history,
      (select count(*)::int from commands where partition = ${partition}) as commands`,
  );
  return row;
}

/**
 * Runs `fn` and counts the calls it makes on the driver under `database.db`:
 * `query` (one statement, one round trip), `other` (checking out a client or
 * opening a transaction, which means more round trips).
 */
async function driverCalls(database: Database, fn: () => Promise<unknown>): Promise<{ query: number; other: number }> {
  const client = (database.db as unknown as { $client: Record<string, (...args: unknown[]) => unknown> }).$client;
  const calls = { query: 0, other: 0 };
  const methods = database.kind === 'pg' ? ['query', 'connect'] : ['query', 'exec', 'transaction'];
  const saved = methods.map((name) => ({ name, own: Object.getOwnPropertyDescriptor(client, name), original: client[name] }));
  // pg's Pool.query checks a client out itself (synchronously): that is part of the one query.
  let insideQuery = false;
  for (const { name, original } of saved) {
    client[name] = (...args: unknown[]) => {
      if (name === 'query') calls.query++;
      else if (!insideQuery) calls.other++;
      const outer = insideQuery;
      insideQuery = name === 'query';
      try {
        return original.apply(client, args);
      } finally {
        insideQuery = outer;
      }
    };
  }
  try {
    await fn();
  } finally {
    for (const { name, own } of saved) {
      if (own) Object.defineProperty(client, name, own);
      else delete client[name];
    }
  }
  return calls;
}

function fullBatch(partition: number, epoch: number, base: number): Batch {
  const i1 = keyOf(partition, base + 1);
  const i2 = keyOf(partition, base + 2);
  return {
    partition,
    epoch,
    instances: [
      { account: 'acme', document: instanceDoc(i1, { variables: { orderId: 'A1' } }) },
      { account: 'acme', document: instanceDoc(i2, { state: 'INCIDENT' }), parentKey: i1 },
    ],
    jobsUpsert: [jobWrite('acme', keyOf(partition, base + 11), i1), jobWrite('acme', keyOf(partition, base + 12), i1)],
    timersUpsert: [timerWrite('acme', keyOf(partition, base + 21), i1, new Date('2025-01-01T01:00:00Z'))],
    incidentsInsert: [incidentWrite('acme', keyOf(partition, base + 31), i2)],
    history: [historyWrite('acme', i1, 'start'), historyWrite('acme', i1, 'charge'), historyWrite('acme', i2, 'start')],
    commands: [
      { key: `cmd-${base}-1`, result: { processInstanceKey: i1 } },
      { key: `cmd-${base}-2`, result: { processInstanceKey: i2 } },
    ],
  };
}

describe('commitBatch', () => {
  it('writes instances, jobs, timers, incidents, history and command results together', async () => {
    const lease = await store.leases.acquireLease(1, 'shard-a', 10_000);
    expect(lease).not.toBeNull();
    await commitBatch(database.db, fullBatch(1, lease!.epoch, 0));

    expect(await counts(1)).toEqual({ instances: 2, jobs: 2, timers: 1, incidents: 1, history: 3, commands: 2 });
    const i1 = keyOf(1, 1);
    const instance = await store.instances.getInstance('acme', i1);
    expect(instance).toMatchObject({ key: i1, partition: 1, state: 'ACTIVE', variables: { orderId: 'A1' }, bpmnProcessId: 'order' });
    expect(instance!.document.key).toBe(i1);
    expect(instance!.createdAt.toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect((await store.instances.getInstance('acme', keyOf(1, 2)))!.parentKey).toBe(i1);

    const job = await store.jobs.getJob('acme', keyOf(1, 11));
    expect(job).toMatchObject({ key: keyOf(1, 11), instanceKey: i1, type: 'payment', retries: 3, customHeaders: { region: 'eu' } });

    const results = await store.commands.findCommandResults(1, ['cmd-0-1', 'cmd-0-2', 'never']);
    expect(Object.fromEntries(results)).toEqual({
      'cmd-0-1': { processInstanceKey: i1 },
      'cmd-0-2': { processInstanceKey: keyOf(1, 2) },
    });

    const historyPage = await store.history.listHistory('acme', i1);
    expect(historyPage.items.map((h) => [h.position, h.record.elementId])).toEqual([
      [1, 'start'],
      [2, 'charge'],
    ]);
  });

  it('updates on the next batch: document, state, jobs upserted and deleted, history continues', async () => {
    const lease = await store.leases.acquireLease(2, 'shard-a', 10_000);
    const epoch = lease!.epoch;
    await commitBatch(database.db, fullBatch(2, epoch, 0));
    const i1 = keyOf(2, 1);
    const completed = instanceDoc(i1, { state: 'COMPLETED', variables: { orderId: 'A1', paid: true } });
    await commitBatch(database.db, {
      partition: 2,
      epoch,
      instances: [{ account: 'acme', document: completed }],
      jobsUpsert: [jobWrite('acme', keyOf(2, 12), i1, { retries: 1, state: 'FAILED', errorMessage: 'card declined' })],
      jobsDelete: [keyOf(2, 11)],
      timersDelete: [keyOf(2, 21)],
      history: [historyWrite('acme', i1, 'end')],
      // A replayed command keeps its first result.
      commands: [
        { key: 'cmd-0-1', result: 'second' },
        { key: 'cmd-x', result: undefined },
      ],
    });

    const instance = await store.instances.getInstance('acme', i1);
    expect(instance).toMatchObject({ state: 'COMPLETED', variables: { orderId: 'A1', paid: true } });
    // Read from the document's epoch milliseconds, to the millisecond.
    expect(instance!.endedAt?.getTime()).toBe(completed.endedAt);
    expect(instance!.updatedAt.getTime()).toBeGreaterThanOrEqual(instance!.createdAt.getTime());
    expect(await store.jobs.getJob('acme', keyOf(2, 11))).toBeNull();
    expect(await store.jobs.getJob('acme', keyOf(2, 12))).toMatchObject({ retries: 1, state: 'FAILED', errorMessage: 'card declined' });
    expect(await store.timers.loadDueTimers(2, new Date('2030-01-01'))).toEqual([]);
    const positions = (await store.history.listHistory('acme', i1)).items.map((h) => h.position);
    expect(positions).toEqual([1, 2, 3]);
    const results = await store.commands.findCommandResults(2, ['cmd-0-1', 'cmd-x']);
    expect(results.get('cmd-0-1')).toEqual({ processInstanceKey: i1 });
    expect(results.has('cmd-x')).toBe(true);
    expect(results.get('cmd-x')).toBeNull();
  });

  it('refuses a stale epoch and writes nothing at all', async () => {
    const first = await store.leases.acquireLease(3, 'shard-a', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await store.leases.acquireLease(3, 'shard-b', 10_000);
    expect(second!.epoch).toBe(first!.epoch + 1);

    const attempt = commitBatch(database.db, fullBatch(3, first!.epoch, 0));
    await expect(attempt).rejects.toBeInstanceOf(StaleEpochError);
    await expect(attempt).rejects.toMatchObject({ partition: 3, epoch: first!.epoch, currentEpoch: second!.epoch });
    expect(await counts(3)).toEqual({ instances: 0, jobs: 0, timers: 0, incidents: 0, history: 0, commands: 0 });

    // The current leader's batch goes through.
    await commitBatch(database.db, fullBatch(3, second!.epoch, 0));
    expect((await counts(3)).instances).toBe(2);
  });

  it('refuses a partition nobody leads', async () => {
    await expect(commitBatch(database.db, fullBatch(99, 1, 0))).rejects.toBeInstanceOf(StaleEpochError);
    expect(await counts(99)).toEqual({ instances: 0, jobs: 0, timers: 0, incidents: 0, history: 0, commands: 0 });
  });

  it('rolls back everything already written when a later statement fails', async () => {
    const lease = await store.leases.acquireLease(4, 'shard-a', 10_000);
    const batch = fullBatch(4, lease!.epoch, 0);
    // Instances are written first; this job violates the state check afterwards.
    batch.jobsUpsert!.push(jobWrite('acme', keyOf(4, 13), keyOf(4, 1), { state: 'BOGUS' as 'FAILED' }));
    await expect(commitBatch(database.db, batch)).rejects.toThrow();
    expect(await counts(4)).toEqual({ instances: 0, jobs: 0, timers: 0, incidents: 0, history: 0, commands: 0 });
  });

  it('refuses to overwrite an instance key owned by another account', async () => {
    const lease = await store.leases.acquireLease(5, 'shard-a', 10_000);
    const key = keyOf(5, 1);
    await commitBatch(database.db, { partition: 5, epoch: lease!.epoch, instances: [{ account: 'acme', document: instanceDoc(key) }] });
    const hijack = commitBatch(database.db, {
      partition: 5,
      epoch: lease!.epoch,
      instances: [{ account: 'evil', document: instanceDoc(key, { state: 'TERMINATED' }) }],
    });
    await expect(hijack).rejects.toThrow(/another account/);
    expect((await store.instances.getInstance('acme', key))!.state).toBe('ACTIVE');
    const jobKey = keyOf(5, 2);
    await commitBatch(database.db, { partition: 5, epoch: lease!.epoch, jobsUpsert: [jobWrite('acme', jobKey, key)] });
    await expect(commitBatch(database.db, { partition: 5, epoch: lease!.epoch, jobsUpsert: [jobWrite('evil', jobKey, key, { retries: 0 })] })).rejects.toThrow(
      /job key collision/,
    );
    expect((await store.jobs.getJob('acme', jobKey))!.retries).toBe(3);
  });

  it('commits a large batch in one statement, keys intact beyond 2^53', async () => {
    const lease = await store.leases.acquireLease(6, 'shard-a', 10_000);
    const n = 500;
    const batch: Batch = { partition: 6, epoch: lease!.epoch, instances: [], jobsUpsert: [], history: [], commands: [] };
    for (let i = 1; i <= n; i++) {
      const key = keyOf(6, i);
      batch.instances!.push({ account: 'acme', document: instanceDoc(key, { variables: { i } }) });
      batch.jobsUpsert!.push(jobWrite('acme', keyOf(6, 100_000 + i), key));
      batch.history!.push(historyWrite('acme', key, 'start'), historyWrite('acme', key, 'charge'));
      batch.commands!.push({ key: `bulk-${i}`, result: { key } });
    }
    // Count what reaches the driver: one call, and no transaction (BEGIN/COMMIT would be more round trips).
    const calls = await driverCalls(database, () => commitBatch(database.db, batch));
    expect(await counts(6)).toMatchObject({ instances: n, jobs: n, history: 2 * n, commands: n });
    expect(calls).toEqual({ query: 1, other: 0 });
    const loaded = await store.instances.loadPartitionInstances(6);
    expect(loaded.map((l) => l.document.key)).toEqual(Array.from({ length: n }, (_, i) => keyOf(6, i + 1)));
    expect(BigInt(loaded[0].document.key)).toBeGreaterThan(2n ** 53n);
  });

  it('stores the jobs, timers, incidents and records of a runtime document via runtime-rows', async () => {
    const lease = await store.leases.acquireLease(7, 'shard-a', 10_000);
    const key = keyOf(7, 1);
    const document = instanceDoc(key, { state: 'INCIDENT' });
    const job = {
      key: keyOf(7, 2),
      type: 'payment',
      retries: 0,
      elementId: 'charge',
      elementInstanceKey: keyOf(7, 3),
      customHeaders: {},
      state: 'FAILED' as const,
      errorMessage: 'boom',
    };
    const timer = {
      key: keyOf(7, 4),
      elementId: 'deadline',
      ownerKey: keyOf(7, 3),
      dueAt: Date.UTC(2025, 0, 2),
      schedule: { kind: 'date', text: '2025-01-02T00:00:00Z', at: Date.UTC(2025, 0, 2) } as never,
      firedCount: 0,
    };
    const incident = {
      key: keyOf(7, 5),
      type: 'JOB_NO_RETRIES' as const,
      elementId: 'charge',
      elementInstanceKey: keyOf(7, 3),
      jobKey: job.key,
      message: 'boom',
      createdAt: Date.UTC(2025, 0, 1, 12),
    };
    await store.commitBatch({
      partition: 7,
      epoch: lease!.epoch,
      instances: [{ account: 'acme', document }],
      jobsUpsert: [jobRow('acme', document, job)],
      timersUpsert: [timerRow('acme', document, timer)],
      incidentsInsert: [incidentRow('acme', document, incident)],
      history: historyRows('acme', key, [{ type: 'INCIDENT_CREATED', at: 1, incidentKey: incident.key }]),
    });
    expect(await store.jobs.getJob('acme', job.key)).toMatchObject({ state: 'FAILED', errorMessage: 'boom', instanceKey: key, bpmnProcessId: 'order' });
    const [due] = await store.timers.loadDueTimers(7, new Date(Date.UTC(2025, 0, 3)));
    expect(due).toMatchObject({ key: timer.key, ownerKey: keyOf(7, 3), instanceKey: key, schedule: timer.schedule });
    expect(due.dueAt.toISOString()).toBe('2025-01-02T00:00:00.000Z');
    expect(await store.incidents.getIncident('acme', incident.key)).toMatchObject({ jobKey: job.key, state: 'OPEN' });
    expect((await store.history.listHistory('acme', key)).items[0].record).toEqual({ type: 'INCIDENT_CREATED', at: 1, incidentKey: incident.key });
  });

  it('commits hundreds of rows of every kind in one statement, deletes after upserts', async () => {
    const lease = await store.leases.acquireLease(8, 'shard-a', 10_000);
    const n = 300;
    const key = (i: number) => keyOf(8, i);
    const batch: Batch = {
      partition: 8,
      epoch: lease!.epoch,
      instances: [],
      jobsUpsert: [],
      jobsDelete: [],
      timersUpsert: [],
      timersDelete: [],
      incidentsInsert: [],
      history: [],
      commands: [],
    };
    for (let i = 1; i <= n; i++) {
      batch.instances!.push({ account: 'acme', document: instanceDoc(key(i), { variables: { i } }) });
      batch.jobsUpsert!.push(jobWrite('acme', key(10_000 + i), key(i)));
      batch.timersUpsert!.push(timerWrite('acme', key(20_000 + i), key(i), new Date(Date.UTC(2025, 0, 1, 0, 0, i))));
      batch.incidentsInsert!.push(incidentWrite('acme', key(30_000 + i), key(i)));
      for (let h = 0; h < 3; h++) batch.history!.push(historyWrite('acme', key(i), `e${h}`));
      batch.commands!.push({ key: `many-${i}`, result: i % 2 === 0 ? { i } : undefined });
    }
    // Created and finished in the same batch: gone afterwards, whatever the order they were listed in.
    batch.jobsDelete!.push(key(10_001), key(10_002), key(10_002));
    batch.timersDelete!.push(key(20_001));
    const calls = await driverCalls(database, () => commitBatch(database.db, batch));
    expect(calls).toEqual({ query: 1, other: 0 });
    expect(await counts(8)).toEqual({ instances: n, jobs: n - 2, timers: n - 1, incidents: n, history: 3 * n, commands: n });
    expect(await store.jobs.getJob('acme', key(10_002))).toBeNull();
    expect(await store.jobs.getJob('acme', key(10_003))).toMatchObject({ instanceKey: key(3), customHeaders: { region: 'eu' } });
    const results = await store.commands.findCommandResults(8, ['many-1', 'many-2']);
    expect(Object.fromEntries(results)).toEqual({ 'many-1': null, 'many-2': { i: 2 } });
    expect((await store.history.listHistory('acme', key(n))).items.map((h) => [h.position, h.record.elementId])).toEqual([
      [1, 'e0'],
      [2, 'e1'],
      [3, 'e2'],
    ]);

    // Next batch: updates everything, deletes what the first one created, history continues.
    const next: Batch = { partition: 8, epoch: lease!.epoch, instances: [], jobsUpsert: [], jobsDelete: [], timersDelete: [], history: [] };
    for (let i = 1; i <= n; i++) {
      next.instances!.push({ account: 'acme', document: instanceDoc(key(i), { state: 'COMPLETED', variables: { i, done: true } }) });
      next.jobsDelete!.push(key(10_000 + i));
      next.timersDelete!.push(key(20_000 + i));
      next.history!.push(historyWrite('acme', key(i), 'end'));
    }
    // A job deleted and upserted again in the same batch is gone too (deletes come after upserts).
    next.jobsUpsert!.push(jobWrite('acme', key(10_005), key(5), { retries: 0 }));
    await commitBatch(database.db, next);
    expect(await counts(8)).toEqual({ instances: n, jobs: 0, timers: 0, incidents: n, history: 4 * n, commands: n });
    expect(await store.instances.getInstance('acme', key(7))).toMatchObject({ state: 'COMPLETED', variables: { i: 7, done: true } });
    expect((await store.history.listHistory('acme', key(7))).items.map((h) => h.position)).toEqual([1, 2, 3, 4]);
  });

  it("keeps tenancy: no upsert overwrites another account's row, incidents are insert-only, a refused batch writes nothing", async () => {
    const lease = await store.leases.acquireLease(9, 'shard-a', 10_000);
    const epoch = lease!.epoch;
    const i1 = keyOf(9, 1);
    const timerKey = keyOf(9, 2);
    const incidentKey = keyOf(9, 3);
    await commitBatch(database.db, {
      partition: 9,
      epoch,
      instances: [{ account: 'acme', document: instanceDoc(i1) }],
      timersUpsert: [timerWrite('acme', timerKey, i1, new Date('2025-01-01T01:00:00Z'))],
      incidentsInsert: [incidentWrite('acme', incidentKey, i1)],
    });
    const before = await counts(9);

    // A timer of another account under an existing key: refused, and the batch's other rows with it.
    const i2 = keyOf(9, 4);
    await expect(
      commitBatch(database.db, {
        partition: 9,
        epoch,
        instances: [{ account: 'evil', document: instanceDoc(i2) }],
        timersUpsert: [timerWrite('evil', timerKey, i2, new Date('2030-01-01T00:00:00Z'))],
        history: [historyWrite('evil', i2, 'start')],
        commands: [{ key: 'evil-cmd', result: 1 }],
      }),
    ).rejects.toThrow(/timer key collision with another account/);
    expect(await counts(9)).toEqual(before);
    const [timer] = await store.timers.loadDueTimers(9, new Date('2026-01-01'));
    expect(timer).toMatchObject({ key: timerKey, account: 'acme' });
    expect(timer.dueAt.toISOString()).toBe('2025-01-01T01:00:00.000Z');

    // An incident key that exists (another account's, or a replay of ours): left as it is, batch goes through.
    await store.incidents.resolveIncident('acme', incidentKey);
    await commitBatch(database.db, {
      partition: 9,
      epoch,
      incidentsInsert: [incidentWrite('evil', incidentKey, i1), incidentWrite('acme', incidentKey, i1)],
      commands: [{ key: 'replayed', result: 'ok' }],
    });
    expect(await store.incidents.getIncident('acme', incidentKey)).toMatchObject({ state: 'RESOLVED' });
    expect(await store.incidents.getIncident('evil', incidentKey)).toBeNull();
    expect((await store.commands.findCommandResults(9, ['replayed'])).get('replayed')).toBe('ok');
  });

  it('stores custom headers of prototype-less records (compiled models use them)', async () => {
    const lease = await store.leases.acquireLease(10, 'shard-a', 10_000);
    const headers = Object.assign(Object.create(null) as Record<string, string>, { region: 'us' });
    await commitBatch(database.db, {
      partition: 10,
      epoch: lease!.epoch,
      jobsUpsert: [jobWrite('acme', keyOf(10, 1), keyOf(10, 2), { customHeaders: headers })],
    });
    expect((await store.jobs.getJob('acme', keyOf(10, 1)))!.customHeaders).toEqual({ region: 'us' });
  });

  it.skipIf(!testDb.url)('a batch waiting on the fence while a takeover commits is refused and writes nothing (Postgres)', async () => {
    const lease = await store.leases.acquireLease(11, 'shard-a', 10_000);
    const takeover = new pg.Client({ connectionString: testDb.url, options: `-c search_path=${testDb.schema}` });
    await takeover.connect();
    try {
      // The new leader's acquireLease, caught in the middle: the partition row is locked, the new epoch not yet committed.
      await takeover.query('begin');
      await takeover.query('update partitions set epoch = epoch + 1, leader = $2 where id = $1', [11, 'shard-b']);
      const attempt = commitBatch(database.db, fullBatch(11, lease!.epoch, 0));
      const outcome = attempt.then(
        () => 'committed',
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Still waiting for the row lock: nothing decided yet.
      expect(await Promise.race([outcome, Promise.resolve('waiting')])).toBe('waiting');
      await takeover.query('commit');
      const error = await outcome;
      expect(error).toBeInstanceOf(StaleEpochError);
      expect(error).toMatchObject({ partition: 11, epoch: lease!.epoch, currentEpoch: lease!.epoch + 1 });
      expect(await counts(11)).toEqual({ instances: 0, jobs: 0, timers: 0, incidents: 0, history: 0, commands: 0 });
    } finally {
      await takeover.end();
    }
  });

  it.skipIf(!testDb.url)('a takeover waits for a batch that holds the fence (Postgres)', async () => {
    const lease = await store.leases.acquireLease(12, 'shard-a', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const blocker = new pg.Client({ connectionString: testDb.url, options: `-c search_path=${testDb.schema}` });
    await blocker.connect();
    try {
      // Hold a row the batch writes, so the batch holds the fence lock while it waits.
      await blocker.query('begin');
      await blocker.query("insert into commands (partition, command_key, result) values (12, 'cmd-0-1', '1')");
      const batch = commitBatch(database.db, fullBatch(12, lease!.epoch, 0));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const acquired = store.leases.acquireLease(12, 'shard-b', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await Promise.race([acquired.then(() => 'acquired'), Promise.resolve('waiting')])).toBe('waiting');
      await blocker.query('rollback');
      // The old epoch's batch commits (its fence passed), and only then does the takeover get the row.
      await batch;
      expect((await acquired)!.epoch).toBe(lease!.epoch + 1);
      expect((await counts(12)).instances).toBe(2);
    } finally {
      await blocker.end();
    }
  });

  it('commits several partitions in one statement, each behind its own fence', async () => {
    const a = await store.leases.acquireLease(20, 'shard-a', 10_000);
    const b = await store.leases.acquireLease(21, 'shard-a', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const taken = await store.leases.acquireLease(21, 'shard-b', 10_000);
    const c = await store.leases.acquireLease(22, 'shard-a', 10_000);
    const calls = await driverCalls(database, () =>
      commitBatches(database.db, [fullBatch(20, a!.epoch, 0), fullBatch(21, b!.epoch, 0), fullBatch(22, c!.epoch, 0)]).then((outcomes) => {
        // 21 was taken over: fenced out alone, with the epoch that holds it now.
        expect(outcomes).toEqual([{ ok: true }, { ok: false, epoch: taken!.epoch }, { ok: true }]);
      }),
    );
    expect(calls).toMatchObject({ query: 1, other: 0 });
    expect(await counts(20)).toEqual({ instances: 2, jobs: 2, timers: 1, incidents: 1, history: 3, commands: 2 });
    expect(await counts(21)).toEqual({ instances: 0, jobs: 0, timers: 0, incidents: 0, history: 0, commands: 0 });
    expect(await counts(22)).toEqual({ instances: 2, jobs: 2, timers: 1, incidents: 1, history: 3, commands: 2 });
    // A delete listed by a fenced-out batch deletes nothing, even a key another batch wrote.
    await commitBatches(database.db, [
      { partition: 21, epoch: b!.epoch, jobsDelete: [keyOf(20, 11)] },
      { partition: 22, epoch: c!.epoch, jobsDelete: [keyOf(22, 11)] },
    ]);
    expect((await counts(20)).jobs).toBe(2);
    expect((await counts(22)).jobs).toBe(1);
  });

  it('refuses two batches of one partition in one call, writing nothing', async () => {
    const lease = await store.leases.acquireLease(23, 'shard-a', 10_000);
    await expect(commitBatches(database.db, [fullBatch(23, lease!.epoch, 0), fullBatch(23, lease!.epoch, 100)])).rejects.toThrow(/one batch per partition/);
    expect((await counts(23)).instances).toBe(0);
  });

  it("keeps a completed user task from its job's row as the job is deleted, once, and nothing for a deleted job that did not complete", async () => {
    const lease = await store.leases.acquireLease(24, 'shard-a', 10_000);
    await commitBatch(database.db, fullBatch(24, lease!.epoch, 0));
    const i1 = keyOf(24, 1);
    const [done, dropped, unstored] = [keyOf(24, 14), keyOf(24, 11), keyOf(24, 13)];
    // The user task's job, assigned through the task routes' repository.
    await commitBatch(database.db, { partition: 24, epoch: lease!.epoch, jobsUpsert: [jobWrite('acme', done, i1, { type: 'userTask', elementId: 'review' })] });
    expect(await store.tasks.assignTask('acme', done, 'ana')).toMatchObject({ assignee: 'ana' });
    const completedAt = Date.parse('2025-01-02T03:04:05.006Z');
    const completion = (key: string) => ({
      key,
      account: 'acme',
      instanceKey: i1,
      bpmnProcessId: 'order',
      processVersion: 1,
      elementId: 'review',
      elementInstanceKey: key,
      completedAt,
    });
    const batch = {
      partition: 24,
      epoch: lease!.epoch,
      jobsDelete: [done, dropped],
      // A task whose job row was never stored (created and completed in one batch) still counts, without an assignee.
      tasksCompleted: [completion(done), completion(unstored)],
    };
    await commitBatch(database.db, batch);
    // A replay (a new leader committing the same work) changes nothing.
    await commitBatch(database.db, batch);

    expect(await store.jobs.getJob('acme', done)).toBeNull();
    const page = await store.completedTasks.listCompletedTasks('acme', { instanceKey: i1 });
    expect(page.items.map((t) => t.key).sort()).toEqual([done, unstored].sort());
    const task = await store.completedTasks.getCompletedTask('acme', done);
    expect(task).toMatchObject({ key: done, instanceKey: i1, elementId: 'review', assignee: 'ana', processVersion: 1 });
    expect(task!.completedAt.getTime()).toBe(completedAt);
    expect(task!.createdAt.getTime()).toBeLessThan(Date.now() + 1);
    const lone = await store.completedTasks.getCompletedTask('acme', unstored);
    expect(lone).toMatchObject({ assignee: null });
    expect(lone!.createdAt.getTime()).toBe(completedAt);
    expect(await store.completedTasks.getCompletedTask('acme', dropped)).toBeNull();
    expect(await store.completedTasks.getCompletedTask('other', done)).toBeNull();
  });
});

describe('commitBatch: webhook events', () => {
  beforeAll(async () => {
    await database.db.insert(webhookEndpoints).values([
      { id: 'ep_hooked_1', account: 'hooked', url: 'https://h.example/1', events: ['process_instance.completed'], secret: 's1' },
      { id: 'ep_hooked_2', account: 'hooked', url: 'https://h.example/2', events: ['incident.created', 'process_instance.completed'], secret: 's2' },
      { id: 'ep_hooked_off', account: 'hooked', url: 'https://h.example/3', events: ['process_instance.completed'], secret: 's3', status: 'disabled' },
      // Subscribed to other types only: its account's completions want no delivery.
      { id: 'ep_other_types', account: 'other', url: 'https://o.example/1', events: ['incident.created'], secret: 's4' },
    ]);
  });

  /** The deliveries of the completions of these instances. */
  async function deliveries(...instanceKeys: string[]) {
    const ids = instanceKeys.map((k) => webhookEventId('process_instance.completed', k));
    return rows<{ endpoint_id: string; account: string; event_id: string; type: string; payload: unknown; status: string }>(
      database.db,
      sql`select endpoint_id, account, event_id, type, payload, status from ${sql.raw(OUTBOX_DELIVERIES)}
          where event_id in ${ids} order by event_id, endpoint_id`,
    );
  }

  /** A batch completing one instance of `account` at `sequence`, with its event. */
  function completing(partition: number, epoch: number, account: string, sequence: number): Batch {
    const document = instanceDoc(keyOf(partition, sequence), { state: 'COMPLETED' });
    const record = { type: 'PROCESS_INSTANCE_COMPLETED' as const, at: document.endedAt! };
    return {
      partition,
      epoch,
      instances: [{ account, document }],
      history: [{ account, instanceKey: document.key, record }],
      events: [instanceEndedEvent(account, document, record)],
    };
  }

  it("writes an event's deliveries with the batch: one per enabled endpoint of the account subscribed to its type, once however often replayed", async () => {
    const lease = await store.leases.acquireLease(30, 'shard-a', 10_000);
    const batch = completing(30, lease!.epoch, 'hooked', 1);
    const instanceKey = keyOf(30, 1);
    await commitBatch(database.db, batch);
    // A replay (a new leader committing the same work after a lost answer) adds nothing.
    await commitBatch(database.db, batch);

    const written = await deliveries(instanceKey);
    expect(written.map((d) => d.endpoint_id)).toEqual(['ep_hooked_1', 'ep_hooked_2']);
    expect(written[0]).toMatchObject({
      account: 'hooked',
      event_id: webhookEventId('process_instance.completed', instanceKey),
      type: 'process_instance.completed',
      status: 'pending',
      payload: {
        type: 'process_instance.completed',
        timestamp: new Date(batch.instances![0].document.endedAt!).toISOString(),
        data: { processInstanceKey: instanceKey, bpmnProcessId: 'order', version: 1 },
      },
    });
    expect(await store.instances.getInstance('hooked', instanceKey)).toMatchObject({ state: 'COMPLETED' });
  });

  it('writes no delivery for an account without an endpoint subscribed to the type, and the rest of the batch as ever', async () => {
    const lease = await store.leases.acquireLease(31, 'shard-a', 10_000);
    const [other, nobody] = [completing(31, lease!.epoch, 'other', 1), completing(31, lease!.epoch, 'nobody', 2)];
    await commitBatch(database.db, {
      ...other,
      instances: [...other.instances!, ...nobody.instances!],
      history: [...other.history!, ...nobody.history!],
      events: [...other.events!, ...nobody.events!],
    });
    expect(await deliveries(keyOf(31, 1), keyOf(31, 2))).toEqual([]);
    expect(await store.instances.getInstance('other', keyOf(31, 1))).toMatchObject({ state: 'COMPLETED' });
    expect(await store.instances.getInstance('nobody', keyOf(31, 2))).toMatchObject({ state: 'COMPLETED' });
  });

  it('writes no delivery for a batch on a stale epoch, beside a current batch whose deliveries are written', async () => {
    const stale = await store.leases.acquireLease(32, 'shard-a', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const taken = await store.leases.acquireLease(32, 'shard-b', 10_000);
    const current = await store.leases.acquireLease(33, 'shard-a', 10_000);
    const outcomes = await commitBatches(database.db, [completing(32, stale!.epoch, 'hooked', 1), completing(33, current!.epoch, 'hooked', 1)]);
    expect(outcomes).toEqual([{ ok: false, epoch: taken!.epoch }, { ok: true }]);
    expect(await deliveries(keyOf(32, 1))).toEqual([]);
    expect((await deliveries(keyOf(33, 1))).map((d) => d.endpoint_id)).toEqual(['ep_hooked_1', 'ep_hooked_2']);
    // A batch refused on purpose (tenancy: its instance key is another account's) writes no delivery either.
    const refused = { ...completing(32, taken!.epoch, 'hooked', 5), instances: [{ account: 'evil', document: instanceDoc(keyOf(33, 1)) }] };
    await expect(commitBatch(database.db, refused)).rejects.toThrow(/instance key collision/);
    expect(await deliveries(keyOf(32, 5))).toEqual([]);
  });

  it.skipIf(!testDb.url)('finds the endpoints by an index lookup per event on its cached generic plan, even planned on an empty table (Postgres)', async () => {
    // As the writer connections run it (pg-pool.ts): prepared once, no sequential scans.
    const client = new pg.Client({ connectionString: testDb.url, options: `-c search_path=${testDb.schema} -c enable_seqscan=off` });
    await client.connect();
    try {
      await client.query('set plan_cache_mode = force_generic_plan');
      await client.query(`prepare plan_probe(jsonb) as ${COMMIT_BATCH.text}`);
      const explained = await client.query<Record<string, string>>(`explain execute plan_probe('{"f":[]}')`);
      const plan = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      const hook = plan.slice(plan.indexOf('Insert on webhook_batches'));
      expect(hook).toMatch(/Nested Loop[\s\S]*Index Scan using webhook_endpoints_enabled_idx on webhook_endpoints[^\n]*\n\s*Index Cond: \(account = /);
      expect(plan).not.toMatch(/Seq Scan on webhook_endpoints|Hash Join[^\n]*\n[^\n]*webhook_endpoints/);
    } finally {
      await client.end();
    }
  });
});
