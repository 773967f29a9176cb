// Reads of an instance's history (what the console shows), in the order it
// happened. Appended only by commit-batch.ts.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { HistoryRecord } from '../runtime/types.ts';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { history } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface HistoryEntry {
  /** 1, 2, 3 … within the instance. */
  position: number;
  record: HistoryRecord;
  createdAt: Date;
}

export function historyRepository(db: Db) {
  async function listHistory(account: string, instanceKey: string, page: PageRequest = {}): Promise<Page<HistoryEntry>> {
    assertAccount(account);
    if (!isKey(instanceKey)) return { items: [], nextCursor: null };
    const limit = clampLimit(page.limit);
    const after = page.cursor ? Number(decodeCursor(page.cursor, (p) => /^[0-9]{1,9}$/.test(p))) : null;
    const fetched = await db
      .select({ position: history.position, record: history.record, createdAt: history.createdAt })
      .from(history)
      .where(
        and(
          eq(history.account, account),
          eq(history.instanceKey, instanceKey),
          after === null ? undefined : gt(history.position, after),
        ),
      )
      .orderBy(asc(history.position))
      .limit(limit + 1);
    return toPage(fetched, limit, (r) => String(r.position), (r) => r);
  }

  return guarded({ listHistory });
}
