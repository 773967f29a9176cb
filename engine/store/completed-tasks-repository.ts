// Reads of completed human tasks (schema.ts `completed_tasks`, written by the
// batch commit as a user task's job completes): newest first, by assignee
// or instance, cursor-paged on (completed_at, key), which the account's
// indexes serve without a sort.
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { decodeListPosition, isListPosition, listPosition } from './list-position.ts';
import { completedTasks } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface CompletedTaskRecord {
  key: string;
  instanceKey: string;
  bpmnProcessId: string;
  processVersion: number;
  elementId: string;
  elementInstanceKey: string;
  /** Who held the task when it was completed; null when nobody did. */
  assignee: string | null;
  createdAt: Date;
  completedAt: Date;
}

export interface CompletedTaskFilter extends PageRequest {
  assignee?: string;
  instanceKey?: string;
}

const columns = {
  key: completedTasks.key,
  instanceKey: completedTasks.instanceKey,
  bpmnProcessId: completedTasks.bpmnProcessId,
  processVersion: completedTasks.processVersion,
  elementId: completedTasks.elementId,
  elementInstanceKey: completedTasks.elementInstanceKey,
  assignee: completedTasks.assignee,
  createdAt: completedTasks.createdAt,
  completedAt: completedTasks.completedAt,
};

export function completedTasksRepository(db: Db) {
  async function listCompletedTasks(account: string, filter: CompletedTaskFilter = {}): Promise<Page<CompletedTaskRecord>> {
    assertAccount(account);
    const limit = clampLimit(filter.limit);
    const conditions: (SQL | undefined)[] = [eq(completedTasks.account, account)];
    if (filter.assignee !== undefined) conditions.push(eq(completedTasks.assignee, filter.assignee));
    if (filter.instanceKey !== undefined) {
      if (!isKey(filter.instanceKey)) return { items: [], nextCursor: null };
      conditions.push(eq(completedTasks.instanceKey, filter.instanceKey));
    }
    if (filter.cursor) {
      const { at, key } = decodeListPosition(decodeCursor(filter.cursor, isListPosition));
      conditions.push(
        sql`(${completedTasks.completedAt}, ${completedTasks.key}) < (timestamptz 'epoch' + ${at}::int8 * interval '1 millisecond', ${key}::int8)`,
      );
    }
    const fetched = await db
      .select(columns)
      .from(completedTasks)
      .where(and(...conditions))
      .orderBy(desc(completedTasks.completedAt), desc(completedTasks.key))
      .limit(limit + 1);
    return toPage(
      fetched,
      limit,
      (r) => listPosition(r.completedAt, r.key),
      (r) => r,
    );
  }

  async function getCompletedTask(account: string, key: string): Promise<CompletedTaskRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [row] = await db
      .select(columns)
      .from(completedTasks)
      .where(and(eq(completedTasks.account, account), eq(completedTasks.key, key)));
    return row ?? null;
  }

  return guarded({ listCompletedTasks, getCompletedTask });
}
