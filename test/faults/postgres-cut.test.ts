// Fault: the engine loses PostgreSQL. The engine talks to Postgres through
// a TCP proxy written here, which can refuse (connections reset, port
// closed) or go silent (connections stay open, nothing gets through, as
// with a network partition). While Postgres is unreachable, callers get a
// retryable EngineError within a bounded time rather than a hang; once it is
// back, the same command keys yield their results and nothing acknowledged
// before the cut is lost or applied twice.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EngineError, type Engine } from '../../engine/partition/index.ts';
import type { ActivatedJob } from '../../engine/queue/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { databaseUrl, faultSuite, ONE_TASK, storedResults, storedTruth, untilAnswered, waitFor, within } from './fault-support.ts';

/** How long a caller may take to answer while Postgres is gone; far above the reply timeout, far below "forever". */
const ANSWER_BOUND_MS = 20_000;

/**
 * Splits a Postgres protocol byte stream into messages: a type byte and a
 * length (the client's first message, the startup packet, has no type byte).
 */
class MessageFramer {
  private buffer = Buffer.alloc(0);

  constructor(private untyped: boolean) {}

  push(chunk: Buffer): Buffer[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const messages: Buffer[] = [];
    for (;;) {
      const head = this.untyped ? 0 : 1;
      if (this.buffer.length < head + 4) break;
      const size = head + this.buffer.readInt32BE(head);
      if (this.buffer.length < size) break;
      messages.push(this.buffer.subarray(0, size));
      this.buffer = this.buffer.subarray(size);
      this.untyped = false;
    }
    return messages;
  }
}

/**
 * Whether a client message commits a leader's batch: a COMMIT, or the
 * batch's single statement (engine/store/commit-batch.ts, its own implicit
 * transaction), which opens with a comment naming it. That statement is
 * prepared by name once per connection: later runs send only a Bind naming it.
 */
function commitsBatch(message: Buffer): boolean {
  const sql = sqlOf(message);
  if (sql !== undefined) return /^\s*commit\b/i.test(sql) || sql.startsWith('/* orca:commit-batch */');
  return boundStatementOf(message) === 'orca-commit-batch';
}

/** The SQL of a client message (simple query, or the Parse of an extended one); undefined for others. */
function sqlOf(message: Buffer): string | undefined {
  const type = String.fromCharCode(message[0]);
  if (type !== 'Q' && type !== 'P') return undefined;
  const text = message.subarray(5).toString('utf8');
  return type === 'Q' ? text : text.slice(text.indexOf('\0') + 1);
}

/** The prepared statement a Bind message runs (after the portal name); undefined for other messages. */
function boundStatementOf(message: Buffer): string | undefined {
  if (String.fromCharCode(message[0]) !== 'B') return undefined;
  const body = message.subarray(5);
  const start = body.indexOf(0) + 1;
  return body.subarray(start, body.indexOf(0, start)).toString('utf8');
}

/** A TCP proxy to Postgres that a test can cut, silence, restore, and have drop a connection right after a COMMIT. */
class PgProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: 'up' | 'silent' = 'up';
  private commitTrap: (() => void) | undefined;
  private queryTrap: { pattern: RegExp; fired: () => void } | undefined;
  port = 0;

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  async start(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Refused: every connection is reset and the port is closed. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.destroyAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Silent: connections stay open (new ones are accepted) but no byte gets through. */
  silence(): void {
    this.mode = 'silent';
    for (const socket of this.sockets) socket.pause();
  }

  /** Back: connections from the outage are reset (as a healed network does), new ones work. */
  async restore(): Promise<void> {
    this.mode = 'up';
    this.destroyAll();
    if (!this.server) await this.start();
  }

  /**
   * The next COMMIT goes through to Postgres, which commits; its answer never
   * reaches the client, whose connection is then reset. Resolves once that happened.
   */
  dropNextCommitAnswer(): Promise<void> {
    return new Promise((resolve) => {
      this.commitTrap = resolve;
    });
  }

  /** The next query matching `pattern` never reaches Postgres: its connection is reset instead. */
  failNextQuery(pattern: RegExp): Promise<void> {
    return new Promise((resolve) => {
      this.queryTrap = { pattern, fired: resolve };
    });
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private accept(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    if (this.mode === 'silent') {
      client.pause();
      return;
    }
    const upstream = connect(this.upstreamPort, this.upstreamHost);
    this.sockets.add(upstream);
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    const fromClient = new MessageFramer(true);
    const fromServer = new MessageFramer(false);
    let trapped: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      for (const message of fromClient.push(chunk)) {
        const sql = sqlOf(message);
        if (sql !== undefined && this.queryTrap?.pattern.test(sql)) {
          const { fired } = this.queryTrap;
          this.queryTrap = undefined;
          client.destroy();
          upstream.destroy();
          fired();
          return;
        }
        if (trapped === undefined && this.commitTrap !== undefined && commitsBatch(message)) {
          trapped = this.commitTrap;
          this.commitTrap = undefined;
        }
        upstream.write(message);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (trapped === undefined) {
        client.write(chunk);
        return;
      }
      // Swallow the answer; once Postgres is ready for the next query the COMMIT is done: reset.
      if (fromServer.push(chunk).some((m) => m[0] === 'Z'.charCodeAt(0))) {
        client.destroy();
        upstream.destroy();
        trapped();
      }
    });
  }

  private destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}

