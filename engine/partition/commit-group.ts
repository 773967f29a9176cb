// Group commit for a shard's partition leaders: batches that become ready
// while a commit statement is in flight go together in the next one
// (store.commitBatches: one statement, one round trip, each batch still
// fenced on its own partition's epoch). Per-statement costs — the client's
// protocol work, Postgres's executor start-up, the WAL flush — are then paid
// once for several partitions instead of once each, which is what limited
// a shard with many partitions and small batches. A lone batch goes out at
// once, so an idle engine waits for nothing.
import type { Batch, BatchOutcome } from '../store/index.ts';
import { StaleEpochError } from '../store/index.ts';

interface Waiting {
  batch: Batch;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class CommitGroup {
  private waiting: Waiting[] = [];
  private inFlight = 0;

  /**
   * @param commitBatches the store's multi-partition commit
   * @param maxInFlight statements allowed in flight at once; more batches wait and join the next
   */
  constructor(
    private readonly commitBatches: (batches: readonly Batch[]) => Promise<BatchOutcome[]>,
    private readonly maxInFlight = 1,
  ) {}

  /**
   * Resolves once `batch` is committed; rejects with StaleEpochError when its
   * partition's epoch moved on (nothing of it written), or with the
   * statement's error, which fails every batch that shared it.
   */
  commit(batch: Batch): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      // One batch per partition per statement: a leader waits for its
      // commit before it builds the next batch, so this only guards misuse.
      const group: Waiting[] = [];
      const partitions = new Set<number>();
      const rest: Waiting[] = [];
      for (const item of this.waiting) {
        if (partitions.has(item.batch.partition)) rest.push(item);
        else {
          partitions.add(item.batch.partition);
          group.push(item);
        }
      }
      this.waiting = rest;
      this.inFlight++;
      this.commitBatches(group.map((g) => g.batch))
        .then(
          (outcomes) =>
            group.forEach((g, i) => {
              const outcome = outcomes[i];
              if (outcome.ok) g.resolve();
              else g.reject(new StaleEpochError(g.batch.partition, g.batch.epoch, outcome.epoch));
            }),
          (error: unknown) => group.forEach((g) => g.reject(error)),
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
    }
  }
}
