// Reads of jobs. Jobs are written only by their partition's leader
// (commit-batch.ts); these reads serve the API's existence check before a
// complete or fail (404 when gone, DESIGN §4) and the rebuilding of the
// Redis queues from Postgres after a flush or a takeover.
import { and, asc, eq, gt } from 'drizzle-orm';
import { isKey } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { jobs } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export type JobRecord = typeof jobs.$inferSelect;

const LOAD_PAGE = 1000;

export function jobsRepository(db: Db) {
  async function getJob(account: string, key: string): Promise<JobRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [row] = await db
      .select()
      .from(jobs)
      .where(and(eq(jobs.account, account), eq(jobs.key, key)));
    return row ?? null;
  }

  /** Every job of a partition (all accounts), by key: what its queues must hold. */
  async function loadPartitionJobs(partition: number): Promise<JobRecord[]> {
    const out: JobRecord[] = [];
    let after: string | null = null;
    for (;;) {
      const page: JobRecord[] = await db
        .select()
        .from(jobs)
        .where(and(eq(jobs.partition, partition), after === null ? undefined : gt(jobs.key, after)))
        .orderBy(asc(jobs.key))
        .limit(LOAD_PAGE);
      out.push(...page);
      if (page.length < LOAD_PAGE) return out;
      after = page[page.length - 1].key;
    }
  }

  /** One (account, type) queue's activatable jobs, by key; served by the (account, type, state) index. */
  async function listActivatableJobs(account: string, type: string, options: { limit?: number; afterKey?: string } = {}): Promise<JobRecord[]> {
    assertAccount(account);
    const limit = Math.min(Math.max(1, options.limit ?? 1000), 10_000);
    return db
      .select()
      .from(jobs)
      .where(
        and(
          eq(jobs.account, account),
          eq(jobs.type, type),
          eq(jobs.state, 'ACTIVATABLE'),
          options.afterKey && isKey(options.afterKey) ? gt(jobs.key, options.afterKey) : undefined,
        ),
      )
      .orderBy(asc(jobs.key))
      .limit(limit);
  }

  return guarded({ getJob, loadPartitionJobs, listActivatableJobs });
}
