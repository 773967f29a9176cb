// Poison commands at the write path (issue: no request may stall a
// partition). The API refuses values Postgres cannot store; these tests
// reach past it, straight to the engine, and prove the second line of
// defence: a command whose batch Postgres refuses is answered with a
// rejection while the other commands of its batch commit; a clean command
// that fails because of its instance's state sets that instance aside with
// an incident; and afterwards every partition serves another account at
// once (each call of that check is bounded, so a stalled partition fails
// it instead of slowing it).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, type Engine } from '../../engine/partition/index.ts';
import { LIMITS } from '../../engine/limits.ts';
import { partitionOfKey } from '../../engine/partition/keys.ts';
import { rows } from '../../engine/store/db.ts';
import { end, flow, ioMapping, processXml, service, start } from '../../engine/runtime/testing.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import type { EngineCommand } from '../../engine/partition/commands.ts';
import { faultSuite, ONE_TASK, query, ShardProcess, storedResults, waitFor, within } from './fault-support.ts';

const PARTITIONS = 4;

/** A service task whose output mapping makes a string Postgres cannot store, from a clean completion. */
const BAD_OUTPUT = processXml(
  'bad-output',
  start() + service('task', 'bad-work', ioMapping([], [['="x\\u0000y"', 'bad']])) + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'),
);

/** Two service tasks in a row: the instance is still running after the first completes. */
const TWO_TASKS = processXml(
  'two',
  start() +
    service('first', 'work') +
    service('second', 'later') +
    end() +
    flow('f1', 'start', 'first') +
    flow('f2', 'first', 'second') +
    flow('f3', 'second', 'end'),
);

/** A timer whose output mapping makes the same string when it fires. */
const BAD_TIMER = processXml(
  'bad-timer',
  start() +
    '<bpmn:intermediateCatchEvent id="wait"><bpmn:extensionElements>' +
    ioMapping([], [['="x\\u0000y"', 'bad']]) +
    '</bpmn:extensionElements><bpmn:timerEventDefinition><bpmn:timeDuration>PT0.3S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>' +
    end() +
    flow('f1', 'start', 'wait') +
    flow('f2', 'wait', 'end'),
);

async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  expect((error as EngineError).retryable).toBe(false);
  return error as EngineError;
}

/** A call that a stalled partition would leave unanswered (the engine's own timeout is 10 s). */
const SERVED_WITHIN_MS = 2_000;

/**
 * Starts instances of `one` for `account` until every partition has one,
 * then completes their jobs, each call bounded: a partition that stalls
 * fails this.
 */
async function everyPartitionServes(engine: Engine, account: string): Promise<void> {
  const seen = new Set<number>();
  const keys = new Set<string>();
  for (let i = 0; i < 200 && seen.size < PARTITIONS; i++) {
    const { processInstanceKey } = await within(engine.startInstance(account, 'one', { i }), SERVED_WITHIN_MS, 'a start');
    seen.add(partitionOfKey(processInstanceKey)!);
    keys.add(processInstanceKey);
  }
  expect(seen.size).toBe(PARTITIONS);
  await waitFor(async () => {
    for (const job of await engine.activateJobs(account, 'work', 32, 'checker')) {
      await within(engine.completeJob(account, job.key, { done: true }), SERVED_WITHIN_MS, 'a job completion');
      keys.delete(job.processInstanceKey);
    }
    return keys.size === 0 ? true : undefined;
  }, 'every job of the check to be completed');
}

