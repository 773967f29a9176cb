// Reads of timers for the partition leader, which keeps its partition's due
// timers in memory and fires each as a command on that partition (DESIGN
// §4). Written only through commit-batch.ts.
import { and, asc, eq, lte } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { timers } from './schema.ts';

export type TimerRecord = typeof timers.$inferSelect;

export function timersRepository(db: Db) {
  /** Timers of `partition` due at or before `before`, soonest first; served by the (partition, due_at) index. */
  async function loadDueTimers(partition: number, before: Date, options: { limit?: number } = {}): Promise<TimerRecord[]> {
    const limit = Math.min(Math.max(1, options.limit ?? 10_000), 100_000);
    return db
      .select()
      .from(timers)
      .where(and(eq(timers.partition, partition), lte(timers.dueAt, before)))
      .orderBy(asc(timers.dueAt), asc(timers.key))
      .limit(limit);
  }

  return guarded({ loadDueTimers });
}
