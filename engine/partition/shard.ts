// An engine shard: holds leases on partitions and runs a leader for each.
// It renews what it holds every third of the lease time, and takes
// partitions that are free or whose leader stopped renewing (crashed), up to
// a fair share of the partitions among the shards it can see leading.
// A renewal that fails means someone else leads now: that leader stops.
import { randomInt } from 'node:crypto';
import { NO_METRICS, type EngineMetrics } from '../metrics.ts';
import type { Queues } from '../queue/index.ts';
import type { Store, WriterConnection } from '../store/index.ts';
import type { SendCommand } from './command-client.ts';
import type { FlushMarker } from './flush-marker.ts';
import type { ModelCache } from './model-cache.ts';
import { CommitGroup } from './commit-group.ts';
import type { EngineLog } from './log.ts';
import type { Tracer } from '../tracing.ts';
import { CommitThread } from './commit-thread.ts';
import { PartitionLeader } from './leader/index.ts';
import type { EventStartCharges } from './event-start-charges.ts';
import { WebhookTakerSlot, type WebhookTaker } from './webhook-taker.ts';

export interface ShardOptions {
  store: Store;
  queues: Queues;
  models: ModelCache;
  partitions: number;
  /** Unique per process; a restarted process with the same owner fences its previous incarnation. */
  owner: string;
  leaseMs: number;
  /** Lets leaders notice a Redis flush (absent with the in-process queues). */
  marker?: FlushMarker;
  /** Command results older than this leave the command log (EngineConfig.commandRetentionMs). */
  commandRetentionMs: number;
  /**
   * Postgres: the leaders' group commit runs in a thread of its own on such
   * a connection (commit-thread.ts). Without it (PGlite, or a caller that
   * wants the commits to go through `store.commitBatches`) it runs here.
   */
  commitThread?: WriterConnection;
  /** Where leaders report commands they set aside (default: stderr). */
  log?: EngineLog;
  /** Where leaders count their batches and the shard its leaderships (default: nowhere). */
  metrics?: EngineMetrics;
  /** Tracing on: leaders trace their batches (default: off). */
  tracer?: Tracer;
  /** Credits for the instances events start inside the engine (default: free). */
  charges?: EventStartCharges;
}

/** How often a shard prunes its partitions' command logs. */
const PRUNE_EVERY_MS = 60_000;

export class Shard {
  private readonly leaders = new Map<number, PartitionLeader>();
  /** Where the leaders hand committed webhook events to this process's dispatcher. */
  private readonly webhooks = new WebhookTakerSlot();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private presence: { id: number; epoch: number } | undefined;
  /** The leaders' batches, committed together when they are ready together. */
  private readonly commits: CommitGroup | CommitThread;
  private nextPrune = 0;
  /** The engine's command client, which the leaders use to deliver the signals their instances throw (extension). */
  private sender: SendCommand | undefined;
  /** A prune under way: it runs beside the ticks, so a long delete never delays a lease renewal. */
  private pruning: Promise<void> | undefined;

  constructor(private readonly options: ShardOptions) {
    this.commits =
      options.commitThread === undefined ? new CommitGroup((batches) => options.store.commitBatches(batches)) : new CommitThread(options.commitThread);
  }

  /** Made after the shard (it sends to the shard's leaders in memory), so handed over when it exists. */
  useSender(send: SendCommand): void {
    this.sender = send;
  }

  /** Takes its first partitions before returning, so a single shard is ready at once. */
  async start(): Promise<void> {
    if (this.commits instanceof CommitThread) await this.commits.open();
    await this.tick();
    const every = Math.max(50, Math.floor(this.options.leaseMs / 3));
    const loop = () => {
      if (this.stopped) return;
      this.ticking = this.tick().finally(() => {
        if (!this.stopped) this.timer = setTimeout(loop, every);
      });
    };
    this.timer = setTimeout(loop, every);
  }

  /** The leader of `partition` in this process, if this shard leads it. */
  leaderOf(partition: number): PartitionLeader | undefined {
    return this.leaders.get(partition);
  }

  /** The dispatcher the leaders hand their committed webhook events to, or none. */
  attachWebhookTaker(taker: WebhookTaker | undefined): void {
    this.webhooks.attach(taker);
  }

  /** Partitions this shard leads now. */
  owned(): number[] {
    return [...this.leaders.keys()].sort((a, b) => a - b);
  }

  /** Partitions this shard leads that have failed to commit for at least `forMs`: readiness reports them. */
  stalled(forMs: number): number[] {
    const before = Date.now() - forMs;
    return this.owned().filter((p) => {
      const since = this.leaders.get(p)!.failingSinceMs();
      return since !== undefined && since <= before;
    });
  }

