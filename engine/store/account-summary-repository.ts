// The figures of a signed-in person's dashboard (docs/account.md): every one
// read from an index range of the account, never a scan of its instances.
// Instances by state come from the element_stats rows the engine keeps as
// it commits (element-stats.ts; as many rows as the account has deployed
// versions × partitions); the rest are counts that stop at a cap, so an
// account with millions of rows costs at most the cap's worth of index
// entries per figure, and the answer names the figures that reached it.
import { sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { INSTANCE_ROW } from './element-stats.ts';
import { guarded } from './errors.ts';
import { assertAccount } from './tenancy.ts';

/** Counts of open incidents and of each type's waiting jobs stop here. */
export const BACKLOG_COUNT_CAP = 1_000;
/** Counts of starts and completions in a window stop here. */
export const USAGE_COUNT_CAP = 100_000;
/** Job types listed (in name order). */
export const MAX_JOB_TYPES = 50;

export interface AccountSummary {
  definitions: number;
  instances: { active: number; incident: number; completed: number; terminated: number };
  openIncidents: number;
  jobsWaiting: { type: string; waiting: number }[];
  usage: {
    day: { starts: number; taskCompletions: number };
    month: { starts: number; taskCompletions: number };
  };
  /** The figures that reached their cap (they are "at least" that many), e.g. `usage.month.starts`. */
  saturated: string[];
}

export function accountSummaryRepository(db: Db) {
  async function summary(account: string, now: Date): Promise<AccountSummary> {
    assertAccount(account);
    // One read-only transaction whose plans may only walk indexes: a bitmap
    // scan reads every matching entry before a LIMIT applies, and a
    // sequential scan reads other accounts' rows, so either would make a
    // capped count cost what the account (or the table) holds.
    return db.transaction(async (tx) => {
      await tx.execute(sql`set transaction read only`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      await tx.execute(sql`set local enable_seqscan = off`);
      return read(tx, account, now);
    });
  }

  return guarded({ summary });
}

async function read(db: Db, account: string, now: Date): Promise<AccountSummary> {
  const count = async (query: ReturnType<typeof sql>): Promise<number> => Number((await rows<{ n: string | number }>(db, query))[0]?.n ?? 0);
  const dayAgo = new Date(now.getTime() - 86_400_000).toISOString();
  const monthAgo = new Date(now.getTime() - 30 * 86_400_000).toISOString();
  // Ordered as instances_account_created_idx and completed_tasks_account_completed_idx are, newest first.
  const startsSince = (since: string) =>
    count(sql`select count(*) as n from (select 1 from instances where account = ${account} and created_at >= ${since}::timestamptz
              order by created_at desc limit ${USAGE_COUNT_CAP}) c`);
  const completionsSince = (since: string) =>
    count(sql`select count(*) as n from (select 1 from completed_tasks where account = ${account} and completed_at >= ${since}::timestamptz
              order by completed_at desc limit ${USAGE_COUNT_CAP}) c`);
  const definitions = await count(sql`select count(*) as n from definitions where account = ${account}`);
  const [s] = await rows<{ active: string | null; incidents: string | null; completed: string | null; canceled: string | null }>(
    db,
    sql`select sum(active)::text as active, sum(incidents)::text as incidents, sum(completed)::text as completed, sum(canceled)::text as canceled
        from element_stats where account = ${account} and element_id = ${INSTANCE_ROW}`,
  );
  const openIncidents = await count(
    sql`select count(*) as n from (select 1 from incidents where account = ${account} and state = 'OPEN' limit ${BACKLOG_COUNT_CAP}) c`,
  );
  // The job types by a skip scan of jobs_account_type_state_idx (one probe per type), then each type's waiting jobs.
  const jobs = await rows<{ type: string; waiting: number }>(
    db,
    sql`with recursive types (type, depth) as (
          (select type, 1 from jobs where account = ${account} order by type limit 1)
          union all
          select (select j.type from jobs j where j.account = ${account} and j.type > t.type order by j.type limit 1), t.depth + 1
          from types t where t.type is not null and t.depth < ${MAX_JOB_TYPES}
        )
        select t.type, (select count(*)::int from (select 1 from jobs j where j.account = ${account} and j.type = t.type
                                                    and j.state = 'ACTIVATABLE' limit ${BACKLOG_COUNT_CAP}) w) as waiting
        from types t where t.type is not null order by t.type`,
  );
  const usage = {
    day: { starts: await startsSince(dayAgo), taskCompletions: await completionsSince(dayAgo) },
    month: { starts: await startsSince(monthAgo), taskCompletions: await completionsSince(monthAgo) },
  };
  const jobsWaiting = jobs.filter((j) => Number(j.waiting) > 0).map((j) => ({ type: j.type, waiting: Number(j.waiting) }));
  const saturated: string[] = [];
  if (openIncidents >= BACKLOG_COUNT_CAP) saturated.push('openIncidents');
  for (const j of jobsWaiting) if (j.waiting >= BACKLOG_COUNT_CAP) saturated.push(`jobsWaiting.${j.type}`);
  if (jobs.length >= MAX_JOB_TYPES) saturated.push('jobsWaiting');
  for (const [window, figures] of Object.entries(usage))
    for (const [name, value] of Object.entries(figures)) if (value >= USAGE_COUNT_CAP) saturated.push(`usage.${window}.${name}`);
  return {
    definitions,
    instances: {
      active: Number(s?.active ?? 0),
      incident: Number(s?.incidents ?? 0),
      completed: Number(s?.completed ?? 0),
      terminated: Number(s?.canceled ?? 0),
    },
    openIncidents,
    jobsWaiting,
    usage,
    saturated,
  };
}
