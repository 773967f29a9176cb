// Reads of an instance's history (what the console shows), in the order it
// happened. Appended only by commit-batch.ts, one row per instance and
// batch (schema.ts), records encoded compactly (history-records.ts); read
// here one entry per record.
import { sql } from 'drizzle-orm';
import type { HistoryRecord } from '../runtime/types.ts';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import { rows, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { decodeRecord, type StoredRecord } from './history-records.ts';
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
    // A row holds the records at position .. position + length - 1: rows that
    // end after the cursor, unpacked, then the records past it.
    const fetched = await rows<{ position: number; record: StoredRecord | HistoryRecord; created_at: string | Date }>(
      db,
      sql`select h.position + e.ord::int - 1 as position, e.record, h.created_at
          from history h cross join lateral jsonb_array_elements(h.records) with ordinality as e(record, ord)
          where h.account = ${account} and h.instance_key = ${instanceKey}
            and h.position + jsonb_array_length(h.records) - 1 > ${after ?? 0}
            and h.position + e.ord::int - 1 > ${after ?? 0}
          order by 1
          limit ${limit + 1}`,
    );
    return toPage(
      fetched,
      limit,
      (r) => String(r.position),
      (r) => ({ position: Number(r.position), record: decodeRecord(r.record), createdAt: new Date(r.created_at) }),
    );
  }

  return guarded({ listHistory });
}
