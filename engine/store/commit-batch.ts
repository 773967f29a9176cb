// The partition leader's write path (DESIGN §1): everything a batch of
// commands produced — instance documents, jobs, timers, incidents, history
// and the command results that make replays idempotent — is committed
// atomically, behind a fence on the partition's epoch. A leader that lost its
// lease gets StaleEpochError and nothing of its batch is written.
//
// The whole batch is ONE statement, hence one round trip and one implicit
// transaction, whatever its size: the rows travel as a single jsonb
// parameter that Postgres unpacks (jsonb_to_recordset), and data-modifying
// CTEs do the writes. Every write is gated on the fence CTE, so a stale epoch
// writes nothing and the statement reports the current epoch; a tenancy
// violation (an upsert that met another account's row) makes the statement
// fail on purpose, which undoes everything it wrote. No query builder runs
// here: the SQL text is fixed, and JSON.stringify is the only per-row work.
//
// This module runs it; the statement itself is commit-batch-sql.ts, the
// batch's types batch-types.ts, and its encoding batch-payload.ts.
import type { Db } from './db.ts';
import type { Batch, BatchOutcome, CommitInput } from './batch-types.ts';
import { payloadText, sealBatch } from './batch-payload.ts';
import { COMMIT_BATCH, refusal } from './commit-batch-sql.ts';
import { asRejection, guard, StaleEpochError } from './errors.ts';
import { runStatement } from './statement.ts';

export type {
  Batch,
  BatchOutcome,
  CommandWrite,
  CommitInput,
  HistoryWrite,
  IncidentWrite,
  InstanceWrite,
  JobWrite,
  SealedBatch,
  TimerWrite,
} from './batch-types.ts';
export { sealBatch } from './batch-payload.ts';

/**
 * Commits a batch atomically behind the epoch fence. Throws StaleEpochError
 * (nothing written) when the partition's epoch is not `batch.epoch`.
 */
export async function commitBatch(db: Db, batch: Batch): Promise<void> {
  const [outcome] = await commitBatches(db, [batch]);
  if (!outcome.ok) throw new StaleEpochError(batch.partition, batch.epoch, outcome.epoch);
}

/**
 * Commits the batches of several partitions in ONE statement (one round
 * trip, one transaction): a shard's leaders share the per-statement cost
 * this way (group commit). Each batch is fenced on its own partition's
 * epoch: a stale one writes nothing and comes back `ok: false`, the others
 * commit. At most one batch per partition. A refusal (tenancy) or any
 * error fails them all, writing nothing.
 */
export function commitBatches(db: Db, batches: readonly CommitInput[]): Promise<BatchOutcome[]> {
  return guard(async () => {
    const partitions = new Set(batches.map((b) => b.partition));
    if (partitions.size !== batches.length) throw new RangeError('commitBatches: at most one batch per partition');
    if (batches.length === 0) return [];
    const payload = payloadText(batches.map((b) => ('parts' in b ? b : sealBatch(b))));
    let result: { id: number; epoch: string | null; ok: boolean }[];
    try {
      result = await runStatement(db, COMMIT_BATCH, [payload]);
    } catch (error) {
      throw refusal(error) ?? asRejection(error) ?? error;
    }
    const fences = new Map(result.map((row) => [Number(row.id), row]));
    return batches.map((batch): BatchOutcome => {
      const row = fences.get(batch.partition);
      return row?.ok ? { ok: true } : { ok: false, epoch: row?.epoch == null ? null : Number(row.epoch) };
    });
  });
}
