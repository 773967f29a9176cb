// Reading history records inside SQL: a record is stored as an array of its
// fields in a fixed order (history-records.ts), or as an object when it was
// written before that encoding. `recordField` reads one field of the record
// `e.record` either way, so the reads that aggregate history in Postgres
// (statistics, the element history) stay in step with the encoding.
import { sql, type SQL } from 'drizzle-orm';

/** The array positions of history-records.ts's encoding. */
const POSITIONS = { type: 0, at: 1, elementId: 2, elementType: 3, elementInstanceKey: 4, jobKey: 5, incidentKey: 6, detail: 7 } as const;

export type RecordField = keyof typeof POSITIONS;

/** The field as text (detail: as jsonb) of the record aliased `e.record`. */
export function recordField(field: RecordField): SQL {
  const at = sql.raw(String(POSITIONS[field]));
  const name = sql.raw(`'${field}'`);
  if (field === 'detail') return sql`(case when jsonb_typeof(e.record) = 'array' then e.record->${at} else e.record->${name} end)`;
  return sql`(case when jsonb_typeof(e.record) = 'array' then e.record->>${at} else e.record->>${name} end)`;
}
