// Shared pieces of the fault tests (test/faults/*.test.ts). They need a real
// PostgreSQL and a real Redis: without DATABASE_URL and REDIS_URL every suite
// here is skipped, and its title says why. Everything waits with a bound and
// every child process started here is killed when the test process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect } from 'vitest';
import type { EngineConfig } from '../../engine/config.ts';
import { EngineError, type Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';

export const databaseUrl = process.env.DATABASE_URL || undefined;
export const redisUrl = process.env.REDIS_URL || undefined;
export const faultsEnabled = databaseUrl !== undefined && redisUrl !== undefined;

const SKIP_REASON = 'skipped: the fault tests need a real PostgreSQL and Redis; set DATABASE_URL and REDIS_URL';

/** `describe`, or `describe.skip` with the reason in the title (and on stderr) when there is no real Postgres and Redis. */
export function faultSuite(title: string, body: () => void): void {
  if (faultsEnabled) {
    describe(title, body);
    return;
  }
  process.stderr.write(`${title}: ${SKIP_REASON}\n`);
  describe.skip(`${title} — ${SKIP_REASON}`, body);
}

/** One service task of type `work` between start and end. */
export const ONE_TASK = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects with `what` when `promise` has not settled within `ms`: tells a hang from an answer. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (a hang)`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function isRetryable(error: unknown): error is EngineError {
  return error instanceof EngineError && error.retryable;
}

/**
 * Calls `fn` until it answers with anything other than a retryable
 * EngineError (TIMEOUT, UNAVAILABLE, BACKPRESSURE), at most `attempts`
 * times. The caller passes the same command key every time, so a retry
 * yields the original result. `onRetry` counts the retries.
 */
export async function untilAnswered<T>(
  fn: () => Promise<T>,
  options: { attempts?: number; pauseMs?: number; onRetry?: (error: EngineError) => void; stopped?: () => boolean } = {},
): Promise<T> {
  const attempts = options.attempts ?? 30;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isRetryable(error) || attempt >= attempts || options.stopped?.()) throw error;
      options.onRetry?.(error);
      await sleep(options.pauseMs ?? 100);
    }
  }
}

/** Runs `sql` on the test database, in `schema`. */
export async function query<R extends pg.QueryResultRow>(schema: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export interface StoredTruth {
  /** instance key → state */
  instances: Map<string, string>;
  /** instance key → record type → count */
  records: Map<string, Map<string, number>>;
  /** job key → how many JOB_COMPLETED records name it */
  completedJobs: Map<string, number>;
  /** job keys still in the jobs table */
  jobs: Set<string>;
}

/** What Postgres holds for an account: the truth the assertions are made against. */
export async function storedTruth(schema: string, account: string): Promise<StoredTruth> {
  const instances = new Map<string, string>();
  for (const row of await query<{ key: string; state: string }>(schema, 'select key::text as key, state from instances where account = $1', [account])) {
    instances.set(row.key, row.state);
  }
  const records = new Map<string, Map<string, number>>();
  const completedJobs = new Map<string, number>();
  const history = await query<{ instance_key: string; type: string; job_key: string | null }>(
    schema,
    // Records are stored as arrays (engine/store/history-records.ts): type first, job key sixth.
    `select h.instance_key::text as instance_key, r->>0 as type, r->>5 as job_key
     from history h, jsonb_array_elements(h.records) r where h.account = $1`,
    [account],
  );
  for (const row of history) {
    const counts = records.get(row.instance_key) ?? records.set(row.instance_key, new Map()).get(row.instance_key)!;
    counts.set(row.type, (counts.get(row.type) ?? 0) + 1);
    if (row.type === 'JOB_COMPLETED' && row.job_key !== null) completedJobs.set(row.job_key, (completedJobs.get(row.job_key) ?? 0) + 1);
  }
  const jobs = new Set((await query<{ key: string }>(schema, 'select key::text as key from jobs where account = $1', [account])).map((r) => r.key));
  return { instances, records, completedJobs, jobs };
}

/** The results stored in the durable command log for the given (account-scoped) command keys. */
export async function storedResults(schema: string, commandKeys: string[]): Promise<Map<string, unknown>> {
  const rows = await query<{ command_key: string; result: unknown }>(schema, 'select command_key, result from commands where command_key = any($1)', [
    commandKeys,
  ]);
  return new Map(rows.map((r) => [r.command_key, r.result]));
}

/**
 * Load for a running engine: `starters` concurrent loops start instances of
 * `one` with the command keys `${keyPrefix}-0 … -${total - 1}` (each retried
 * with the same key until answered), while `workers` loops activate `work`
 * jobs and complete each with the command key `done-<jobKey>-w<worker>` (a
 * worker retries with its key; another worker that got the job again uses
 * its own). Every answer is recorded; completion of a job delivered twice
 * (after a Redis flush) may be answered NOT_FOUND, which is recorded too.
 */
export class Load {
  /** start command key → processInstanceKey, for every start that was answered. */
  readonly started = new Map<string, string>();
  /** job key → instance key, for every completion that was acknowledged. */
  readonly completed = new Map<string, string>();
  /** job keys whose completion was answered NOT_FOUND (the job was delivered again and completed already). */
  readonly redelivered = new Set<string>();
  /** Command keys that timed out (or were refused) at least once and were sent again with the same key. */
  readonly retried = new Set<string>();
  retries = 0;
  inFlight = 0;
  private stopping = false;
  private readonly errors: unknown[] = [];
  private starting: Promise<void> | undefined;
  private working: Promise<void> | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly account: string,
    private readonly options: { total: number; starters: number; workers: number; keyPrefix?: string; attempts?: number },
  ) {}

  run(): void {
    let next = 0;
    const prefix = this.options.keyPrefix ?? 'start';
    const starter = async () => {
      while (next < this.options.total && this.errors.length === 0 && !this.stopping) {
        const commandKey = `${prefix}-${next++}`;
        this.inFlight++;
        try {
          const started = await untilAnswered(() => this.engine.startInstance(this.account, 'one', { commandKey }, { commandKey }), {
            attempts: this.options.attempts,
            stopped: () => this.stopping,
            onRetry: () => {
              this.retries++;
              this.retried.add(commandKey);
            },
          });
          this.started.set(commandKey, started.processInstanceKey);
        } catch (error) {
          this.errors.push(error);
        } finally {
          this.inFlight--;
        }
      }
    };
    const worker = async (n: number) => {
      while (!this.stopping && this.errors.length === 0) {
        let jobs;
        try {
          jobs = await this.engine.activateJobs(this.account, 'work', 10, `worker-${n}`);
        } catch (error) {
          this.errors.push(error);
          return;
        }
        if (jobs.length === 0) {
          await sleep(20);
          continue;
        }
        for (const job of jobs) {
          this.inFlight++;
          try {
            await untilAnswered(() => this.engine.completeJob(this.account, job.key, { by: n }, { commandKey: `done-${job.key}-w${n}` }), {
              attempts: this.options.attempts,
              stopped: () => this.stopping,
              onRetry: () => {
                this.retries++;
                this.retried.add(`done-${job.key}-w${n}`);
              },
            });
            this.completed.set(job.key, job.processInstanceKey);
          } catch (error) {
            if (error instanceof EngineError && error.code === 'NOT_FOUND') this.redelivered.add(job.key);
            else this.errors.push(error);
          } finally {
            this.inFlight--;
          }
        }
      }
    };
    this.starting = Promise.all(Array.from({ length: this.options.starters }, starter)).then(() => {});
    this.working = Promise.all(Array.from({ length: this.options.workers }, (_, n) => worker(n))).then(() => {});
  }

  /** The first unexpected error, if any (the loops stop on one). */
  failure(): unknown {
    return this.errors[0];
  }

  /** Waits for every start to be answered (bounded by the retry attempts). */
  async startsDone(): Promise<void> {
    await this.starting;
    if (this.errors.length > 0) throw this.errors[0];
  }

  /** Ends the loops (at once after a failed test; after the work is done otherwise). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.working;
    await this.starting;
  }
}

/** Polls `probe` until it returns a value other than undefined; a bounded wait, never a timing assertion. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 15_000, every = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} (${ms} ms)`);
    await sleep(every);
  }
}

