// Job queues in Redis (DESIGN.md §4, "activate jobs"): activation is one
// EVALSHA on the (account, type) queue, a push is one pipeline (one script
// call per account plus the partition registries), and long polls listen on
// the shared subscriber. Key layout in keys.ts, semantics in ../types.ts.
// The leader's writes also come as stage* methods that add them to a
// pipeline of the caller's, so a whole Publication is one round trip.
import type { ChainableCommander, Redis } from 'ioredis';
import type { Variables } from '../../runtime/types.ts';
import { activationCount, assertPartition, decodeActivated, encodeOffer, encodeVariables } from '../job-payload.ts';
import type { ActivatedJob, JobQueue, QueuedJob, RebuildResult, StoredJob } from '../types.ts';
import { type Cancellable, Wait } from '../wait.ts';
import type { QueueKeys } from './keys.ts';
import type { Subscriber } from './subscriber.ts';

/** Jobs per rebuild-upsert call: bounds how long one script holds Redis. */
const REBUILD_CHUNK = 500;

type PipelineResult = [error: Error | null, result: unknown][] | null;

export function check(results: PipelineResult): unknown[] {
  if (!results) throw new Error('Redis pipeline was discarded');
  return results.map(([error, result]) => {
    if (error) throw error;
    return result;
  });
}

function groupByAccount<T extends { account: string }>(jobs: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const job of jobs) {
    const group = groups.get(job.account);
    if (group) group.push(job);
    else groups.set(job.account, [job]);
  }
  return groups;
}

export class RedisJobQueue implements JobQueue {
  readonly #redis: Redis;
  readonly #keys: QueueKeys;
  readonly #subscriber: Subscriber;
  readonly #waits: Set<Cancellable>;
  readonly #now: () => number;

  constructor(redis: Redis, keys: QueueKeys, subscriber: Subscriber, waits: Set<Cancellable>, now: () => number = Date.now) {
    this.#redis = redis;
    this.#keys = keys;
    this.#subscriber = subscriber;
    this.#waits = waits;
    this.#now = now;
  }

  async push(jobs: readonly QueuedJob[]): Promise<number> {
    if (jobs.length === 0) return 0;
    const pipeline = this.#redis.pipeline();
    const scripts = this.stagePush(pipeline, jobs);
    const results = check(await pipeline.exec());
    let added = 0;
    for (let i = 0; i < scripts; i++) added += Number(results[i]);
    return added;
  }

