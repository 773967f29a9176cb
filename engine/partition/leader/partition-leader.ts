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
//
// This module is the loop and its lifecycle, and composes the leader of
// its parts, one concern each: intake.ts (what a batch is made of),
// build-batch.ts with results.ts, execute.ts, effects.ts, internal-work.ts
// and start-timers.ts (applying it), pipeline.ts and publish.ts (committing
// and publishing it), recovery.ts, and isolation.ts (poison commands).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { NO_METRICS, type EngineMetrics } from '../../metrics.ts';
import type { Queues } from '../../queue/index.ts';
import type { Tracer } from '../../tracing.ts';
import { StaleEpochError, type SealedBatch, type Store } from '../../store/index.ts';
import type { SendCommand } from '../command-client.ts';
import type { CommandReply, EngineCommand } from '../commands.ts';
import { NO_FLUSH_MARKER, type FlushMarker } from '../flush-marker.ts';
import { KeyGenerator } from '../keys.ts';
import { stderrLog, type EngineLog } from '../log.ts';
import type { ModelCache } from '../model-cache.ts';
import { TimerWheel } from '../timer-wheel.ts';
import { CaseModels } from '../case-models.ts';
import type { WebhookTakerSlot } from '../webhook-taker.ts';
import { BatchBuilder } from './build-batch.ts';
import { CaseCommands } from './cases.ts';
import { Contexts } from './context.ts';
import { Effects } from './effects.ts';
import { Executor } from './execute.ts';
import { HotInstances } from './hot-instances.ts';
import { MessageCommands, MessageState } from './messages.ts';
import { SignalCommands, SignalOutbox } from './signals.ts';
import { CommandIntake, type LocalCommand } from './intake.ts';
import { InternalWork, timerWork, type Internal } from './internal-work.ts';
import { Isolation } from './isolation.ts';
import { CommitPipeline } from './pipeline.ts';
import { Publisher } from './publish.ts';
import { recover, type RecoveryParts } from './recovery.ts';
import { CommandResults } from './results.ts';
import { StartTimers } from './start-timers.ts';
import { FREE_STARTS, type EventStartCharges } from '../event-start-charges.ts';
import { BufferedStarts } from './buffered-starts.ts';

/** How often the leader checks that Redis still has its flush marker. */
const MARKER_CHECK_MS = 500;
const NO_LOCAL: LocalCommand[] = [];

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
  /** Where commands set aside are reported (default: stderr). */
  log?: EngineLog;
  /** Where published batches are counted (default: nowhere). */
  metrics?: EngineMetrics;
  /** Tracing on: batches carrying sampled commands are traced (batch-trace.ts). */
  tracer?: Tracer;
  /** How many partitions there are (default 1), for the signals this partition's instances throw (extension). */
  partitions?: number;
  /** The engine's command client, once it has one: thrown signals go to the other partitions through it. */
  send?: () => SendCommand | undefined;
  /** The process's webhook dispatcher, if one is attached: committed batches' events go to it in memory. */
  webhooks?: WebhookTakerSlot;
  /** Credits for the instances a thrown signal or a buffered message starts (default: free). */
  charges?: EventStartCharges;
}

