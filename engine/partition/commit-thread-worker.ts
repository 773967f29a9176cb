// Inside the commit thread (commit-thread.ts): the shard's group commit on a
// writer connection of its own. Nothing else runs on this event loop, so a
// statement's result is taken as it arrives and the next group goes at once.
import { parentPort, workerData } from 'node:worker_threads';
import { drizzle } from 'drizzle-orm/node-postgres';
import { commitBatches } from '../store/commit-batch.ts';
import { openWriterPool, type WriterConnection } from '../store/pg-pool.ts';
import type { Db } from '../store/db.ts';
import { BatchRejectedError, StaleEpochError, StoreUnavailableError } from '../store/errors.ts';
import { CommitGroup } from './commit-group.ts';
import type { FromThread, ThreadError, ToThread } from './commit-thread.ts';

const port = parentPort!;
// One statement in flight at a time: one connection.
const pool = openWriterPool(workerData as WriterConnection, 1);
const writer = drizzle(pool) as unknown as Db;
const group = new CommitGroup((batches) => commitBatches(writer, batches));
/** Outcomes not yet sent back. */
const unsettled = new Set<Promise<void>>();

port.on('message', (message: ToThread) => {
  if (message.type === 'resume') return group.resume(message.partition);
  if (message.type === 'close') {
    // The batches handed in first are answered, then the connection ends.
    void Promise.allSettled([...unsettled])
      .then(() => pool.end())
      .finally(() => port.close());
    return;
  }
  const { id } = message;
  const outcome = group.commit(message.batch).then(
    () => port.postMessage({ type: 'outcome', id } satisfies FromThread),
    (error: unknown) => port.postMessage({ type: 'outcome', id, error: describe(error) } satisfies FromThread),
  );
  unsettled.add(outcome);
  void outcome.finally(() => unsettled.delete(outcome));
});

// Connected before the first batch comes (a failure here is left to the commits to report).
void pool
  .connect()
  .then(
    (client) => client.release(),
    () => {},
  )
  .finally(() => port.postMessage({ type: 'ready' } satisfies FromThread));

function describe(error: unknown): ThreadError {
  if (error instanceof StaleEpochError) return { kind: 'stale', partition: error.partition, epoch: error.epoch, current: error.currentEpoch };
  if (error instanceof StoreUnavailableError) return { kind: 'unavailable', message: error.message };
  if (error instanceof BatchRejectedError) return { kind: 'rejected', message: error.message, sqlState: error.sqlState };
  return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
}