const bin = fileURLToPath(new URL('../../bin/orca.js', import.meta.url));
const live = new Set<ChildProcess>();
process.once('exit', () => {
  // Last resort when afterAll never ran: no shard outlives the test process.
  for (const child of live) child.kill('SIGKILL');
});

/** An engine shard in a process of its own: `node bin/orca.js start --role engine`. */
export class ShardProcess {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<void>;

  constructor(env: Record<string, string>, partitions: number) {
    this.child = spawn(process.execPath, [bin, 'start', '--role', 'engine', '--partitions', String(partitions)], {
      // The shard's probes and metrics listen on a free port: shards of one test must not share one.
      // No webhook deliveries: endpoints in tests name addresses that must never be reached.
      env: { ...process.env, PORT: '0', ORCA_WEBHOOK_DISPATCHER: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(this.child);
    const keep = (chunk: Buffer) => {
      // Enough to explain a failure, never unbounded.
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => {
        live.delete(this.child);
        resolve();
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Whether a lease's leader is this process (owners are `<host>-<pid>-<random>`). */
  owns(leader: string | null): boolean {
    return leader !== null && leader.includes(`-${this.pid}-`);
  }

  /** Waits until the process printed `pattern` (it is up) or exited. */
  async ready(pattern = /orca: leading partitions/, ms = 60_000): Promise<void> {
    await waitFor(
      () => {
        if (pattern.test(this.output)) return true;
        if (!this.running) throw new Error(`shard ${this.pid} exited before it was ready:\n${this.output}`);
        return undefined;
      },
      `shard ${this.pid} to start`,
      ms,
    );
  }

  /** SIGTERM (graceful), SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      await within(this.exited, graceMs + 5_000, `shard ${this.pid} to exit`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Waits (bounded) until `count` instances of the account are COMPLETED in
 * Postgres, failing early if the load reported a failure; then stops the
 * load and asserts it ended without one.
 */
/** A shard process on `config`'s store and queues with a lease of `leaseMs`, added to `shards` (which the suite stops afterwards). */
export function spawnShard(config: EngineConfig, leaseMs: number, partitions: number, shards: ShardProcess[]): ShardProcess {
  const shard = new ShardProcess(
    {
      DATABASE_URL: config.databaseUrl!,
      REDIS_URL: config.redisUrl!,
      ORCA_DB_SCHEMA: config.schema,
      ORCA_REDIS_PREFIX: config.redisPrefix,
      ORCA_LEASE_MS: String(leaseMs),
    },
    partitions,
  );
  shards.push(shard);
  return shard;
}

/** A probe for waitFor: true once `shard` holds an unexpired lease on each of the `partitions`, as `engine` reads the leases. */
export function leadsAll(engine: Engine, shard: ShardProcess, partitions: number) {
  return async () => {
    const leases = (await engine.store.leases.listLeases()).filter((l) => l.partition >= 0);
    return leases.length === partitions && leases.every((l) => shard.owns(l.leader) && !l.expired) ? true : undefined;
  };
}

/** Flushes Redis (`flush`) once `load` has had each of `afters` starts acknowledged (and a quarter of them completed). */
export async function flushWhileLoaded(load: Load, afters: number[], flush: () => Promise<unknown>): Promise<void> {
  for (const after of afters) {
    await waitFor(
      () => {
        if (load.failure() !== undefined) throw load.failure();
        return load.started.size >= after && load.completed.size >= after / 4 ? true : undefined;
      },
      `${after} starts to be acknowledged`,
      30_000,
      5,
    );
    await flush();
  }
}

export async function untilAllCompleted(load: Load, schema: string, account: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      if (load.failure() !== undefined) throw load.failure();
      const truth = await storedTruth(schema, account);
      return [...truth.instances.values()].filter((s) => s === 'COMPLETED').length >= count ? true : undefined;
    },
    'every instance to complete',
    60_000,
    100,
  );
  await load.stop();
  expect(load.failure()).toBeUndefined();
}