  /** The commands waiting on each partition this shard leads (gauges). */
  async pending(): Promise<{ partition: number; pending: number }[]> {
    const led = [...this.leaders];
    return Promise.all(led.map(async ([partition, leader]) => ({ partition, pending: await leader.pending() })));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.pruning;
    for (const [partition, leader] of this.leaders) {
      await leader.stop();
      await this.options.store.leases.releaseLease(partition, this.options.owner, leader.epoch).catch(() => false);
    }
    this.leaders.clear();
    if (this.presence !== undefined) await this.options.store.leases.releaseLease(this.presence.id, this.options.owner, this.presence.epoch).catch(() => false);
    // The leaders have stopped, their batches settled: nothing is left to commit.
    if (this.commits instanceof CommitThread) await this.commits.close();
  }

  private async tick(): Promise<void> {
    const { store, owner, leaseMs, partitions } = this.options;
    try {
      await this.announce();
      for (const [partition, leader] of [...this.leaders]) {
        if (!(await store.leases.renewLease(partition, owner, leader.epoch, leaseMs))) await this.drop(partition);
      }
      this.pruning ??= this.pruneCommands()
        .catch(() => {})
        .finally(() => (this.pruning = undefined));
      const leases = await store.leases.listLeases();
      // `expired` is judged by the database clock, so shards with skewed clocks agree.
      // Presence rows (negative ids) count every live shard, including ones that lead nothing yet.
      const live = new Set(leases.filter((l) => l.leader && !l.expired).map((l) => l.leader));
      live.add(owner);
      const share = Math.ceil(partitions / live.size);
      // Over our fair share because a shard joined: hand one partition over per tick, so
      // ownership moves gradually and the newcomer takes it on its next tick.
      if (this.leaders.size > share) {
        const give = Math.max(...this.leaders.keys());
        const leader = this.leaders.get(give)!;
        await this.drop(give);
        await store.leases.releaseLease(give, owner, leader.epoch);
        return;
      }
      const heldByOthers = new Set(leases.filter((l) => l.partition >= 0 && l.leader && l.leader !== owner && !l.expired).map((l) => l.partition));
      for (let p = 0; p < partitions && this.leaders.size < share && !this.stopped; p++) {
        if (this.leaders.has(p) || heldByOthers.has(p)) continue;
        const lease = await store.leases.acquireLease(p, owner, leaseMs);
        if (lease === null) continue;
        const leader = new PartitionLeader({
          ...this.options,
          partition: p,
          epoch: lease.epoch,
          onStop: () => void this.drop(p),
          commit: (batch) => this.commits.commit(batch),
          resumeCommits: () => this.commits.resume(p),
          send: () => this.sender,
          webhooks: this.webhooks,
        });
        this.leaders.set(p, leader);
        (this.options.metrics ?? NO_METRICS).leaderChanged(p);
        await leader.start();
      }
    } catch {
      // The store is unreachable: keep what we have; renewals decide on the next tick.
    }
  }

  /**
   * Every command leaves a row with its result in the command log (that is
   * what makes a retry idempotent); past the retention nobody can still be
   * retrying it, so the rows of the partitions this shard leads go.
   */
  private async pruneCommands(): Promise<void> {
    if (Date.now() < this.nextPrune) return;
    const retention = this.options.commandRetentionMs;
    this.nextPrune = Date.now() + Math.min(PRUNE_EVERY_MS, retention / 10);
    const before = new Date(Date.now() - retention);
    for (const partition of this.leaders.keys()) await this.options.store.commands.pruneCommands(partition, before);
    // Keyed deploys' results (request_keys) have no partition: partition 0's leader prunes them, on the same horizon.
    if (this.leaders.has(0)) await this.options.store.requestKeys.prune(before);
  }

  /**
   * Keeps this shard's presence lease alive: a row in the leases table with
   * a negative id of its own, so other shards count it before it leads
   * anything and hand partitions over.
   */
  private async announce(): Promise<void> {
    const { store, owner, leaseMs } = this.options;
    if (this.presence !== undefined && (await store.leases.renewLease(this.presence.id, owner, this.presence.epoch, leaseMs))) return;
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = -1 - randomInt(2 ** 30);
      const lease = await store.leases.acquireLease(id, owner, leaseMs);
      if (lease !== null) {
        this.presence = { id, epoch: lease.epoch };
        return;
      }
    }
  }

  private async drop(partition: number): Promise<void> {
    const leader = this.leaders.get(partition);
    if (leader === undefined) return;
    this.leaders.delete(partition);
    await leader.stop();
  }
}