describe('poison commands: a batch Postgres refuses never stalls its partition', () => {
  let fixture: EngineFixture;
  let engine: Engine;
  let schemaQuery: <R extends object>(sql: string, params?: unknown[]) => Promise<R[]>;

  beforeAll(async () => {
    fixture = await engineFixture();
    engine = await fixture.start({ partitions: PARTITIONS });
    for (const account of ['victim', 'attacker', 'grower']) {
      await engine.deploy(account, ONE_TASK, 'one.bpmn');
      await engine.deploy(account, BAD_OUTPUT, 'bad-output.bpmn');
      await engine.deploy(account, BAD_TIMER, 'bad-timer.bpmn');
    }
    // On the engine's own connection, so it works on PGlite too; the parameters are the test's own keys.
    schemaQuery = <R extends object>(text: string, params: unknown[] = []) =>
      rows<R>(engine.store.db, sql.raw(text.replace(/\$(\d+)/g, (_, n: string) => `'${String(params[Number(n) - 1])}'`)));
  }, 60_000);

  afterAll(() => fixture?.cleanup(), 60_000);

  it('a start with a NUL among concurrent valid starts: only it is rejected, the others commit', async () => {
    const valid = Array.from({ length: 40 }, (_, i) => engine.startInstance('victim', 'one', { n: i }));
    const poisoned = [engine.startInstance('attacker', 'one', { a: 'x\u0000y' }), engine.startInstance('attacker', 'one', { ['\ud800']: 1 })].map(rejection);
    const started = await Promise.all(valid);
    expect(started).toHaveLength(40);
    for (const p of poisoned) {
      const error = await p;
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/could not process this command: Postgres refused to store it/);
    }
    const rows = await schemaQuery<{ n: number }>(`select count(*)::int as n from instances where account = $1`, ['attacker']);
    expect(Number(rows[0].n)).toBe(0);
    await everyPartitionServes(engine, 'victim');
  });

  it('a job completion whose variables cannot be stored is rejected; the instance is untouched and completes afterwards', async () => {
    const { processInstanceKey } = await engine.startInstance('attacker', 'one');
    const job = await waitFor(async () => (await engine.activateJobs('attacker', 'work', 1, 'w'))[0], 'the job');
    const error = await rejection(engine.completeJob('attacker', job.key, { deep: { s: 'a\ud800b' } }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    await everyPartitionServes(engine, 'victim');
    // The same job, completed properly, ends the instance: nothing of the poisoned completion was applied.
    await engine.completeJob('attacker', job.key, { ok: 1 });
    const [row] = await schemaQuery<{ state: string }>(`select state from instances where key = $1`, [processInstanceKey]);
    expect(row.state).toBe('COMPLETED');
  });

  it('a clean completion whose output mapping makes an unstorable value sets its instance aside with an incident', async () => {
    const { processInstanceKey } = await engine.startInstance('attacker', 'bad-output');
    const job = await waitFor(async () => (await engine.activateJobs('attacker', 'bad-work', 1, 'w'))[0], 'the job');
    const error = await rejection(engine.completeJob('attacker', job.key, { fine: true }));
    expect(error.code).toBe('INVALID_STATE');
    expect(error.message).toMatch(new RegExp(`process instance '${processInstanceKey}' was set aside`));
    const [row] = await schemaQuery<{ state: string }>(`select state from instances where key = $1`, [processInstanceKey]);
    expect(row.state).toBe('INCIDENT');
    const incidents = await schemaQuery<{ type: string; element_id: string; message: string }>(
      `select type, element_id, message from incidents where instance_key = $1`,
      [processInstanceKey],
    );
    expect(incidents).toEqual([
      { type: 'UNPROCESSABLE_COMMAND', element_id: 'task', message: expect.stringMatching(/could not be processed: Postgres refused to store it/) },
    ]);
    // Set aside: it takes no more commands but cancel, so it cannot poison another batch.
    expect((await rejection(engine.completeJob('attacker', job.key, { fine: true }))).code).toBe('INVALID_STATE');
    await engine.cancelInstance('attacker', processInstanceKey);
    await everyPartitionServes(engine, 'victim');
  });

  it('a completion that grows an instance past the per-instance variable limit sets it aside with an incident saying so', async () => {
    await engine.deploy('grower', TWO_TASKS, 'two.bpmn');
    const { processInstanceKey } = await engine.startInstance('grower', 'two', { a: 'x'.repeat(LIMITS.maxVariablesBytesPerInstance / 2) });
    const job = await waitFor(async () => (await engine.activateJobs('grower', 'work', 1, 'w'))[0], 'the job');
    // Each request is within its own limit; together they are not.
    await engine.completeJob('grower', job.key, { b: 'y'.repeat(LIMITS.maxVariablesBytesPerInstance / 2 + 10) });
    const [row] = await schemaQuery<{ state: string }>(`select state from instances where key = $1`, [processInstanceKey]);
    expect(row.state).toBe('INCIDENT');
    const incidents = await schemaQuery<{ type: string; message: string }>(`select type, message from incidents where instance_key = $1`, [processInstanceKey]);
    expect(incidents).toEqual([
      { type: 'UNPROCESSABLE_COMMAND', message: expect.stringMatching(/^Its variables outgrew the limits: .* more than the 4194304 allowed/) },
    ]);
  });

  it('a timer whose firing makes an unstorable value sets its instance aside, and the timer goes', async () => {
    const { processInstanceKey } = await engine.startInstance('attacker', 'bad-timer');
    await waitFor(async () => {
      const [row] = await schemaQuery<{ state: string }>(`select state from instances where key = $1`, [processInstanceKey]);
      return row.state === 'INCIDENT' ? true : undefined;
    }, 'the instance to be set aside');
    const incidents = await schemaQuery<{ type: string; element_id: string }>(`select type, element_id from incidents where instance_key = $1`, [
      processInstanceKey,
    ]);
    expect(incidents).toEqual([{ type: 'UNPROCESSABLE_COMMAND', element_id: 'wait' }]);
    const timers = await schemaQuery<{ n: number }>(`select count(*)::int as n from timers where instance_key = $1`, [processInstanceKey]);
    expect(Number(timers[0].n)).toBe(0);
    await everyPartitionServes(engine, 'victim');
  });
});

faultSuite('poison commands across restarts, with the engine in processes of its own', () => {
  let fixture: EngineFixture;
  let api: Engine;
  const shards: ShardProcess[] = [];

  beforeAll(async () => {
    fixture = await engineFixture();
    api = await fixture.start({ role: 'api', partitions: PARTITIONS });
    await api.deploy('acct', ONE_TASK, 'one.bpmn');
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(shards.map((s) => s.stop()));
    await fixture?.cleanup();
  }, 60_000);

  async function shard(): Promise<ShardProcess> {
    const process = new ShardProcess(
      {
        DATABASE_URL: fixture.config.databaseUrl!,
        REDIS_URL: fixture.config.redisUrl!,
        ORCA_DB_SCHEMA: fixture.config.schema!,
        ORCA_REDIS_PREFIX: fixture.config.redisPrefix!,
        ORCA_LEASE_MS: '1000',
      },
      PARTITIONS,
    );
    shards.push(process);
    await process.ready();
    return process;
  }

  const start = (variables: Record<string, unknown>): EngineCommand => ({ kind: 'start', account: 'acct', bpmnProcessId: 'one', variables });

  async function answered(keys: string[]): Promise<Map<string, { ok: boolean; code?: string; message?: string }>> {
    return waitFor(
      async () => {
        const results = await storedResults(fixture.config.schema!, keys);
        return results.size === keys.length ? (results as Map<string, { ok: boolean; code?: string; message?: string }>) : undefined;
      },
      'the commands to be answered',
      30_000,
    );
  }

  it('a poison command left in a stream is rejected by the next leader, and not replayed after both processes restart', async () => {
    // Appended as an API pod of an older version could have: past today's validation, straight into the stream.
    const partition = 1;
    await api.queues.commands.append(partition, { key: 'acct:before', payload: start({ n: 1 }) });
    await api.queues.commands.append(partition, { key: 'acct:poison', payload: start({ a: 'x\u0000y' }) });
    await api.queues.commands.append(partition, { key: 'acct:after', payload: start({ n: 2 }) });
    const first = await shard();
    const results = await answered(['acct:before', 'acct:poison', 'acct:after']);
    expect(results.get('acct:before')).toMatchObject({ ok: true });
    expect(results.get('acct:after')).toMatchObject({ ok: true });
    expect(results.get('acct:poison')).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', message: expect.stringMatching(/Postgres refused to store it/) });
    await waitFor(async () => ((await api.queues.commands.pending(partition)) === 0 ? true : undefined), 'the stream to be acknowledged');
    expect(first.output).toMatch(/"commandKey":"acct:poison".*command rejected/);

    // Both sides restart: the API pod too, on the same data.
    await first.stop();
    await api.close();
    api = await fixture.start({ role: 'api', partitions: PARTITIONS });
    await shard();
    await everyPartitionServes(api, 'acct');
    expect(await storedResults(fixture.config.schema!, ['acct:poison'])).toEqual(new Map([['acct:poison', results.get('acct:poison')]]));
    const [row] = await query<{ n: number }>(
      fixture.config.schema!,
      'select count(*)::int as n from instances where account = $1 and variables::text like $2',
      ['acct', '%"a"%'],
    );
    expect(row.n).toBe(0);
  });

  it('a command earlier leaders kept dying in is recognised from its attempt count and rejected unapplied', async () => {
    await Promise.all(shards.map((s) => s.stop()));
    const partition = 2;
    // A clean start that would succeed: only its history of killed leaders condemns it.
    const entry = await api.queues.commands.append(partition, { key: 'acct:killer', payload: start({ n: 3 }) });
    await api.queues.commands.append(partition, { key: 'acct:next', payload: start({ n: 4 }) });
    // What three leaders that each died replaying this backlog leave behind.
    await api.store.commands.countAttempt(partition, `@replay:${entry}`);
    for (let i = 0; i < 3; i++) await api.store.commands.countAttempt(partition, 'acct:killer');
    const next = await shard();
    const results = await answered(['acct:killer', 'acct:next']);
    expect(results.get('acct:killer')).toMatchObject({
      ok: false,
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/3 leaders began it and stopped before committing it/),
    });
    expect(results.get('acct:next')).toMatchObject({ ok: true });
    expect(next.output).toMatch(/replaying a backlog an earlier leader stopped in/);
    // Through the backlog, the counts are gone.
    await waitFor(async () => {
      const [row] = await query<{ n: number }>(fixture.config.schema!, 'select count(*)::int as n from command_attempts where partition = $1', [partition]);
      return row.n === 0 ? true : undefined;
    }, 'the attempt counts to be cleared');
  });
});
