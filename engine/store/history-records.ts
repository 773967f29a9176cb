// How history records are stored (schema.ts `history.records`): each record
// as a JSON array of its fields in a fixed order instead of an object.
// Records are most of what a batch commit carries — about half of the
// statement's payload for a one-task instance, serialised by the leader and
// parsed by Postgres on every commit — and their property names were half of
// that. Reads turn them back into HistoryRecord objects; rows written before
// this encoding (objects) read back as they are.
import type { HistoryRecord, RecordType } from '../runtime/types.ts';

/** [type, at, elementId, elementType, elementInstanceKey, jobKey, incidentKey, detail], trailing absent fields left off. */
export type StoredRecord = [RecordType, number, ...(string | Record<string, unknown> | null)[]];

const FIELDS = ['elementId', 'elementType', 'elementInstanceKey', 'jobKey', 'incidentKey', 'detail'] as const;

/**
 * Runs for every record of every batch: an indexed loop, since iterating
 * `FIELDS.entries()` with destructuring allocated an iterator result and a
 * pair per field — about 8 KB per one-task instance, an eighth of all the
 * process allocated under bench:engine (the inspector's sampling heap
 * profiler, in an uncommitted scratch run).
 */
export function encodeRecord(record: HistoryRecord): StoredRecord {
  let last = 0;
  for (let i = FIELDS.length - 1; i >= 0; i--) {
    if (record[FIELDS[i]] !== undefined) {
      last = i + 1;
      break;
    }
  }
  // Sized once: pushing grew the array's backing store past what it keeps.
  const out = new Array(last + 2) as StoredRecord;
  out[0] = record.type;
  out[1] = record.at;
  for (let i = 0; i < last; i++) out[i + 2] = record[FIELDS[i]] ?? null;
  return out;
}

export function decodeRecord(stored: StoredRecord | HistoryRecord): HistoryRecord {
  if (!Array.isArray(stored)) return stored;
  const record: HistoryRecord = { type: stored[0], at: stored[1] };
  for (let i = 0; i < FIELDS.length; i++) {
    const value = stored[i + 2];
    if (value !== null && value !== undefined) (record as unknown as Record<string, unknown>)[FIELDS[i]] = value;
  }
  return record;
}
