// The in-process job queues: the embedded default's counterpart of the Redis
// scripts in ../redis/scripts, with the same semantics step for step (place
// in line per account, idempotent push, activation with the variables of
// the moment, rebuild per partition). Payloads are kept as JSON text, as in
// Redis, so a value that would not survive Redis does not survive here
// either, and no caller can mutate a queued job through a shared object.
import type { Variables } from '../../runtime/types.ts';
import { activationCount, assertPartition, decodeActivated, encodeOffer, encodeVariables } from '../job-payload.ts';
import type { ActivatedJob, Activation, JobQueue, QueuedJob, RebuildResult, StoredJob } from '../types.ts';
import { type Cancellable, Wait } from '../wait.ts';
import { SeqQueue } from './seq-queue.ts';

interface Entry {
  key: string;
  type: string;
  partition: number;
  seq: number;
  offer: string;
  variables: string;
  activation?: Activation;
}

class Account {
  seq = 0;
  readonly jobs = new Map<string, Entry>();
  readonly queues = new Map<string, SeqQueue>();

  queue(type: string): SeqQueue {
    let queue = this.queues.get(type);
    if (!queue) {
      queue = new SeqQueue();
      this.queues.set(type, queue);
    }
    return queue;
  }

  enqueue(entry: Entry): void {
    entry.activation = undefined;
    this.queue(entry.type).add(entry.key, entry.seq);
  }

  delete(entry: Entry): void {
    this.jobs.delete(entry.key);
    const queue = this.queues.get(entry.type);
    if (queue?.remove(entry.key) && queue.size === 0) this.queues.delete(entry.type);
  }
}

const wakeKey = (account: string, type: string) => `${account}\u0000${type}`;

export class LocalJobQueue implements JobQueue {
  readonly #accounts = new Map<string, Account>();
  readonly #wakers = new Map<string, Set<() => void>>();
  readonly #waits: Set<Cancellable>;
  readonly #now: () => number;

  constructor(waits: Set<Cancellable>, now: () => number = Date.now) {
    this.#waits = waits;
    this.#now = now;
  }

  async push(jobs: readonly QueuedJob[]): Promise<number> {
    let added = 0;
    for (const job of jobs) {
      assertPartition(job.partition);
      const account = this.#account(job.account);
      if (account.jobs.has(job.key)) continue;
      const entry: Entry = {
        key: job.key,
        type: job.type,
        partition: job.partition,
        seq: ++account.seq,
        offer: encodeOffer(job),
        variables: encodeVariables(job.variables),
      };
      account.jobs.set(job.key, entry);
      account.enqueue(entry);
      added++;
      this.#wake(job.account, job.type);
    }
    return added;
  }

  async activate(accountId: string, type: string, max: number, worker: string): Promise<ActivatedJob[]> {
    const count = activationCount(max);
    const account = this.#accounts.get(accountId);
    const queue = account?.queues.get(type);
    if (!account || !queue || count === 0) return [];
    const at = this.#now();
    const activated: ActivatedJob[] = [];
    while (activated.length < count) {
      const key = queue.pop();
      if (key === undefined) break;
      const entry = account.jobs.get(key);
      if (!entry) continue;
      entry.activation = { worker, at };
      activated.push(decodeActivated(accountId, entry.partition, entry.offer, entry.variables, worker, at));
    }
    if (queue.size === 0) account.queues.delete(type);
    return activated;
  }

  async updateVariables(accountId: string, jobKey: string, variables: Variables): Promise<boolean> {
    const entry = this.#accounts.get(accountId)?.jobs.get(jobKey);
    if (!entry) return false;
    entry.variables = encodeVariables(variables);
    return true;
  }

  async remove(accountId: string, jobKeys: readonly string[]): Promise<number> {
    const account = this.#accounts.get(accountId);
    if (!account) return 0;
    let removed = 0;
    for (const key of jobKeys) {
      const entry = account.jobs.get(key);
      if (!entry) continue;
      account.delete(entry);
      removed++;
    }
    return removed;
  }

