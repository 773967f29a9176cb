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

export function encodeRecord(record: HistoryRecord): StoredRecord {
  const out: StoredRecord = [record.type, record.at];
  let last = 1;
  for (const [i, field] of FIELDS.entries()) {
    const value = record[field];
    if (value !== undefined) last = i + 2;
    out.push(value ?? null);
  }
  out.length = last + 1;
  return out;
}

export function decodeRecord(stored: StoredRecord | HistoryRecord): HistoryRecord {
  if (!Array.isArray(stored)) return stored;
  const record: HistoryRecord = { type: stored[0], at: stored[1] };
  for (const [i, field] of FIELDS.entries()) {
    const value = stored[i + 2];
    if (value !== null && value !== undefined) (record as unknown as Record<string, unknown>)[field] = value;
  }
  return record;
}
