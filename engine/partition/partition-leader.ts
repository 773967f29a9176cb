// The leader of one partition (DESIGN §1, §4): the only writer of the
// partition's runtime rows. It reads commands from the partition's stream,
// applies them with the engine core to instances kept hot in memory,
// commits the whole batch in ONE fenced transaction, and only then makes
// the outcome visible: jobs pushed to the queues, timers armed, replies
// sent, stream entries acknowledged. A batch that fails to commit is not
// acknowledged; its commands are read again and, being idempotent by key,
// applied exactly once. After any failure the leader recovers (reloads from
// Postgres, rebuilds its queues) before it applies anything else, and it
// does the same when the flush marker says Redis lost its data.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { apply } from '../runtime/apply.ts';
import { startTimersOf } from '../runtime/start-timers.ts';
import { nextDue } from '../runtime/timer/index.ts';
import { jobOffer } from '../runtime/behavior/job.ts';
import { visibleVariables } from '../runtime/behavior/variables.ts';
import type { ProcessModel } from '../model/types.ts';
import type { ApplyContext, ApplyResult, Command, JobOffer, ProcessInstance, Variables } from '../runtime/types.ts';
import { streamIdIsAfter, type Publication, type QueuedJob, type Queues, type Reply, type StoredJob, type StreamEntry } from '../queue/index.ts';
import type { Batch, JobWrite, SealedBatch, Store, TimerWrite } from '../store/index.ts';
import { sealBatch, StaleEpochError } from '../store/index.ts';
import type { CommandReply, EngineCommand } from './commands.ts';
import { NO_FLUSH_MARKER, type FlushMarker } from './flush-marker.ts';
import { KeyGenerator } from './keys.ts';
import type { AccountView, ModelCache } from './model-cache.ts';
import { TimerWheel, type ArmedTimer } from './timer-wheel.ts';

const BATCH_MAX = 500;
/** How long a stream read waits for an entry; local commands and timers do not wait for it (see `nextWork`). */
const READ_BLOCK_MS = 100;
/** How often the leader checks that Redis still has its flush marker. */
const MARKER_CHECK_MS = 500;
/** Commands one batch may cause on other instances (parent/child), past which they wait for the next batch. */
const FOLLOW_UP_MAX = 10_000;

interface Hot {
  account: string;
  instance: ProcessInstance;
  parentKey: string | null;
}

/** Work for an instance that does not come from the stream: timers, parent/child messages, child starts. */
type Internal =
  | { kind: 'command'; account: string; instanceKey: string; command: Command }
  | { kind: 'startChild'; account: string; parentKey: string; effect: Extract<ApplyResult & { ok: true }, { ok: true }>['effects'][number] & { type: 'startChild' } }
  | { kind: 'startTimer'; timer: ArmedTimer };

/**
 * A command handed over in memory by this process (its API leads the
 * partition itself): no stream entry, no pub/sub reply. `attempted` is set
 * once a batch holding it failed to commit: it may have committed after
 * all, so it is looked up in the command log like a replayed stream entry.
 * `batchKey` names the batch that last held it, when its result was logged
 * in that batch's row rather than one of its own (see BatchWork.logged).
 */
interface LocalCommand {
  key: string;
  payload: EngineCommand;
  resolve: (reply: CommandReply) => void;
  reject: (error: unknown) => void;
  attempted?: true;
  batchKey?: string;
}

/**
 * The leader here stopped with a local command unanswered: the caller sends
 * it over the stream instead, to whoever leads next. `mayBeApplied` when a
 * batch holding it failed in a way that may have committed: then it must go
 * without its `fresh` mark, so the next leader looks it up first.
 */
export class LeaderGone extends Error {
  constructor(
    partition: number,
    readonly mayBeApplied: boolean,
    /** Where the command's result was logged if it was applied: the next leader looks there too. */
    readonly batchKey?: string,
  ) {
    super(`partition ${partition}: its leader here stopped`);
  }
}

/** What one batch writes, and what it does once committed. */
class BatchWork {
  readonly batch: Batch;
  readonly push: QueuedJob[] = [];
  readonly requeue: QueuedJob[] = [];
  readonly remove: { account: string; jobKey: string }[] = [];
  readonly arm: ArmedTimer[] = [];
  readonly disarm: string[] = [];
  readonly replies: Reply[] = [];
  /** Answers to local commands, given once the publication is out. */
  readonly answers: { command: LocalCommand; reply: CommandReply }[] = [];
  readonly ended: string[] = [];
  /** Instances whose waiting jobs must see their new variables (instance key → account). */
  readonly changed = new Map<string, string>();
  /** Those jobs' variables as this batch leaves them. */
  variables: NonNullable<Publication['variables']> = [];
  /** The stream entries this batch consumed. */
  ack: Publication['ack'];
  /**
   * The results of this batch's fresh local commands, logged as ONE
   * command-log row under `key` instead of a row each. Their keys were made
   * up for one call in this process and no client knows them: the only one
   * who can ask again is this process — the leader retrying after a commit
   * that may have happened, or the caller re-sending over the stream when
   * the leader stopped — and it asks by the batch's key (LocalCommand.batchKey,
   * EngineCommand.batchKey). Most of the command log's rows were these.
   */
  logged: { key: string; results: Record<string, CommandReply> } | undefined;

