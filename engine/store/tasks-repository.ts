// Human tasks as the API sees them: a task is a `userTask` job (SPEC.md: user
// tasks wait as jobs), so this reads the jobs table and keeps no table of its
// own. Assignment lives in the job row's `worker` column, which the leader
// never sets for a queued job (activation is recorded in the queues, not in
// Postgres); the leader rewrites the row only when the job is offered again
// after a fail, which clears the assignee, as a fresh offer should.
import { and, asc, eq, gt, isNull, ne, or, type SQL } from 'drizzle-orm';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { jobs, type StoredJobState } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export const USER_TASK_JOB_TYPE = 'userTask';

export interface TaskRecord {
  key: string;
  instanceKey: string;
  bpmnProcessId: string;
  processVersion: number;
  elementId: string;
  elementInstanceKey: string;
  assignee: string | null;
  /** The job's state: FAILED means the task's job ran out of retries (an incident). */
  jobState: StoredJobState;
  customHeaders: Record<string, string>;
  createdAt: Date;
}

export interface TaskFilter extends PageRequest {
  assignee?: string;
  /** true: only tasks nobody holds; false: only held ones. */
  assigned?: boolean;
  instanceKey?: string;
  bpmnProcessId?: string;
  /** open (default): waiting for a person; failed: the job ran out of retries; all: both. */
  state?: 'open' | 'failed' | 'all';
}

export type ClaimOutcome = { status: 'claimed'; task: TaskRecord } | { status: 'held-by-other'; task: TaskRecord };

const columns = {
  key: jobs.key,
  instanceKey: jobs.instanceKey,
  bpmnProcessId: jobs.bpmnProcessId,
  processVersion: jobs.processVersion,
  elementId: jobs.elementId,
  elementInstanceKey: jobs.elementInstanceKey,
  assignee: jobs.worker,
  jobState: jobs.state,
  customHeaders: jobs.customHeaders,
  createdAt: jobs.createdAt,
};

export function tasksRepository(db: Db) {
  const isTask = (account: string, key: string) => and(eq(jobs.account, account), eq(jobs.key, key), eq(jobs.type, USER_TASK_JOB_TYPE));

  async function listTasks(account: string, filter: TaskFilter = {}): Promise<Page<TaskRecord>> {
    assertAccount(account);
    const limit = clampLimit(filter.limit);
    const conditions: (SQL | undefined)[] = [eq(jobs.account, account), eq(jobs.type, USER_TASK_JOB_TYPE)];
    const state = filter.state ?? 'open';
    if (state === 'open') conditions.push(ne(jobs.state, 'FAILED'));
    if (state === 'failed') conditions.push(eq(jobs.state, 'FAILED'));
    if (filter.assignee !== undefined) conditions.push(eq(jobs.worker, filter.assignee));
    if (filter.assigned === true) conditions.push(ne(jobs.worker, ''));
    if (filter.assigned === false) conditions.push(or(isNull(jobs.worker), eq(jobs.worker, '')));
    if (filter.bpmnProcessId !== undefined) conditions.push(eq(jobs.bpmnProcessId, filter.bpmnProcessId));
    if (filter.instanceKey !== undefined) {
      if (!isKey(filter.instanceKey)) return { items: [], nextCursor: null };
      conditions.push(eq(jobs.instanceKey, filter.instanceKey));
    }
    if (filter.cursor) conditions.push(gt(jobs.key, decodeCursor(filter.cursor, isKey)));
    const fetched = await db
      .select(columns)
      .from(jobs)
      .where(and(...conditions))
      .orderBy(asc(jobs.key))
      .limit(limit + 1);
    return toPage(fetched, limit, (r) => r.key, normalise);
  }

  async function getTask(account: string, key: string): Promise<TaskRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [row] = await db.select(columns).from(jobs).where(isTask(account, key));
    return row ? normalise(row) : null;
  }

  /** Takes the task for `assignee` unless someone else holds it; null when there is no such task. */
  async function claimTask(account: string, key: string, assignee: string): Promise<ClaimOutcome | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    // One conditional update, so two concurrent claims cannot both win.
    const [updated] = await db
      .update(jobs)
      .set({ worker: assignee })
      .where(and(isTask(account, key), or(isNull(jobs.worker), eq(jobs.worker, ''), eq(jobs.worker, assignee))))
      .returning(columns);
    if (updated) return { status: 'claimed', task: normalise(updated) };
    const existing = await getTask(account, key);
    return existing ? { status: 'held-by-other', task: existing } : null;
  }

  /** Sets (or, with null, clears) the assignee whoever held the task; null when there is no such task. */
  async function assignTask(account: string, key: string, assignee: string | null): Promise<TaskRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [updated] = await db.update(jobs).set({ worker: assignee }).where(isTask(account, key)).returning(columns);
    return updated ? normalise(updated) : null;
  }

  return guarded({ listTasks, getTask, claimTask, assignTask });
}

function normalise(row: TaskRecord): TaskRecord {
  return { ...row, assignee: row.assignee === '' ? null : row.assignee };
}