export class PartitionLeader {
  readonly partition: number;
  readonly epoch: number;
  private readonly hot: HotInstances;
  /** Work for instances that does not come from the stream, run in the next batch (internal-work.ts). */
  private readonly internal: Internal[] = [];
  private readonly wheel: TimerWheel;
  private readonly intake: CommandIntake;
  private readonly results: CommandResults;
  private readonly pipeline: CommitPipeline;
  private readonly recovery: RecoveryParts;
  private readonly marker: FlushMarker;
  private readonly signals: SignalOutbox;
  private running = false;
  /** Set after any failure: memory and queues must be rebuilt from Postgres before the next batch. */
  private needsRecovery = true;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: LeaderOptions) {
    const { partition, epoch, store, queues, models } = options;
    this.partition = partition;
    this.epoch = epoch;
    this.marker = options.marker ?? NO_FLUSH_MARKER;
    const log = options.log ?? stderrLog;
    const keys = new KeyGenerator(partition, epoch);
    this.intake = new CommandIntake(partition, queues.commands);
    this.wheel = new TimerWheel((timer) => {
      this.internal.push(timerWork(timer));
      this.intake.wakeUp();
    });
    this.hot = new HotInstances(store);
    this.results = new CommandResults(partition, epoch, store.commands, this.hot);
    const contexts = new Contexts(models, keys);
    const messages = new MessageState(this.internal, keys, store, partition);
    this.signals = new SignalOutbox({
      partition,
      partitions: options.partitions ?? 1,
      keys,
      internal: this.internal,
      messages,
      models,
      charges: options.charges ?? FREE_STARTS,
      send: options.send ?? (() => undefined),
      wakeUp: () => this.intake.wakeUp(),
    });
    const effects = new Effects(partition, this.hot, this.internal, messages, this.signals);
    const startTimers = new StartTimers(partition, models, contexts, this.wheel, keys, effects, log);
    const messageCommands = new MessageCommands(messages, models, contexts, keys, this.hot, effects);
    const signalCommands = new SignalCommands(messages, models, contexts, keys, this.hot, effects);
    const cases = new CaseCommands(partition, models, new CaseModels(store), keys, this.hot, this.internal);
    const charges = options.charges ?? FREE_STARTS;
    const bufferedStarts = new BufferedStarts(messages, models, contexts, effects, this.internal, charges, () => this.intake.wakeUp());
    const executor = new Executor(models, contexts, this.hot, effects, startTimers, messageCommands, signalCommands, cases);
    const isolation = new Isolation(partition, store, queues, this.hot, executor, log);
    const internalWork = new InternalWork(
      partition,
      models,
      contexts,
      this.hot,
      executor,
      effects,
      startTimers,
      log,
      signalCommands,
      cases,
      bufferedStarts,
      messages,
    );
    const builder = new BatchBuilder(
      partition,
      epoch,
      this.results,
      executor,
      isolation,
      this.internal,
      internalWork,
      effects,
      this.intake,
      messages,
      options.webhooks,
    );
    const publisher = new Publisher(
      partition,
      options.metrics ?? NO_METRICS,
      queues,
      this.wheel,
      this.hot,
      this.results,
      isolation,
      this.signals,
      bufferedStarts,
      options.webhooks,
    );
    this.pipeline = new CommitPipeline(this.intake, builder, isolation, publisher, options.commit, partition, options.tracer);
    this.recovery = {
      partition,
      epoch,
      store,
      queues,
      marker: this.marker,
      resumeCommits: options.resumeCommits,
      hot: this.hot,
      internal: this.internal,
      wheel: this.wheel,
      results: this.results,
      isolation,
      intake: this.intake,
      messages,
      signals: this.signals,
      bufferedStarts,
    };
  }

  /**
   * Recovery, then the batch loop. Never throws: when the store or Redis is
   * unavailable, the loop keeps retrying recovery (a leader that held its
   * lease without a loop would leave its partition dead).
   */
  async start(): Promise<void> {
    this.running = true;
    try {
      await recover(this.recovery);
      this.needsRecovery = false;
    } catch {
      // The loop tries again with backoff.
    }
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.signals.stop();
    this.wheel.stop();
    this.intake.wakeUp();
    await this.loop;
    this.hot.clear();
    this.intake.handBack();
  }

  /**
   * Takes a command from this process's API straight to the batch loop, and
   * resolves with its committed reply. Undefined when this leader cannot
   * take it now (stopped, or recovering): the caller uses the stream.
   * 'full' when `limit` commands wait already (backpressure).
   */
  submit(key: string, payload: EngineCommand, limit?: number): Promise<CommandReply> | 'full' | undefined {
    if (!this.running || this.needsRecovery) return undefined;
    if (limit !== undefined && this.intake.waiting >= limit) return 'full';
    return this.intake.submit(key, payload);
  }

  /** Commands waiting for this leader (a gauge): its stream's unacknowledged entries and this process's local commands. */
  async pending(): Promise<number> {
    return this.intake.waiting + (await this.options.queues.commands.pending(this.partition));
  }

  /** Whether this leader is failing to commit (for readiness): since when, or undefined. */
  failingSinceMs(): number | undefined {
    return this.pipeline.failingSince;
  }

  private async run(): Promise<void> {
    const pipeline = this.pipeline;
    let backoff = 50;
    let nextMarkerCheck = Date.now() + MARKER_CHECK_MS;
    while (this.running) {
      try {
        pipeline.throwIfBroken();
        if (this.needsRecovery) {
          // Nothing is applied until recovery succeeds: a batch whose commit
          // failed may have committed after all, and only the rebuild from
          // Postgres queues its jobs.
          await recover(this.recovery);
          this.needsRecovery = false;
        } else if (Date.now() >= nextMarkerCheck) {
          nextMarkerCheck = Date.now() + MARKER_CHECK_MS;
          if (!(await this.marker.present(this.partition))) {
            this.needsRecovery = true;
            await pipeline.drain();
            continue;
          }
        }
        const entries = await this.intake.read(this.internal.length === 0 && this.running);
        // A batch failed meanwhile: the local commands wait for after recovery
        // (stream entries taken here are read again then, from the stream's start).
        const local = pipeline.isBroken ? NO_LOCAL : this.intake.takeLocal();
        pipeline.throwIfBroken();
        if (entries.length === 0 && local.length === 0 && this.internal.length === 0) {
          // Recovered and idle: nothing is waiting to commit.
          if (!this.needsRecovery) pipeline.failingSince = undefined;
          continue;
        }
        await pipeline.process(entries, local);
        // A batch handed to the commit says nothing yet: the backoff resets once one commits.
        if (pipeline.failingSince === undefined) backoff = 50;
        // Let the rest of the process run. On PGlite with the in-process
        // queues every step of a batch resolves without I/O, so while
        // commands keep coming the loop lived on microtasks alone: no timer,
        // socket or HTTP request was served (bench:e2e's embedded run timed
        // out hundreds of starts). On Postgres the commit's round trip
        // yields anyway; this costs one check phase per batch.
        await nextTurn();
      } catch (err) {
        pipeline.failingSince ??= Date.now();
        // Whatever was applied in memory may not be committed: once the
        // batches under way have settled, forget it and reload.
        this.needsRecovery = true;
        await pipeline.drain();
        this.hot.clear();
        this.results.clear();
        if (err instanceof StaleEpochError) {
          this.running = false;
          this.intake.handBack();
          this.options.onStop?.(`partition ${this.partition}: lease taken over (${err.message})`);
          return;
        }
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
    await pipeline.drain();
  }
}
