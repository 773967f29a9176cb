// The partition leader builds its next batch while the one before is being
// committed (engine/partition/leader/pipeline.ts). What that must not change: a
// retry of a command in the batch still committing gets that command's
// result (it is not applied twice); a command for an instance that batch
// ends finds it ended; and when that batch fails, every command of it and
// of the batch built on it is applied exactly once after recovery (that the
// batch built on a failed one is never sent: commit-group.test.ts). And
// keyless commands of this process, whose results are logged one row per
// batch: when a commit reports failure but did commit, each is answered
// with its first result after recovery, not applied again — by this leader,
// or by whoever reads the command when it is handed back over the stream.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { BatchRejectedError, rows, type BatchOutcome, type CommitInput } from '../../engine/store/index.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-pipeline';
const oneTask = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

let fixture: EngineFixture;
let engine: Engine;
/** A commit statement held back until released (and then failed with `fail`, when given). */
interface Hold {
  reached: Promise<void>;
  release(fail?: Error): void;
}
let pending: { gate: Promise<Error | undefined>; reach: () => void } | undefined;
/** The next statement commits, then reports this error (a connection lost after the commit). */
let failAfterCommit: Error | undefined;
let statements: CommitInput[][] = [];

/** Holds the next commit statement until `release` is called. */
function holdNextCommit(): Hold {
  let reach!: () => void;
  let release!: (fail?: Error) => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  pending = { gate: new Promise<Error | undefined>((resolve) => (release = resolve)), reach };
  return { reached, release };
}

beforeAll(async () => {
  fixture = await engineFixture();
  // The commits stay on the main thread, through the store object this test wraps.
  engine = await fixture.start({ partitions: 1 }, { commitThread: false });
  await engine.deploy(ACCOUNT, oneTask, 'one.bpmn');
  // The shard's commit group calls the store object the engine exposes.
  const commitBatches = engine.store.commitBatches;
  engine.store.commitBatches = async (batches): Promise<BatchOutcome[]> => {
    statements.push([...batches]);
    const held = pending;
    if (held !== undefined) {
      pending = undefined;
      held.reach();
      const fail = await held.gate;
      if (fail) throw fail;
    }
    const outcomes = await commitBatches(batches);
    const lost = failAfterCommit;
    failAfterCommit = undefined;
    if (lost) throw lost;
    return outcomes;
  };
});
afterAll(() => fixture.cleanup());
beforeEach(() => {
  statements = [];
});

async function instancesNamed(marker: string): Promise<string[]> {
  const page = await engine.store.instances.listInstances(ACCOUNT, { variable: { name: 'marker', value: marker }, limit: 100 });
  return page.items.map((i) => i.key);
}

