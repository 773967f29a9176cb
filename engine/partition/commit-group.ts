// Group commit for a shard's partition leaders: batches that become ready
// while a commit statement is in flight go together in the next one
// (store.commitBatches: one statement, one round trip, each batch still
// fenced on its own partition's epoch). Per-statement costs — the client's
// protocol work, Postgres's executor start-up, the WAL flush — are then paid
// once for several partitions instead of once each, which is what limited
// a shard with many partitions and small batches. A lone batch goes out at
// once, so an idle engine waits for nothing.
//
// A leader hands in its next batch while the one before is still being
// committed (it builds on the uncommitted state in memory; see
// PartitionLeader). So the group keeps each partition's batches in order:
// a batch waits while its partition has one in a statement, and when that
// one fails, every batch of the partition still waiting fails with it —
// they were built on what did not commit. So does every batch of the
// partition handed in later, until its leader has recovered (`resume`): a
// batch still being built when the failure came was built on it too.
//
// A statement Postgres refuses for what one batch carries (a value it
// cannot store: BatchRejectedError) would fail every partition sharing it,
// so such a group is sent again one batch per statement: the innocent
// batches commit, and only the guilty one fails, to its own leader, which
// isolates the command behind it.
// Straight from the modules, not the store's index: the commit thread loads this file, and the index loads the whole store.
import type { BatchOutcome, CommitInput } from '../store/commit-batch.ts';
import { BatchRejectedError, StaleEpochError } from '../store/errors.ts';

const staleEpoch = (g: Waiting, outcome: BatchOutcome & { ok: false }): StaleEpochError => new StaleEpochError(g.batch.partition, g.batch.epoch, outcome.epoch);

interface Waiting {
  batch: CommitInput;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class CommitGroup {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  /** Partitions with a batch in a statement under way. */
  private readonly busy = new Set<number>();
  /** Partitions whose batch failed, with the error, until their leader resumes them. */
  private readonly failed = new Map<number, unknown>();

  /**
   * @param commitBatches the store's multi-partition commit
   * @param maxInFlight statements allowed in flight at once; more batches wait and join the next
   */
  constructor(
    private readonly commitBatches: (batches: readonly CommitInput[]) => Promise<BatchOutcome[]>,
    private readonly maxInFlight = 1,
  ) {}

  /**
   * Resolves once `batch` is committed; rejects with StaleEpochError when its
   * partition's epoch moved on (nothing of it written), or with the
   * statement's error, which fails every batch that shared it. Either way
   * the partition's batches handed in after it fail too, until `resume`.
   */
  commit(batch: CommitInput): Promise<void> {
    if (this.failed.has(batch.partition)) return Promise.reject(this.failed.get(batch.partition));
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
      this.flush();
    });
  }

  /** The partition's leader recovered from a failed batch: its new batches are built on what Postgres holds. */
  resume(partition: number): void {
    this.failed.delete(partition);
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight) {
      // The oldest waiting batch of each partition that has none in flight.
      const group: Waiting[] = [];
      const taken = new Set<number>();
      const rest: Waiting[] = [];
      for (const item of this.waiting) {
        const partition = item.batch.partition;
        if (taken.has(partition) || this.busy.has(partition)) rest.push(item);
        else {
          taken.add(partition);
          group.push(item);
        }
      }
      if (group.length === 0) return;
      this.waiting = rest;
      this.inFlight++;
      for (const partition of taken) this.busy.add(partition);
      this.commitBatches(group.map((g) => g.batch)).then(
        (outcomes) => this.settle(group, taken, (g, i) => (outcomes[i].ok ? undefined : staleEpoch(g, outcomes[i]))),
        (error: unknown) => {
          if (error instanceof BatchRejectedError && group.length > 1) void this.oneByOne(group, taken);
          else this.settle(group, taken, () => error);
        },
      );
    }
  }

  /** Commits each batch of a refused group in a statement of its own, then settles them all. */
  private async oneByOne(group: Waiting[], taken: Set<number>): Promise<void> {
    const errors: unknown[] = [];
    for (const g of group) {
      try {
        const [outcome] = await this.commitBatches([g.batch]);
        errors.push(outcome.ok ? undefined : staleEpoch(g, outcome));
      } catch (error) {
        errors.push(error);
      }
    }
    this.settle(group, taken, (_g, i) => errors[i]);
  }

  /**
   * Ends a statement. The next one is sent before any caller hears of this
   * one: what the callers do next (publish jobs, reply, hand in more work)
   * is a long stretch of the event loop, and Postgres would sit idle through
   * it. A failed batch's waiting successors are failed first, so the next
   * statement cannot carry them.
   */
  private settle(group: Waiting[], taken: Set<number>, errorOf: (g: Waiting, i: number) => unknown): void {
    const errors = group.map(errorOf);
    group.forEach((g, i) => {
      if (errors[i] !== undefined) this.fail(g, errors[i]);
    });
    this.inFlight--;
    for (const partition of taken) this.busy.delete(partition);
    this.flush();
    group.forEach((g, i) => {
      if (errors[i] === undefined) g.resolve();
    });
  }

  /** Fails `item` and the batches of its partition waiting behind it. */
  private fail(item: Waiting, error: unknown): void {
    item.reject(error);
    const partition = item.batch.partition;
    this.failed.set(partition, error);
    const behind = this.waiting.filter((w) => w.batch.partition === partition);
    if (behind.length === 0) return;
    this.waiting = this.waiting.filter((w) => w.batch.partition !== partition);
    for (const w of behind) w.reject(error);
  }
}