  /**
   * Adds a push to `pipeline`: one script call per account (each answers
   * how many jobs it newly queued), then the partition registries. Returns
   * the number of script calls.
   */
  stagePush(pipeline: ChainableCommander, jobs: readonly QueuedJob[]): number {
    const accountsByPartition = new Map<number, Set<string>>();
    const groups = groupByAccount(jobs);
    for (const [account, group] of groups) {
      const args: (string | number)[] = [this.#keys.account(account)];
      for (const job of group) {
        assertPartition(job.partition);
        args.push(job.key, job.type, job.partition, encodeOffer(job), encodeVariables(job.variables));
        let accounts = accountsByPartition.get(job.partition);
        if (!accounts) accountsByPartition.set(job.partition, (accounts = new Set()));
        accounts.add(account);
      }
      pipeline.orcaPushJobs(this.#keys.seq(account), ...args);
    }
    // The registries only tell rebuild where to look; a superset is harmless.
    for (const [partition, accounts] of accountsByPartition) {
      pipeline.sadd(this.#keys.partitionAccounts(partition), ...accounts);
    }
    return groups.size;
  }

  async activate(account: string, type: string, max: number, worker: string): Promise<ActivatedJob[]> {
    const count = activationCount(max);
    if (count === 0) return [];
    const at = this.#now();
    const flat = await this.#redis.orcaActivateJobs(
      this.#keys.queue(account, type),
      this.#keys.active(account),
      count,
      worker,
      at,
      this.#keys.account(account),
    );
    const jobs: ActivatedJob[] = [];
    for (let i = 0; i < flat.length; i += 3) {
      jobs.push(decodeActivated(account, Number(flat[i + 2]), flat[i], flat[i + 1], worker, at));
    }
    return jobs;
  }

  async updateVariables(account: string, jobKey: string, variables: Variables): Promise<boolean> {
    return (await this.#redis.orcaUpdateVariables(this.#keys.job(account, jobKey), encodeVariables(variables))) === 1;
  }

  stageUpdateVariables(pipeline: ChainableCommander, account: string, jobKey: string, variables: Variables): void {
    pipeline.orcaUpdateVariables(this.#keys.job(account, jobKey), encodeVariables(variables));
  }

  async remove(account: string, jobKeys: readonly string[]): Promise<number> {
    if (jobKeys.length === 0) return 0;
    return Number(await this.#redis.orcaRemoveJobs(this.#keys.active(account), this.#keys.account(account), ...jobKeys));
  }

  stageRemove(pipeline: ChainableCommander, account: string, jobKeys: readonly string[]): void {
    if (jobKeys.length > 0) pipeline.orcaRemoveJobs(this.#keys.active(account), this.#keys.account(account), ...jobKeys);
  }

  async requeue(job: QueuedJob): Promise<void> {
    const pipeline = this.#redis.pipeline();
    this.stageRequeue(pipeline, job);
    check(await pipeline.exec());
  }

  stageRequeue(pipeline: ChainableCommander, job: QueuedJob): void {
    assertPartition(job.partition);
    const { account } = job;
    pipeline
      .orcaRequeueJob(
        this.#keys.seq(account),
        this.#keys.active(account),
        this.#keys.account(account),
        job.key,
        job.type,
        job.partition,
        encodeOffer(job),
        encodeVariables(job.variables),
      )
      .sadd(this.#keys.partitionAccounts(job.partition), account);
  }

  async rebuild(partition: number, jobs: readonly StoredJob[]): Promise<RebuildResult> {
    assertPartition(partition);
    for (const job of jobs) {
      if (job.partition !== partition) throw new RangeError(`job ${job.key} is on partition ${job.partition}, not ${partition}`);
    }
    const registry = this.#keys.partitionAccounts(partition);
    const groups = groupByAccount(jobs);
    const accounts = new Set([...(await this.#redis.smembers(registry)), ...groups.keys()]);
    const pipeline = this.#redis.pipeline();
    // What each pipelined command was, to read its result.
    const steps: ({ kind: 'registry' } | { kind: 'upsert' } | { kind: 'finish'; account: string })[] = [];
    if (groups.size > 0) {
      pipeline.sadd(registry, ...groups.keys());
      steps.push({ kind: 'registry' });
    }
    for (const account of accounts) {
      const prefix = this.#keys.account(account);
      const staging = this.#keys.rebuildStaging(account, partition);
      const active = this.#keys.active(account);
      const group = groups.get(account) ?? [];
      for (let start = 0; start < group.length; start += REBUILD_CHUNK) {
        const args: (string | number)[] = [prefix, partition, start === 0 ? '1' : '0'];
        for (const job of group.slice(start, start + REBUILD_CHUNK)) {
          const { activation } = job;
          args.push(job.key, job.type, encodeOffer(job), encodeVariables(job.variables), activation ? '1' : '0', activation?.worker ?? '', activation?.at ?? 0);
        }
        pipeline.orcaRebuildUpsert(this.#keys.seq(account), active, staging, ...args);
        steps.push({ kind: 'upsert' });
      }
      pipeline.orcaRebuildFinish(this.#keys.partitionJobs(account, partition), staging, active, prefix, group.length > 0 ? '1' : '0');
      steps.push({ kind: 'finish', account });
    }
    const results = check(await pipeline.exec());
    const result: RebuildResult = { queued: 0, activated: 0, removed: 0 };
    const empty: string[] = [];
    steps.forEach((step, i) => {
      if (step.kind === 'registry') return;
      const [a, b] = (results[i] as unknown[]).map(Number);
      if (step.kind === 'upsert') {
        result.queued += a;
        result.activated += b;
      } else {
        result.removed += a;
        if (b === 0) empty.push(step.account);
      }
    });
    // Accounts left without jobs on the partition leave its registry. Only
    // this partition's leader pushes to it, and it is the one rebuilding.
    if (empty.length > 0) await this.#redis.srem(registry, ...empty);
    return result;
  }

  async depth(account: string, type: string): Promise<number> {
    return this.#redis.zcard(this.#keys.queue(account, type));
  }

  async waitForJobs(account: string, type: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const wait = new Wait<boolean>({ timeoutMs, onTimeout: () => false, cancelled: false, signal, registry: this.#waits });
    if (wait.settled) return wait.promise;
    try {
      const stop = await this.#subscriber.listen(this.#keys.ready(account, type), () => wait.settle(true));
      wait.onEnd(stop);
      // Subscribed: a push from now on is heard. One queued before is seen here.
      if (!wait.settled && (await this.depth(account, type)) > 0) wait.settle(true);
    } catch (error) {
      // Closed while subscribing: the wait has its answer already.
      if (wait.settled) return wait.promise;
      wait.cancel();
      throw error;
    }
    return wait.promise;
  }
}