function expectRetryable(error: unknown): void {
  expect(error).toBeInstanceOf(EngineError);
  expect((error as EngineError).retryable).toBe(true);
  expect(['TIMEOUT', 'UNAVAILABLE']).toContain((error as EngineError).code);
}

/** The rejection of `promise`, which must come within the bound. */
async function rejectionOf(promise: Promise<unknown>, what: string): Promise<unknown> {
  return within(
    promise.then(
      () => new Error(`${what} succeeded while Postgres was unreachable`),
      (error: unknown) => error,
    ),
    ANSWER_BOUND_MS,
    what,
  );
}

faultSuite('fault: the Postgres connection is cut', () => {
  let fixture: EngineFixture;
  let proxy: PgProxy;
  let engine: Engine;

  beforeAll(async () => {
    fixture = await engineFixture();
    const upstream = new URL(databaseUrl!);
    proxy = new PgProxy(upstream.hostname, Number(upstream.port || 5432));
    await proxy.start();
    const proxied = new URL(databaseUrl!);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    engine = await fixture.start({ databaseUrl: proxied.toString(), partitions: 2, replyTimeoutMs: 1_000 });
  }, 60_000);

  afterAll(async () => {
    // The proxy must outlive the engine: closing it releases the leases through it.
    await proxy?.restore();
    await fixture?.cleanup();
    await proxy?.close();
  }, 60_000);

  async function startAndActivate(account: string, n: number): Promise<{ instances: string[]; jobs: ActivatedJob[] }> {
    await untilAnswered(() => engine.deploy(account, ONE_TASK, 'one.bpmn'));
    const instances: string[] = [];
    for (let i = 0; i < n; i++) {
      instances.push((await untilAnswered(() => engine.startInstance(account, 'one', { i }, { commandKey: `before-${i}` }))).processInstanceKey);
    }
    const jobs: ActivatedJob[] = [];
    await waitFor(async () => {
      jobs.push(...(await engine.activateJobs(account, 'work', n, 'w')));
      return jobs.length === n ? true : undefined;
    }, `${n} jobs to activate`);
    return { instances, jobs };
  }

  /** After the outage: finish everything with the same command keys, then check the truth. */
  async function finishAndVerify(
    account: string,
    before: { instances: string[]; jobs: ActivatedJob[] },
    during: { startKey: string; doneJob: ActivatedJob; doneKey: string },
  ) {
    const late = await untilAnswered(() => engine.startInstance(account, 'one', {}, { commandKey: during.startKey }), { attempts: 60 });
    await untilAnswered(() => engine.completeJob(account, during.doneJob.key, { late: true }, { commandKey: during.doneKey }), { attempts: 60 });
    // Retrying an acknowledged completion with its key answers it again; completing it anew finds nothing.
    await engine.completeJob(account, during.doneJob.key, { late: true }, { commandKey: during.doneKey });
    await expect(engine.completeJob(account, during.doneJob.key, {}, { commandKey: `${during.doneKey}-again` })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    for (const job of before.jobs) {
      if (job.key !== during.doneJob.key) await untilAnswered(() => engine.completeJob(account, job.key, {}, { commandKey: `done-${job.key}` }));
    }
    const lateJob = await waitFor(async () => (await engine.activateJobs(account, 'work', 1, 'w'))[0], "the late instance's job");
    expect(lateJob.processInstanceKey).toBe(late.processInstanceKey);
    await untilAnswered(() => engine.completeJob(account, lateJob.key, {}, { commandKey: `done-${lateJob.key}` }));

    const truth = await storedTruth(fixture.config.schema!, account);
    const all = [...before.instances, late.processInstanceKey];
    expect(truth.instances.size).toBe(all.length);
    for (const key of all) expect(truth.instances.get(key)).toBe('COMPLETED');
    for (const [instanceKey, counts] of truth.records) {
      expect({ instanceKey, started: counts.get('PROCESS_INSTANCE_STARTED'), jobDone: counts.get('JOB_COMPLETED') }).toEqual({
        instanceKey,
        started: 1,
        jobDone: 1,
      });
    }
    expect(truth.completedJobs.get(during.doneJob.key)).toBe(1);
    expect(truth.jobs.size).toBe(0);
    const results = await storedResults(fixture.config.schema!, [`${account}:${during.startKey}`]);
    expect(results.get(`${account}:${during.startKey}`)).toMatchObject({ ok: true, value: { processInstanceKey: late.processInstanceKey } });
  }

  it('refused: callers get a retryable error, not a hang; after it is back nothing acknowledged is lost', async () => {
    const account = 'acct-pg-refused';
    const before = await startAndActivate(account, 5);

    await proxy.cut();
    const startError = await rejectionOf(engine.startInstance(account, 'one', {}, { commandKey: 'during-start' }), 'a start');
    expectRetryable(startError);
    const completeError = await rejectionOf(engine.completeJob(account, before.jobs[0].key, { late: true }, { commandKey: 'during-done' }), 'a completion');
    expectRetryable(completeError);
    const deployError = await rejectionOf(engine.deploy(account, ONE_TASK.replace('type="work"', 'type="other"'), 'one.bpmn'), 'a deploy');
    expectRetryable(deployError);
    expect((deployError as EngineError).code).toBe('UNAVAILABLE');
    // Activation is served from Redis alone and keeps answering.
    await within(engine.activateJobs(account, 'work', 1, 'w'), ANSWER_BOUND_MS, 'an activation');

    await proxy.restore();
    await finishAndVerify(account, before, { startKey: 'during-start', doneJob: before.jobs[0], doneKey: 'during-done' });
  }, 120_000);

  it('silent (packets dropped): callers still get a retryable error in bounded time; service resumes once it is back', async () => {
    const account = 'acct-pg-silent';
    const before = await startAndActivate(account, 5);

    proxy.silence();
    const startError = await rejectionOf(engine.startInstance(account, 'one', {}, { commandKey: 'silent-start' }), 'a start');
    expectRetryable(startError);
    const completeError = await rejectionOf(engine.completeJob(account, before.jobs[0].key, { late: true }, { commandKey: 'silent-done' }), 'a completion');
    expectRetryable(completeError);

    await proxy.restore();
    await finishAndVerify(account, before, { startKey: 'silent-start', doneJob: before.jobs[0], doneKey: 'silent-done' });
  }, 120_000);

  it('the connection drops right after COMMIT reached Postgres, then Postgres stays away: the batch counts once, and its job is queued', async () => {
    const account = 'acct-pg-commit';
    await untilAnswered(() => engine.deploy(account, ONE_TASK, 'one.bpmn'));
    const trapped = proxy.dropNextCommitAnswer();
    const first = rejectionOf(engine.startInstance(account, 'one', {}, { commandKey: 'ambiguous' }), 'a start whose commit answer was lost');
    await within(trapped, ANSWER_BOUND_MS, 'the batch COMMIT');
    // Postgres committed, the leader saw its connection die, and now it cannot reach Postgres to find out.
    await proxy.cut();
    expectRetryable(await first);
    expect(await storedTruth(fixture.config.schema!, account).then((t) => t.instances.size)).toBe(1);

    await proxy.restore();
    const started = await untilAnswered(() => engine.startInstance(account, 'one', {}, { commandKey: 'ambiguous' }), { attempts: 60 });
    // The failed leader never pushed that batch's job; only recovery from Postgres can have queued it.
    const job = await waitFor(async () => (await engine.activateJobs(account, 'work', 1, 'w'))[0], "the committed instance's job");
    expect(job.processInstanceKey).toBe(started.processInstanceKey);
    await untilAnswered(() => engine.completeJob(account, job.key, {}, { commandKey: `done-${job.key}` }));
    const truth = await storedTruth(fixture.config.schema!, account);
    expect([...truth.instances]).toEqual([[started.processInstanceKey, 'COMPLETED']]);
    expect(truth.records.get(started.processInstanceKey)?.get('PROCESS_INSTANCE_STARTED')).toBe(1);
    expect(truth.completedJobs.get(job.key)).toBe(1);
  }, 120_000);

  it('the connection drops right after COMMIT reached Postgres and the first recovery fails too: nothing is applied before a recovery succeeds', async () => {
    const account = 'acct-pg-recovery';
    await untilAnswered(() => engine.deploy(account, ONE_TASK, 'one.bpmn'));
    const trapped = proxy.dropNextCommitAnswer();
    // The leader's recovery starts by loading the partition's live instances; that read fails once.
    const recoveryFailed = proxy.failNextQuery(/from "instances" where \("instances"\."partition" = /);
    const started = await untilAnswered(() => engine.startInstance(account, 'one', {}, { commandKey: 'ambiguous-2' }), { attempts: 60 });
    await within(Promise.all([trapped, recoveryFailed]), ANSWER_BOUND_MS, 'the COMMIT and the first recovery read');
    // The job of the batch whose commit looked failed exists only in Postgres: a leader that answered the
    // replayed command without a successful recovery would never queue it.
    const job = await waitFor(async () => (await engine.activateJobs(account, 'work', 1, 'w'))[0], "the committed instance's job");
    expect(job.processInstanceKey).toBe(started.processInstanceKey);
    await untilAnswered(() => engine.completeJob(account, job.key, {}, { commandKey: `done-${job.key}` }));
    const truth = await storedTruth(fixture.config.schema!, account);
    expect([...truth.instances]).toEqual([[started.processInstanceKey, 'COMPLETED']]);
    expect(truth.records.get(started.processInstanceKey)?.get('PROCESS_INSTANCE_STARTED')).toBe(1);
  }, 120_000);
});