describe('a leader that builds the next batch while one commits', () => {
  it('answers a retry of a command still being committed with its result, applied once', async () => {
    const held = holdNextCommit();
    const first = engine.startInstance(ACCOUNT, 'one', { marker: 'retry' }, { commandKey: 'pipe-retry' });
    await held.reached;
    // Built while the first is in flight: the command log cannot know it yet.
    const retry = engine.startInstance(ACCOUNT, 'one', { marker: 'retry' }, { commandKey: 'pipe-retry' });
    const other = engine.startInstance(ACCOUNT, 'one', { marker: 'retry-other' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release();
    const [a, b, c] = await Promise.all([first, retry, other]);
    expect(b).toEqual(a);
    expect(c.processInstanceKey).not.toBe(a.processInstanceKey);
    expect(await instancesNamed('retry')).toEqual([a.processInstanceKey]);
    // The batches went one after the other, the held one first.
    expect(statements.length).toBeGreaterThanOrEqual(2);
  });

  it('finds an instance ended by the batch being committed ended, not alive in its stale row', async () => {
    const started = await engine.startInstance(ACCOUNT, 'one', { marker: 'ended' });
    // Earlier tests left jobs queued too: take them all and keep this instance's.
    const job = await eventually(
      async () => (await engine.activateJobs(ACCOUNT, 'work', 100, 'w')).find((j) => j.processInstanceKey === started.processInstanceKey),
      'the job',
    );
    const held = holdNextCommit();
    const completion = engine.completeJob(ACCOUNT, job.key, { n: 1 });
    await held.reached;
    // The job's row and the instance's ACTIVE row are still in Postgres: only memory knows better.
    const again = engine.completeJob(ACCOUNT, job.key, { n: 2 }).then(
      () => 'completed twice',
      (e: unknown) => (e as { code?: string }).code,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release();
    await completion;
    expect(await again).toBe('NOT_FOUND');
    const row = await engine.store.instances.getInstance(ACCOUNT, started.processInstanceKey);
    expect(row?.document.state).toBe('COMPLETED');
    expect(row?.variables).toMatchObject({ n: 1 });
    const history = await engine.store.history.listHistory(ACCOUNT, started.processInstanceKey, { limit: 100 });
    expect(history.items.filter((e) => e.record.type === 'JOB_COMPLETED')).toHaveLength(1);
  });

  it('sends nothing more while a batch is failing, and applies the commands of it and of the batch built on it once after recovery', async () => {
    const held = holdNextCommit();
    const first = engine.startInstance(ACCOUNT, 'one', { marker: 'failed-1' });
    await held.reached;
    const second = engine.startInstance(ACCOUNT, 'one', { marker: 'failed-2' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sentBeforeFailure = statements.length;
    held.release(new Error('connection lost mid-commit'));
    const [a, b] = await Promise.all([first, second]);
    // The second batch was never sent on the failed one: the next statements come from after recovery.
    expect(sentBeforeFailure).toBe(1);
    expect(await instancesNamed('failed-1')).toEqual([a.processInstanceKey]);
    expect(await instancesNamed('failed-2')).toEqual([b.processInstanceKey]);
  });

  it('blames a batch Postgres refused, not the batch built on it: only the refused command is rejected', async () => {
    const held = holdNextCommit();
    const refused = engine.startInstance(ACCOUNT, 'one', { marker: 'refused-1' }).then(
      () => 'started',
      (e: unknown) => (e as { code?: string }).code,
    );
    await held.reached;
    const innocent = engine.startInstance(ACCOUNT, 'one', { marker: 'refused-2' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release(new BatchRejectedError('a value the test refuses', '22P05'));
    expect(await refused).toBe('INVALID_ARGUMENT');
    const started = await innocent;
    expect(await instancesNamed('refused-2')).toEqual([started.processInstanceKey]);
    expect(await instancesNamed('refused-1')).toEqual([]);
  });

  it('applies the commands of a batch that fails while the leader waits for more work once after recovery', async () => {
    // Nothing else comes: the leader hands the batch in and waits for work, where the failure finds it.
    const held = holdNextCommit();
    const alone = engine.startInstance(ACCOUNT, 'one', { marker: 'failed-alone' });
    await held.reached;
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release(new Error('connection lost mid-commit'));
    const started = await alone;
    expect(await instancesNamed('failed-alone')).toEqual([started.processInstanceKey]);
  });

  it('answers keyless commands of a batch that committed though its commit failed from the results logged with the batch, applied once', async () => {
    const held = holdNextCommit();
    const opener = engine.startInstance(ACCOUNT, 'one', { marker: 'lost-reply-0' });
    await held.reached;
    // These three wait for the held statement and go together in the next batch.
    const starts = [1, 2, 3].map((n) => engine.startInstance(ACCOUNT, 'one', { marker: `lost-reply-${n}` }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    failAfterCommit = new Error('connection lost after the commit');
    held.release();
    // The opener's statement commits and fails: its batch goes through recovery, and so does the batch of three.
    const [zero, ...others] = await Promise.all([opener, ...starts]);
    for (const [n, started] of [zero, ...others].entries()) expect(await instancesNamed(`lost-reply-${n}`)).toEqual([started.processInstanceKey]);
    // Logged per batch: no row under the keys made up for these calls.
    const log = await rows<{ key: string }>(engine.store.db, sql`select command_key as key from commands`);
    expect(log.some((r) => r.key.startsWith('@batch:'))).toBe(true);
    expect(log.filter((r) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(r.key))).toEqual([]);
  });

  it('answers a command handed back over the stream from the result its batch logged, without applying it again', async () => {
    // As a leader that stopped after an ambiguous commit leaves it: the batch's
    // row holds the command's result, and the caller re-sends the command
    // over the stream, without its fresh mark, naming that batch.
    const logged = { ok: true, value: { processInstanceKey: '4242', bpmnProcessId: 'one', version: 1, state: 'ACTIVE' } };
    await rows(
      engine.store.db,
      sql`insert into commands (partition, command_key, result) values (0, '@batch:handed-back', ${JSON.stringify({ 'cmd-handed-back': logged })}::jsonb)`,
    );
    const expected = await engine.queues.replies.expectReply('cmd-handed-back', 10_000);
    await engine.queues.commands.append(0, {
      key: 'cmd-handed-back',
      payload: { kind: 'start', account: ACCOUNT, bpmnProcessId: 'one', variables: { marker: 'handed-back' }, batchKey: '@batch:handed-back' },
      replyTo: expected.channel,
    });
    expect(await expected.promise).toEqual(logged);
    expect(await instancesNamed('handed-back')).toEqual([]);
  });
});