  constructor(partition: number, epoch: number) {
    this.batch = { partition, epoch, instances: [], jobsUpsert: [], jobsDelete: [], timersUpsert: [], timersDelete: [], incidentsInsert: [], history: [], commands: [] };
  }
}

export interface LeaderOptions {
  partition: number;
  epoch: number;
  store: Store;
  queues: Queues;
  models: ModelCache;
  /** Called when the leader stops on its own (lease lost, store gone for good). */
  onStop?: (reason: string) => void;
  /** Tells the leader that Redis was flushed under it; none with the in-process queues. */
  marker?: FlushMarker;
  /** Commits a batch: the shard's group commit (CommitGroup, or CommitThread on Postgres), which keeps a partition's batches in order. */
  commit: (batch: SealedBatch) => Promise<void>;
  /** Tells the group commit this leader recovered: after a failed batch it refuses the partition's batches until then. */
  resumeCommits: () => void;
}

export class PartitionLeader {
  readonly partition: number;
  readonly epoch: number;
  private readonly hot = new Map<string, Hot>();
  private readonly jobOwners = new Map<string, string>();
  private readonly internal: Internal[] = [];
  private readonly keys: KeyGenerator;
  private readonly wheel: TimerWheel;
  /** The newest stream entry read (the next read starts after it). */
  private lastId = '0';
  private readonly local: LocalCommand[] = [];
  /** The stream read under way, if any, and what it brought. */
  private reading: { generation: number; done: boolean; entries: StreamEntry[]; error?: unknown } | undefined;
  /** Bumped by recovery: a read issued before it is stale (it started from the wrong id). */
  private readGeneration = 0;
  /** Wakes the loop waiting in `nextWork`. */
  private wake: (() => void) | undefined;
  /** Entries up to this id were in the stream at the last recovery: an earlier leader may have applied them. */
  private replayUpTo = '0';
  private running = false;
  /** Set after any failure: memory and queues must be rebuilt from Postgres before the next batch. */
  private needsRecovery = true;
  private readonly marker: FlushMarker;
  private loop: Promise<void> | undefined;
  /**
   * The newest batch handed to the commit and not yet published: the loop
   * builds the next one meanwhile, on the state in memory (which includes
   * this one's uncommitted effects). Settles once it is published or failed.
   */
  private pipeline: Promise<void> = Promise.resolve();
  /** Why a batch in the pipeline failed, for the loop to recover from. */
  private broken: { error: unknown } | undefined;
  /**
   * Results of the commands in batches not yet published, by command key.
   * The command log cannot answer for them until they commit, so a retry
   * of one that arrives meanwhile is answered from here (never applied twice).
   */
  private readonly pendingResults = new Map<string, unknown>();
  /** Numbers this leader's batch keys (with its epoch, unique on the partition). */
  private batchSeq = 0;

  constructor(private readonly options: LeaderOptions) {
    this.partition = options.partition;
    this.epoch = options.epoch;
    this.keys = new KeyGenerator(options.partition, options.epoch);
    this.marker = options.marker ?? NO_FLUSH_MARKER;
    this.wheel = new TimerWheel((timer) => {
      this.internal.push(
        timer.start !== undefined
          ? { kind: 'startTimer', timer }
          : { kind: 'command', account: timer.account, instanceKey: timer.instanceKey!, command: { type: 'fireTimer', timerKey: timer.key } },
      );
      this.wake?.();
    });
  }

  /**
   * Recovery, then the batch loop. Never throws: when the store or Redis is
   * unavailable, the loop keeps retrying recovery (a leader that held its
   * lease without a loop would leave its partition dead).
   */
  async start(): Promise<void> {
    this.running = true;
    try {
      await this.recover();
      this.needsRecovery = false;
    } catch {
      // The loop tries again with backoff.
    }
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wheel.stop();
    this.wake?.();
    await this.loop;
    this.hot.clear();
    this.jobOwners.clear();
    this.handBack();
  }

  /**
   * Takes a command from this process's API straight to the batch loop, and
   * resolves with its committed reply. Undefined when this leader cannot
   * take it now (stopped, or recovering): the caller uses the stream.
   * 'full' when `limit` commands wait already (backpressure).
   */
  submit(key: string, payload: EngineCommand, limit?: number): Promise<CommandReply> | 'full' | undefined {
    if (!this.running || this.needsRecovery) return undefined;
    if (limit !== undefined && this.local.length >= limit) return 'full';
    return new Promise((resolve, reject) => {
      this.local.push({ key, payload, resolve, reject });
      this.wake?.();
    });
  }