  async requeue(job: QueuedJob): Promise<void> {
    assertPartition(job.partition);
    const account = this.#account(job.account);
    let entry = account.jobs.get(job.key);
    if (!entry) {
      entry = { key: job.key, type: job.type, partition: job.partition, seq: ++account.seq, offer: '', variables: '' };
      account.jobs.set(job.key, entry);
    }
    entry.offer = encodeOffer(job);
    entry.variables = encodeVariables(job.variables);
    // Queued already: the payload update is all there is to do.
    if (entry.activation || !account.queues.get(entry.type)?.has(entry.key)) account.enqueue(entry);
    this.#wake(job.account, entry.type);
  }

  async rebuild(partition: number, jobs: readonly StoredJob[]): Promise<RebuildResult> {
    assertPartition(partition);
    for (const job of jobs) {
      if (job.partition !== partition) throw new RangeError(`job ${job.key} is on partition ${job.partition}, not ${partition}`);
    }
    const wanted = new Set(jobs.map((job) => wakeKey(job.account, job.key)));
    let removed = 0;
    for (const [accountId, account] of this.#accounts) {
      for (const entry of account.jobs.values()) {
        if (entry.partition === partition && !wanted.has(wakeKey(accountId, entry.key))) {
          account.delete(entry);
          removed++;
        }
      }
    }
    let queued = 0;
    let activated = 0;
    for (const job of jobs) {
      const account = this.#account(job.account);
      let entry = account.jobs.get(job.key);
      if (entry && entry.type !== job.type) {
        account.queues.get(entry.type)?.remove(entry.key);
        entry.type = job.type;
      }
      if (!entry) {
        entry = { key: job.key, type: job.type, partition, seq: ++account.seq, offer: '', variables: '' };
        account.jobs.set(job.key, entry);
      }
      entry.partition = partition;
      entry.offer = encodeOffer(job);
      entry.variables = encodeVariables(job.variables);
      // Activation known to either side wins: redelivering a job a worker
      // holds is worse than keeping one held.
      const activation = entry.activation ?? job.activation;
      if (activation) {
        account.queues.get(entry.type)?.remove(entry.key);
        entry.activation = { worker: activation.worker, at: activation.at };
        activated++;
      } else {
        account.enqueue(entry);
        queued++;
        this.#wake(job.account, entry.type);
      }
    }
    return { queued, activated, removed };
  }

  async depth(accountId: string, type: string): Promise<number> {
    return this.#depth(accountId, type);
  }

  async waitForJobs(accountId: string, type: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    // Checked and registered in one synchronous step: no push can slip in between.
    if (this.#depth(accountId, type) > 0) return true;
    const wait = new Wait<boolean>({ timeoutMs, onTimeout: () => false, cancelled: false, signal, registry: this.#waits });
    if (wait.settled) return wait.promise;
    const key = wakeKey(accountId, type);
    let wakers = this.#wakers.get(key);
    if (!wakers) {
      wakers = new Set();
      this.#wakers.set(key, wakers);
    }
    const wake = () => wait.settle(true);
    wakers.add(wake);
    wait.onEnd(() => {
      wakers.delete(wake);
      if (wakers.size === 0 && this.#wakers.get(key) === wakers) this.#wakers.delete(key);
    });
    return wait.promise;
  }

  /** Long-poll waiters registered now (tests check that none leak). */
  get waiterCount(): number {
    let count = 0;
    for (const wakers of this.#wakers.values()) count += wakers.size;
    return count;
  }

  /** Forgets everything, as a Redis flush would (tests of `rebuild`). */
  clear(): void {
    this.#accounts.clear();
  }

  #depth(accountId: string, type: string): number {
    return this.#accounts.get(accountId)?.queues.get(type)?.size ?? 0;
  }

  #account(id: string): Account {
    let account = this.#accounts.get(id);
    if (!account) {
      account = new Account();
      this.#accounts.set(id, account);
    }
    return account;
  }

  #wake(account: string, type: string): void {
    const wakers = this.#wakers.get(wakeKey(account, type));
    if (!wakers) return;
    for (const wake of [...wakers]) wake();
  }
}
