// createEngine(config): the durable engine behind one programmatic API, for
// the REST layer and tests. It opens the store (migrating it) and the queues,
// runs a shard (role `all` or `engine`), and serves the API side (role `all`
// or `api`): commands go to the owning partition's stream and wait for the
// committed reply; job activation is served from the queues directly.
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { compileDmn } from '../dmn/index.ts';
import { compileBpmn } from '../model/index.ts';
import type { ModelProblem } from '../model/types.ts';
import { createQueues, type ActivatedJob, type Queues } from '../queue/index.ts';
import type { Variables } from '../runtime/types.ts';
import { createStore, openDatabase, StoreUnavailableError, type Database, type Store } from '../store/index.ts';
import type { CommandReply, EngineCommand, StartedInstance } from './commands.ts';
import { EngineError } from './engine-error.ts';
import { createRedisFlushMarker, type FlushMarker } from './flush-marker.ts';
import { MAX_PARTITIONS, partitionOfKey } from './keys.ts';
import { ModelCache } from './model-cache.ts';
import { LeaderGone } from './partition-leader.ts';
import { Shard } from './shard.ts';

export interface EngineConfig {
  databaseUrl?: string;
  redisUrl?: string;
  /** PGlite data directory when there is no databaseUrl ('memory://' for tests). */
  dataDir?: string;
  /** Postgres schema (tests use one per run). */
  schema?: string;
  redisPrefix?: string;
  partitions?: number;
  role?: 'all' | 'api' | 'engine';
  /** Shard identity for leases; unique per process. */
  owner?: string;
  leaseMs?: number;
  /** How long an API call waits for its committed reply. */
  replyTimeoutMs?: number;
  /** A partition with more commands waiting than this refuses new starts (503, retryable). */
  maxPendingCommands?: number;
  /**
   * How long a command's result stays in the command log (default 24 hours):
   * a retry with the same command key within it gets the original result.
   */
  commandRetentionMs?: number;
  /**
   * On Postgres, the partition leaders' group commit runs in a worker thread
   * of its own (commit-thread.ts; default true). False keeps it on the main
   * thread, going through `store.commitBatches` — for tests that hold or
   * fail commits there.
   */
  commitThread?: boolean;
}

export class ModelRejected extends EngineError {
  constructor(readonly problems: ModelProblem[]) {
    super('INVALID_ARGUMENT', `The model is invalid: ${problems.map((p) => (p.elementId ? `[${p.elementId}] ` : '') + p.message).join(' ')}`);
  }
}

export interface Engine {
  readonly store: Store;
  readonly queues: Queues;
  readonly partitions: number;
  deploy(account: string, xml: string, resourceName: string): Promise<{ bpmnProcessId: string; version: number; isNew: boolean }[]>;
  deployDecisions(account: string, xml: string, resourceName: string): Promise<{ decisionId: string; version: number; isNew: boolean }[]>;
  startInstance(account: string, bpmnProcessId: string, variables?: Variables, options?: { commandKey?: string }): Promise<StartedInstance>;
  activateJobs(account: string, type: string, max: number, worker: string, requestTimeoutMs?: number): Promise<ActivatedJob[]>;
  completeJob(account: string, jobKey: string, variables?: Variables, options?: { commandKey?: string }): Promise<void>;
  failJob(account: string, jobKey: string, retries: number, errorMessage?: string, options?: { commandKey?: string }): Promise<void>;
  cancelInstance(account: string, instanceKey: string): Promise<void>;
  /** Partitions this process leads (role all/engine). */
  ownedPartitions(): number[];
  close(): Promise<void>;
}

export async function createEngine(config: EngineConfig = {}): Promise<Engine> {
  const partitions = config.partitions ?? 8;
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
    throw new EngineError('INVALID_ARGUMENT', `partitions must be a whole number from 1 to ${MAX_PARTITIONS}, not ${partitions}`);
  }
  const role = config.role ?? 'all';
  let database: Database | undefined;
  let queues: Queues | undefined;
  let shard: Shard | undefined;
  let marker: FlushMarker | undefined;
  try {
    database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, schema: config.schema });
    await database.migrate();
    queues = await createQueues({ redisUrl: config.redisUrl, prefix: config.redisPrefix });
    const store = createStore(database.db, database.writer);
    const models = new ModelCache(store);
    if (role !== 'api') {
      // Same default prefix as the queues', so the marker sits beside the keys it vouches for.
      if (config.redisUrl) marker = await createRedisFlushMarker(config.redisUrl, config.redisPrefix ?? 'orca:');
      shard = new Shard({
        store,
        queues,
        models,
        partitions,
        owner: config.owner ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
        leaseMs: config.leaseMs ?? 5_000,
        marker,
        commandRetentionMs: config.commandRetentionMs,
        commitThread: config.commitThread === false ? undefined : database.writerConnection,
      });
      await shard.start();
    }
    return engineApi({ store, queues, models, shard, marker, database, partitions, config });
  } catch (err) {
    await shard?.stop();
    await marker?.close();
    await queues?.close();
    await database?.close();
    throw err;
  }
}