  /** Unanswered local commands go back to their callers, who send them over the stream. */
  private handBack(): void {
    for (const command of this.local.splice(0)) command.reject(new LeaderGone(this.partition, command.attempted === true, command.batchKey));
  }

  /**
   * Takeover: rebuild this partition's queues from Postgres (a Redis flush
   * loses nothing), reload its timers, and read the stream from the start
   * so unacknowledged commands are replayed.
   */
  private async recover(): Promise<void> {
    const { store, queues } = this.options;
    // Rebuilding replaces what Redis holds for the partition, so a leader that
    // was superseded (and has not noticed yet) must not do it.
    const lease = (await store.leases.listLeases()).find((l) => l.partition === this.partition);
    if (lease?.epoch !== this.epoch) throw new StaleEpochError(this.partition, this.epoch, lease?.epoch ?? null);
    // Every batch from before is settled (the loop drained them): what comes next is built on what Postgres holds.
    this.options.resumeCommits();
    this.hot.clear();
    this.jobOwners.clear();
    // Timers that fired but were not committed are armed again below from Postgres; firing them twice would be wrong.
    for (let i = this.internal.length - 1; i >= 0; i--) {
      const item = this.internal[i];
      if (item.kind === 'command' && item.command.type === 'fireTimer') this.internal.splice(i, 1);
    }
    const instances = await store.instances.loadPartitionInstances(this.partition, { activeOnly: true });
    for (const row of instances) this.remember(row.account, row.document, row.parentKey);
    const jobs = await store.jobs.loadPartitionJobs(this.partition);
    const stored: StoredJob[] = [];
    for (const job of jobs) {
      const hot = this.hot.get(job.instanceKey);
      if (hot === undefined || job.state === 'FAILED') continue;
      const offer: JobOffer = {
        key: job.key,
        type: job.type,
        retries: job.retries,
        processInstanceKey: job.instanceKey,
        bpmnProcessId: job.bpmnProcessId,
        processDefinitionVersion: job.processVersion,
        elementId: job.elementId,
        elementInstanceKey: job.elementInstanceKey,
        customHeaders: job.customHeaders,
      };
      stored.push({
        ...offer,
        account: job.account,
        partition: this.partition,
        variables: { ...visibleVariables(hot.instance, job.elementInstanceKey) },
        ...(job.state === 'ACTIVATED' ? { activation: { worker: job.worker ?? '', at: job.activatedAt?.getTime() ?? Date.now() } } : {}),
      });
    }
    // Marker first: a flush from here on is either undone by this rebuild or noticed later.
    await this.marker.set(this.partition, this.epoch);
    await queues.jobs.rebuild(this.partition, stored);
    for (const timer of await store.timers.loadDueTimers(this.partition, new Date('9999-12-31T00:00:00Z'), { limit: 100_000 })) {
      if (timer.instanceKey) this.wheel.arm({ key: timer.key, account: timer.account, instanceKey: timer.instanceKey, dueAt: timer.dueAt.getTime() });
      else {
        const start = { bpmnProcessId: timer.bpmnProcessId, version: timer.processVersion, elementId: timer.elementId, schedule: timer.schedule, firedCount: timer.firedCount };
        this.wheel.arm({ key: timer.key, account: timer.account, dueAt: timer.dueAt.getTime(), start });
      }
    }
    this.replayUpTo = await queues.commands.lastEntryId(this.partition);
    this.lastId = '0';
    this.readGeneration++;
  }

  private remember(account: string, instance: ProcessInstance, parentKey: string | null): void {
    this.hot.set(instance.key, { account, instance, parentKey });
    for (const jobKey of Object.keys(instance.jobs)) this.jobOwners.set(jobKey, instance.key);
  }