/** FNV-1a over the text, onto a partition: stable across pods and restarts. */
function hashToPartition(text: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash % partitions;
}

/**
 * The promise's value, or undefined once `ms` passed first (the work goes on;
 * its result is dropped). Every command waits through one, so it makes one
 * promise and one timer rather than an async frame, a timeout promise and a
 * race.
 */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms, undefined);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Keys for the commands no client named (`fresh`): unique to this engine's
 * run by a random prefix, then a counter — no colon, so never a client's
 * account-scoped key. A randomUUID per command was a visible share of the
 * command path's allocation.
 */
function freshKeys(): () => string {
  const prefix = randomUUID();
  let next = 0;
  return () => `${prefix}.${(next++).toString(36)}`;
}

/** Client-chosen command keys are scoped by account, so two accounts' keys never collide. */
function scoped(account: string, commandKey: string | undefined): string | undefined {
  return commandKey === undefined ? undefined : `${account}:${commandKey}`;
}

/** The store being unreachable is the caller's retryable UNAVAILABLE, not an internal error. */
async function unavailableAsEngineError<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw new EngineError('UNAVAILABLE', `The database is unavailable; retry shortly. (${err.message})`);
    throw err;
  }
}

function engineApi(parts: { store: Store; queues: Queues; models: ModelCache; shard?: Shard; marker?: FlushMarker; database: Database; partitions: number; config: EngineConfig }): Engine {
  const { store, queues, models, shard, marker, database, partitions, config } = parts;
  const replyTimeoutMs = config.replyTimeoutMs ?? 10_000;
  const maxPending = config.maxPendingCommands ?? 10_000;
  const freshKey = freshKeys();

  /**
   * Sends a command and waits for its committed reply. With `limit`, the
   * command is accepted only while fewer than `limit` commands are pending
   * on the partition (else BACKPRESSURE, nothing appended). When this
   * process leads the partition, the command goes to the leader in memory
   * (the same batch, commit and reply, without the stream and pub/sub round
   * trips); otherwise, or when that leader stops first, over the stream.
   */
  async function send(partition: number, command: EngineCommand, commandKey?: string, limit?: number): Promise<CommandReply & { ok: true }> {
    const key = commandKey ?? freshKey();
    // `command` is the caller's literal, made for this call: marked in place rather than copied.
    if (commandKey === undefined) command.fresh = true;
    let payload = command;
    let reply: CommandReply | undefined;
    let viaStream = true;
    const local = shard?.leaderOf(partition)?.submit(key, payload, limit);
    if (local === 'full') throw backpressure(partition);
    if (local !== undefined) {
      try {
        reply = await withTimeout(local, replyTimeoutMs);
        viaStream = false;
      } catch (err) {
        if (!(err instanceof LeaderGone)) throw err;
        if (err.mayBeApplied) {
          // It may have been applied: it goes without its fresh mark, so the next leader looks it up.
          const { fresh: _fresh, ...unmarked } = command;
          payload = err.batchKey === undefined ? unmarked : { ...unmarked, batchKey: err.batchKey };
        }
      }
    }
    if (viaStream) reply = await sendOverStream(partition, key, payload, limit);
    if (reply === undefined) {
      throw new EngineError('TIMEOUT', `No committed answer from partition ${partition} within ${replyTimeoutMs} ms; retry with the same command key to get the original result.`);
    }
    if (!reply.ok) throw new EngineError(reply.code, reply.message);
    return reply;
  }

  function backpressure(partition: number): EngineError {
    return new EngineError('BACKPRESSURE', `Partition ${partition} has more than ${maxPending} commands waiting; retry shortly.`);
  }

  /** The stream path: undefined when no reply came in time. */
  async function sendOverStream(partition: number, key: string, payload: EngineCommand, limit?: number): Promise<CommandReply | undefined> {
    // Register for the reply before the command exists: no reply can come first.
    const expected = await queues.replies.expectReply(key, replyTimeoutMs);
    let outcome: 'appended' | 'full' = 'appended';
    try {
      const entry = { key, payload, replyTo: expected.channel };
      if (limit === undefined) await queues.commands.append(partition, entry);
      else outcome = await queues.commands.appendIfBelow(partition, entry, limit);
    } catch (err) {
      expected.cancel();
      throw err;
    }
    if (outcome === 'full') {
      expected.cancel();
      throw backpressure(partition);
    }
    return (await expected.promise) as CommandReply | undefined;
  }

  function partitionOf(key: string, what: string): number {
    const partition = partitionOfKey(key);
    if (partition === undefined || partition >= partitions) throw new EngineError('NOT_FOUND', `${what} '${key}' not found.`);
    return partition;
  }

  return {
    store,
    queues,
    partitions,

    async deploy(account, xml, resourceName) {
      const compiled = compileBpmn(xml);
      if (!compiled.ok) throw new ModelRejected(compiled.problems);
      const results = await unavailableAsEngineError(() =>
        store.definitions.deployProcesses(
          account,
          compiled.model.processes.map((p) => ({ bpmnProcessId: p.id, resourceName, xml })),
        ),
      );
      models.invalidate(account);
      // A new version (re)arms its timer start events and withdraws the previous version's,
      // on the partition that owns this process's start timers.
      for (const r of results) {
        const process = compiled.model.processes.find((p) => p.id === r.bpmnProcessId)!;
        const hasTimerStart = process.startEvents.some((id) => process.elements[id].eventDefinition?.kind === 'timer');
        if (!r.isNew || (!hasTimerStart && r.version === 1)) continue;
        const partition = hashToPartition(`${account}\u0000${r.bpmnProcessId}`, partitions);
        await send(partition, { kind: 'scheduleStartTimers', account, bpmnProcessId: r.bpmnProcessId, version: r.version }, `${account}:start-timers:${r.bpmnProcessId}:${r.version}`);
      }
      return results.map((r) => ({ bpmnProcessId: r.bpmnProcessId, version: r.version, isNew: r.isNew }));
    },

    async deployDecisions(account, xml, resourceName) {
      const compiled = compileDmn(xml);
      if (!compiled.ok) throw new ModelRejected(compiled.problems);
      const results = await unavailableAsEngineError(() =>
        store.decisions.deployDecisions(
          account,
          compiled.model.decisions.map((d) => ({ decisionId: d.id, decisionName: d.name, resourceName, xml })),
        ),
      );
      models.invalidate(account);
      return results.map((r) => ({ decisionId: r.decisionId, version: r.version, isNew: r.isNew }));
    },

    async startInstance(account, bpmnProcessId, variables = {}, options = {}) {
      // A retried start with the same command key must reach the same partition to find its first result.
      const partition = options.commandKey === undefined ? Math.floor(Math.random() * partitions) : hashToPartition(`${account}\u0000${options.commandKey}`, partitions);
      const commandKey = scoped(account, options.commandKey);
      // Refused when more than maxPending commands wait: appended only while at most maxPending do.
      const reply = await send(partition, { kind: 'start', account, bpmnProcessId, variables }, commandKey, maxPending + 1);
      return reply.value as StartedInstance;
    },

    async activateJobs(account, type, max, worker, requestTimeoutMs) {
      const jobs = await queues.jobs.activate(account, type, max, worker);
      if (jobs.length > 0 || !requestTimeoutMs) return jobs;
      // Long polling (extension): wait for a push, then try once more.
      if (!(await queues.jobs.waitForJobs(account, type, requestTimeoutMs))) return [];
      return queues.jobs.activate(account, type, max, worker);
    },

    async completeJob(account, jobKey, variables, options = {}) {
      await send(partitionOf(jobKey, 'Job'), { kind: 'completeJob', account, jobKey, variables }, scoped(account, options.commandKey));
    },

    async failJob(account, jobKey, retries, errorMessage, options = {}) {
      await send(partitionOf(jobKey, 'Job'), { kind: 'failJob', account, jobKey, retries, errorMessage }, scoped(account, options.commandKey));
    },

    async cancelInstance(account, instanceKey) {
      await send(partitionOf(instanceKey, 'Process instance'), { kind: 'cancel', account, instanceKey });
    },

    ownedPartitions: () => shard?.owned() ?? [],

    async close() {
      await shard?.stop();
      await marker?.close();
      await queues.close();
      await database.close();
    },
  };
}