  private async run(): Promise<void> {
    let backoff = 50;
    let nextMarkerCheck = Date.now() + MARKER_CHECK_MS;
    while (this.running) {
      try {
        this.throwIfBroken();
        if (this.needsRecovery) {
          // Nothing is applied until recovery succeeds: a batch whose commit
          // failed may have committed after all, and only the rebuild from
          // Postgres queues its jobs.
          await this.recover();
          this.needsRecovery = false;
        } else if (Date.now() >= nextMarkerCheck) {
          nextMarkerCheck = Date.now() + MARKER_CHECK_MS;
          if (!(await this.marker.present(this.partition))) {
            this.needsRecovery = true;
            await this.drainPipeline();
            continue;
          }
        }
        const { entries, local } = await this.nextWork();
        this.throwIfBroken();
        if (entries.length === 0 && local.length === 0 && this.internal.length === 0) continue;
        await this.processBatch(entries, local);
        backoff = 50;
        // Let the rest of the process run. On PGlite with the in-process
        // queues every step of a batch resolves without I/O, so while
        // commands keep coming the loop lived on microtasks alone: no timer,
        // socket or HTTP request was served (bench:e2e's embedded run timed
        // out hundreds of starts). On Postgres the commit's round trip
        // yields anyway; this costs one check phase per batch.
        await nextTurn();
      } catch (err) {
        // Whatever was applied in memory may not be committed: once the
        // batches under way have settled, forget it and reload.
        this.needsRecovery = true;
        await this.drainPipeline();
        this.hot.clear();
        this.jobOwners.clear();
        this.pendingResults.clear();
        if (err instanceof StaleEpochError) {
          this.running = false;
          this.handBack();
          this.options.onStop?.(`partition ${this.partition}: lease taken over (${err.message})`);
          return;
        }
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
    await this.drainPipeline();
  }

  /** A batch in the pipeline failed: the loop recovers (or stops on a lost lease) as if its own step had thrown. */
  private throwIfBroken(): void {
    const broken = this.broken;
    if (broken === undefined) return;
    this.broken = undefined;
    throw broken.error;
  }

  /** Waits until no batch is being committed or published; their failures are already recorded in `broken`. */
  private async drainPipeline(): Promise<void> {
    await this.pipeline;
    this.broken = undefined;
  }

  /**
   * The next batch's work: stream entries and local commands. The stream
   * read runs alongside (it blocks on a connection of its own), so a local
   * command, a due timer or a finished batch never waits for it; its entries
   * are taken once it returns.
   */
  private async nextWork(): Promise<{ entries: StreamEntry[]; local: LocalCommand[] }> {
    if (this.reading === undefined || this.reading.generation !== this.readGeneration) {
      const reading: NonNullable<PartitionLeader['reading']> = { generation: this.readGeneration, done: false, entries: [] };
      this.reading = reading;
      this.options.queues.commands.read(this.partition, this.lastId, BATCH_MAX, READ_BLOCK_MS).then(
        (entries) => {
          reading.entries = entries;
          reading.done = true;
          this.wake?.();
        },
        (error: unknown) => {
          reading.error = error;
          reading.done = true;
          this.wake?.();
        },
      );
    }
    const reading = this.reading;
    if (!reading.done && this.local.length === 0 && this.internal.length === 0 && this.running) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    let entries: StreamEntry[] = [];
    if (reading.done) {
      this.reading = undefined;
      if (reading.error !== undefined) throw reading.error;
      entries = reading.entries;
      if (entries.length > 0) this.lastId = entries[entries.length - 1].id;
    }
    // A batch failed meanwhile: the local commands wait for after recovery
    // (stream entries taken here are read again then, from the stream's start).
    return { entries, local: this.broken === undefined ? this.local.splice(0, BATCH_MAX) : [] };
  }

  /**
   * Builds a batch from the commands (applied in memory), hands it to the
   * commit, and returns once the batch before it is published: so one batch
   * commits while the next is built, and never more than that. The batch's
   * own commit and publication go on in `pipeline`, in batch order.
   */
  private async processBatch(entries: StreamEntry[], local: LocalCommand[]): Promise<void> {
    let work: BatchWork;
    try {
      work = await this.build(entries, local);
    } catch (err) {
      this.giveBack(local, err);
      throw err;
    }
    const previous = this.pipeline;
    // Sealed now: the next batch goes on changing the same instance documents.
    const sealed = sealBatch(work.batch);
    // The commit group sends it only after the batch before it committed, and fails it if that one failed.
    const committed = this.options.commit(sealed);
    this.pipeline = this.publishWhenCommitted(work, local, committed, previous);
    await previous;
  }

  /**
   * Not committed, or not known to be (a stale fence writes nothing): the
   * local commands wait for the next batch after recovery, looked up in the
   * command log first.
   */
  private giveBack(local: LocalCommand[], err: unknown): void {
    if (!(err instanceof StaleEpochError)) for (const command of local) command.attempted = true;
    this.local.unshift(...local);
  }

  /** Settles without throwing: a failure is recorded in `broken` for the loop, and wakes it. */
  private async publishWhenCommitted(work: BatchWork, local: LocalCommand[], committed: Promise<void>, previous: Promise<void>): Promise<void> {
    try {
      await committed;
      // In batch order: a job pushed by the batch before must be queued before this one removes it.
      await previous;
      if (this.broken !== undefined) throw this.broken.error;
      await this.publish(work);
    } catch (err) {
      this.giveBack(local, err);
      this.broken ??= { error: err };
      this.wake?.();
    }
  }

  /** Applies the commands to the instances in memory and gathers what the batch writes and, once committed, does. */
  private async build(entries: StreamEntry[], local: LocalCommand[]): Promise<BatchWork> {
    const { store } = this.options;
    const work = new BatchWork(this.partition, this.epoch);
    const pending = this.pendingResults;
    // A fresh key appended after the last recovery cannot have been applied
    // yet: only the others are looked up, in the batches not yet committed
    // first (checked before the query starts, so a key missing there was in
    // none of them and the command log has it if anything does).
    const lookUp: string[] = [];
    for (const entry of entries) {
      const payload = entry.payload as EngineCommand;
      if ((payload.fresh && streamIdIsAfter(entry.id, this.replayUpTo)) || pending.has(entry.key)) continue;
      lookUp.push(entry.key);
      if (payload.batchKey !== undefined) lookUp.push(payload.batchKey);
    }
    for (const command of local) {
      if ((command.payload.fresh && !command.attempted) || pending.has(command.key)) continue;
      lookUp.push(command.key);
      if (command.batchKey !== undefined) lookUp.push(command.batchKey);
    }
    const known = lookUp.length > 0 ? await store.commands.findCommandResults(this.partition, lookUp) : new Map<string, unknown>();
    for (const entry of entries) {
      const earlier = known.get(entry.key) ?? loggedIn(known, (entry.payload as EngineCommand).batchKey, entry.key) ?? pending.get(entry.key);
      if (earlier !== undefined) {
        work.replies.push({ commandKey: entry.key, result: earlier, replyTo: entry.replyTo });
        continue;
      }
      const reply = this.executeNow(entry.payload as EngineCommand, work) ?? (await this.execute(entry.payload as EngineCommand, work));
      pending.set(entry.key, reply);
      work.batch.commands!.push({ key: entry.key, result: reply });
      work.replies.push({ commandKey: entry.key, result: reply, replyTo: entry.replyTo });
    }
    for (const command of local) {
      const earlier = (known.get(command.key) ?? loggedIn(known, command.batchKey, command.key) ?? pending.get(command.key)) as CommandReply | undefined;
      if (earlier !== undefined) {
        work.answers.push({ command, reply: earlier });
        continue;
      }
      const reply = this.executeNow(command.payload, work) ?? (await this.execute(command.payload, work));
      if (command.payload.fresh) {
        // No retry can reach this leader with a made-up key: nothing to keep in `pending`.
        work.logged ??= { key: `@batch:${this.epoch}:${Date.now()}:${this.batchSeq++}`, results: {} };
        work.logged.results[command.key] = reply;
        command.batchKey = work.logged.key;
      } else {
        pending.set(command.key, reply);
        work.batch.commands!.push({ key: command.key, result: reply });
      }
      work.answers.push({ command, reply });
    }
    if (work.logged !== undefined) work.batch.commands!.push({ key: work.logged.key, result: work.logged.results });
    for (let n = 0; this.internal.length > 0 && n < FOLLOW_UP_MAX; n++) await this.executeInternal(this.internal.shift()!, work);
    // What the queues get is taken now, from the state this batch leaves: by
    // the time it is published the next batch may have changed the memory.
    work.variables = this.waitingJobVariables(work);
    if (entries.length > 0) work.ack = { partition: this.partition, uptoId: entries[entries.length - 1].id };
    return work;
  }

  /** Committed: now, and only now, the world may see it. */
  private async publish(work: BatchWork): Promise<void> {
    for (const key of work.disarm) this.wheel.disarm(key);
    for (const timer of work.arm) this.wheel.arm(timer);
    const byAccount = new Map<string, string[]>();
    for (const { account, jobKey } of work.remove) (byAccount.get(account) ?? byAccount.set(account, []).get(account)!).push(jobKey);
    const publication: Publication = {
      push: work.push,
      variables: work.variables,
      requeue: work.requeue,
      remove: [...byAccount].map(([account, jobKeys]) => ({ account, jobKeys })),
      replies: work.replies,
    };
    if (work.ack !== undefined) publication.ack = work.ack;
    // Ended instances stay in memory until now: a command for one in the
    // next batch must not find it missing and read its stale row instead.
    for (const key of work.ended) this.forget(key);
    for (const command of work.batch.commands!) this.pendingResults.delete(command.key);
    await this.options.queues.publish(publication);
    // After the publication, as for stream replies: a started instance's job is queued before its caller hears of it.
    for (const { command, reply } of work.answers) command.resolve(structuredClone(reply));
  }

  private forget(instanceKey: string): void {
    const hot = this.hot.get(instanceKey);
    if (hot === undefined) return;
    for (const jobKey of Object.keys(hot.instance.jobs)) this.jobOwners.delete(jobKey);
    this.hot.delete(instanceKey);
  }

  private async load(account: string, instanceKey: string): Promise<Hot | undefined> {
    const hot = this.hot.get(instanceKey);
    if (hot !== undefined) return hot.account === account ? hot : undefined;
    const row = await this.options.store.instances.getInstance(account, instanceKey);
    if (row === null) return undefined;
    const loaded = { account, instance: row.document, parentKey: row.parentKey ?? null };
    if (row.document.state === 'ACTIVE' || row.document.state === 'INCIDENT') this.remember(account, row.document, loaded.parentKey);
    return loaded;
  }

  private async context(account: string, instance: { bpmnProcessId: string; version: number }): Promise<ApplyContext | undefined> {
    const model = await this.options.models.process(account, instance.bpmnProcessId, instance.version);
    if (model === undefined) return undefined;
    return this.contextOf(model, await this.options.models.view(account));
  }

  /** `context` from what the model cache holds now; undefined when something must be loaded first. */
  private contextNow(account: string, instance: { bpmnProcessId: string; version: number }): ApplyContext | undefined {
    const model = this.options.models.cachedProcess(account, instance.bpmnProcessId, instance.version);
    const view = model && this.options.models.cachedView(account);
    return view && this.contextOf(model!, view);
  }

  private contextOf(model: ProcessModel, view: AccountView): ApplyContext {
    return {
      model,
      nextKey: this.keys.next,
      now: Date.now,
      evaluateDecision: view.evaluate,
      hasProcess: (id) => view.latest.has(id),
    };
  }

  /**
   * `execute` without waiting, for the common case: a start of a cached
   * model, or a job of an instance in memory. Undefined — having changed
   * nothing — when anything must be loaded first; `execute` then does it.
   */
  private executeNow(command: EngineCommand, work: BatchWork): CommandReply | undefined {
    switch (command.kind) {
      case 'start': {
        const { models } = this.options;
        const view = models.cachedView(command.account);
        const version = view?.latest.get(command.bpmnProcessId);
        const model = version === undefined ? undefined : models.cachedProcess(command.account, command.bpmnProcessId, version);
        return model && this.startWith(command, version!, this.contextOf(model, view!), work);
      }
      case 'completeJob':
      case 'failJob': {
        const instanceKey = this.jobOwners.get(command.jobKey);
        const hot = instanceKey === undefined ? undefined : this.hot.get(instanceKey);
        if (hot === undefined || hot.account !== command.account) return undefined;
        const ctx = this.contextNow(hot.account, hot.instance);
        return ctx && this.applyWith(hot, jobCommand(command), work, ctx);
      }
      default:
        return undefined;
    }
  }

  private startWith(command: EngineCommand & { kind: 'start' }, version: number, ctx: ApplyContext, work: BatchWork): CommandReply {
    const result = apply(null, { type: 'start', variables: command.variables, version }, ctx);
    if (!result.ok) return result;
    this.settle(command.account, null, result, work);
    return { ok: true, value: { processInstanceKey: result.instance.key, bpmnProcessId: command.bpmnProcessId, version, state: result.instance.state } };
  }

  private async execute(command: EngineCommand, work: BatchWork): Promise<CommandReply> {
    switch (command.kind) {
      case 'start': {
        let view = await this.options.models.view(command.account);
        if (!view.latest.has(command.bpmnProcessId)) view = await this.options.models.view(command.account, true);
        const version = view.latest.get(command.bpmnProcessId);
        if (version === undefined) return { ok: false, code: 'NOT_FOUND', message: `No process '${command.bpmnProcessId}' is deployed.` };
        const ctx = (await this.context(command.account, { bpmnProcessId: command.bpmnProcessId, version }))!;
        return this.startWith(command, version, ctx, work);
      }
      case 'completeJob':
      case 'failJob': {
        const instanceKey = this.jobOwners.get(command.jobKey) ?? (await this.options.store.jobs.getJob(command.account, command.jobKey))?.instanceKey;
        const hot = instanceKey === undefined ? undefined : await this.load(command.account, instanceKey);
        if (hot === undefined) return { ok: false, code: 'NOT_FOUND', message: `Job '${command.jobKey}' not found: it was completed or cancelled, or never existed.` };
        return this.applyTo(hot, jobCommand(command), work);
      }
      case 'cancel': {
        const hot = await this.load(command.account, command.instanceKey);
        if (hot === undefined) return { ok: false, code: 'NOT_FOUND', message: `Process instance '${command.instanceKey}' not found.` };
        return this.applyTo(hot, { type: 'cancel' }, work);
      }
      case 'scheduleStartTimers':
        return this.scheduleStartTimers(command.account, command.bpmnProcessId, command.version, work);
    }
  }

  /** Replaces the armed timer start events of a process with those of `version` (DESIGN: one partition owns a process's start timers). */
  private async scheduleStartTimers(account: string, bpmnProcessId: string, version: number, work: BatchWork): Promise<CommandReply> {
    const model = await this.options.models.process(account, bpmnProcessId, version);
    if (model === undefined) return { ok: false, code: 'NOT_FOUND', message: `No version ${version} of process '${bpmnProcessId}' is deployed.` };
    const starts = startTimersOf(model, Date.now());
    if (!starts.ok) return { ok: false, code: 'INVALID_ARGUMENT', message: starts.error };
    const armed = this.wheel.startTimersOf(account, bpmnProcessId);
    // A replayed schedule of an older version never replaces a newer one's.
    if (armed.some((old) => old.start!.version > version)) return { ok: true, value: { done: true } };
    for (const old of armed) {
      work.batch.timersDelete!.push(old.key);
      work.disarm.push(old.key);
    }
    for (const timer of starts.timers) {
      const key = this.keys.next();
      const start = { bpmnProcessId, version, elementId: timer.elementId, schedule: timer.schedule, firedCount: 0 };
      work.batch.timersUpsert!.push(startTimerWrite(key, account, timer.dueAt, start));
      work.arm.push({ key, account, dueAt: timer.dueAt, start });
    }
    return { ok: true, value: { done: true } };
  }

  /**
   * Jobs still waiting in an instance whose variables this batch changed get
   * their queued variables refreshed, so a worker activating them sees the
   * variables as they are at activation (jobs created in this batch were
   * pushed with current ones).
   */
  private waitingJobVariables(work: BatchWork): NonNullable<Publication['variables']> {
    const out: { account: string; jobKey: string; variables: Variables }[] = [];
    if (work.changed.size === 0) return out;
    const fresh = new Set(work.push.map((j) => j.key));
    for (const [instanceKey, account] of work.changed) {
      const instance = this.hot.get(instanceKey)?.instance;
      if (instance === undefined) continue;
      for (const job of Object.values(instance.jobs)) {
        if (job.state !== 'ACTIVATABLE' || fresh.has(job.key)) continue;
        out.push({ account, jobKey: job.key, variables: { ...visibleVariables(instance, job.elementInstanceKey) } });
      }
    }
    return out;
  }

  /** A timer start event fired: start an instance at that start event, and re-arm a cycle. */
  private async fireStartTimer(timer: ArmedTimer, work: BatchWork): Promise<void> {
    const start = timer.start!;
    const ctx = await this.context(timer.account, { bpmnProcessId: start.bpmnProcessId, version: start.version });
    if (ctx !== undefined) {
      const result = apply(null, { type: 'start', version: start.version, startEventId: start.elementId }, ctx);
      if (result.ok) this.settle(timer.account, null, result, work);
    }
    const firedCount = start.firedCount + 1;
    const next = nextDue(start.schedule, timer.dueAt, firedCount, Date.now());
    if (next === null) {
      work.batch.timersDelete!.push(timer.key);
      return;
    }
    const again = { ...start, firedCount };
    work.batch.timersUpsert!.push(startTimerWrite(timer.key, timer.account, next, again));
    work.arm.push({ key: timer.key, account: timer.account, dueAt: next, start: again });
  }

  private async applyTo(hot: Hot, command: Command, work: BatchWork): Promise<CommandReply> {
    const ctx = await this.context(hot.account, hot.instance);
    if (ctx === undefined) return { ok: false, code: 'NOT_FOUND', message: `The model of process instance '${hot.instance.key}' is gone.` };
    return this.applyWith(hot, command, work, ctx);
  }

  private applyWith(hot: Hot, command: Command, work: BatchWork, ctx: ApplyContext): CommandReply {
    const result = apply(hot.instance, command, ctx);
    if (!result.ok) return result;
    if (command.type === 'fireTimer' && result.instance.timers[command.timerKey] === undefined) work.batch.timersDelete!.push(command.timerKey);
    this.settle(hot.account, hot.parentKey, result, work);
    return { ok: true, value: { done: true } };
  }

  private async executeInternal(item: Internal, work: BatchWork): Promise<void> {
    if (item.kind === 'startTimer') {
      await this.fireStartTimer(item.timer, work);
      return;
    }
    if (item.kind === 'command') {
      const hot = await this.load(item.account, item.instanceKey);
      // A message for an instance that has ended changes nothing.
      if (hot !== undefined) await this.applyTo(hot, item.command, work);
      return;
    }
    const { effect, account, parentKey } = item;
    const view = await this.options.models.view(account);
    const version = view.latest.get(effect.bpmnProcessId);
    if (version === undefined) return;
    const ctx = (await this.context(account, { bpmnProcessId: effect.bpmnProcessId, version }))!;
    const result = apply(
      null,
      {
        type: 'start',
        processInstanceKey: effect.childInstanceKey,
        variables: effect.variables,
        version,
        parent: { instanceKey: parentKey, elementInstanceKey: effect.parentElementInstanceKey },
        depth: effect.depth,
      },
      ctx,
    );
    if (result.ok) this.settle(account, parentKey, result, work);
  }

  /** Turns an applied command into writes and after-commit actions. */
  private settle(account: string, parentKey: string | null, result: Extract<ApplyResult, { ok: true }>, work: BatchWork): void {
    const { instance, records, effects } = result;
    const batch = work.batch;
    if (!this.hot.has(instance.key)) this.hot.set(instance.key, { account, instance, parentKey });
    batch.instances!.push({ account, document: instance, parentKey });
    for (const record of records) {
      batch.history!.push({ account, instanceKey: instance.key, record });
      if (record.type === 'INCIDENT_CREATED') {
        const incident = instance.incidents[record.incidentKey!];
        batch.incidentsInsert!.push({ key: incident.key, account, instanceKey: instance.key, elementId: incident.elementId, elementInstanceKey: incident.elementInstanceKey, jobKey: incident.jobKey ?? null, type: incident.type, message: incident.message });
        if (incident.jobKey !== undefined) {
          const job = instance.jobs[incident.jobKey];
          if (job !== undefined) batch.jobsUpsert!.push(jobWrite(account, instance, { ...jobOffer(instance, job), retries: 0 }, 'FAILED', job.errorMessage));
          work.remove.push({ account, jobKey: incident.jobKey });
        }
      } else if (record.type === 'JOB_COMPLETED') {
        batch.jobsDelete!.push(record.jobKey!);
        work.remove.push({ account, jobKey: record.jobKey! });
        this.jobOwners.delete(record.jobKey!);
      }
    }
    for (const effect of effects) {
      switch (effect.type) {
        case 'enqueueJob': {
          const existed = this.jobOwners.has(effect.job.key);
          this.jobOwners.set(effect.job.key, instance.key);
          batch.jobsUpsert!.push(jobWrite(account, instance, effect.job, 'ACTIVATABLE', instance.jobs[effect.job.key]?.errorMessage));
          const queued: QueuedJob = { ...effect.job, account, partition: this.partition, variables: { ...visibleVariables(instance, effect.job.elementInstanceKey) } };
          (existed ? work.requeue : work.push).push(queued);
          break;
        }
        case 'cancelJob':
          batch.jobsDelete!.push(effect.jobKey);
          work.remove.push({ account, jobKey: effect.jobKey });
          this.jobOwners.delete(effect.jobKey);
          break;
        case 'scheduleTimer': {
          const timer = instance.timers[effect.timerKey];
          batch.timersUpsert!.push({
            key: effect.timerKey,
            account,
            instanceKey: instance.key,
            ownerKey: timer.ownerKey,
            bpmnProcessId: instance.bpmnProcessId,
            processVersion: instance.version,
            elementId: effect.elementId,
            dueAt: new Date(effect.dueAt),
            schedule: timer.schedule,
            firedCount: timer.firedCount,
          });
          work.arm.push({ key: effect.timerKey, account, instanceKey: instance.key, dueAt: effect.dueAt });
          break;
        }
        case 'cancelTimer':
          batch.timersDelete!.push(effect.timerKey);
          work.disarm.push(effect.timerKey);
          break;
        case 'startChild':
          this.internal.push({ kind: 'startChild', account, parentKey: instance.key, effect });
          break;
        case 'sendCommand':
          this.internal.push({ kind: 'command', account, instanceKey: effect.instanceKey, command: effect.command });
          break;
      }
    }
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') work.ended.push(instance.key);
    else if (records.some((r) => r.type === 'JOB_COMPLETED' || r.type === 'DECISION_EVALUATED' || r.type === 'ELEMENT_COMPLETED')) work.changed.set(instance.key, account);
  }
}

function jobWrite(account: string, instance: ProcessInstance, offer: JobOffer, state: JobWrite['state'], errorMessage?: string): JobWrite {
  return {
    key: offer.key,
    account,
    instanceKey: instance.key,
    bpmnProcessId: offer.bpmnProcessId,
    processVersion: offer.processDefinitionVersion,
    elementId: offer.elementId,
    elementInstanceKey: offer.elementInstanceKey,
    type: offer.type,
    retries: offer.retries,
    state,
    // Compiled models use prototype-less records; the SQL layer wants plain objects.
    customHeaders: { ...offer.customHeaders },
    errorMessage: errorMessage ?? null,
  };
}

function startTimerWrite(key: string, account: string, dueAt: number, start: NonNullable<ArmedTimer['start']>): TimerWrite {
  return {
    key,
    account,
    instanceKey: null,
    ownerKey: null,
    bpmnProcessId: start.bpmnProcessId,
    processVersion: start.version,
    elementId: start.elementId,
    dueAt: new Date(dueAt),
    schedule: start.schedule,
    firedCount: start.firedCount,
  };
}

/** A command's result in the row its batch logged it in (BatchWork.logged), if that batch committed. */
function loggedIn(known: ReadonlyMap<string, unknown>, batchKey: string | undefined, commandKey: string): unknown {
  if (batchKey === undefined) return undefined;
  return (known.get(batchKey) as Record<string, unknown> | undefined)?.[commandKey];
}

/** The runtime's command for a job command of the API. */
function jobCommand(command: EngineCommand & { kind: 'completeJob' | 'failJob' }): Command {
  return command.kind === 'completeJob'
    ? { type: 'completeJob', jobKey: command.jobKey, variables: command.variables }
    : { type: 'failJob', jobKey: command.jobKey, retries: command.retries, errorMessage: command.errorMessage };
}
