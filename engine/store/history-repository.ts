// Reads of an instance's history (what the console shows), in the order it
// happened. Appended only by commit-batch.ts, one row per instance and
// batch (schema.ts), records encoded compactly (history-records.ts); read
// here one entry per record, or one per element instance (its start, end
// and state gathered from its records in SQL, so only the page travels).
import { sql } from 'drizzle-orm';
import type { HistoryRecord } from '../runtime/types.ts';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import { rows, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { decodeRecord, type StoredRecord } from './history-records.ts';
import { recordField } from './history-sql.ts';
import { assertAccount } from './tenancy.ts';

export interface HistoryEntry {
  /** 1, 2, 3 … within the instance. */
  position: number;
  record: HistoryRecord;
  createdAt: Date;
}

/** The engine's words for an element instance: alive, ended either way, or stuck on an incident. */
export type ElementInstanceState = 'ACTIVE' | 'COMPLETED' | 'TERMINATED' | 'INCIDENT';

export interface ElementInstanceEntry {
  elementInstanceKey: string;
  elementId: string;
  elementType: string;
  state: ElementInstanceState;
  startedAt: Date;
  endedAt: Date | null;
  /** The enclosing subprocess (or multi-instance body) instance, or the process instance. */
  flowScopeKey: string;
  /** Call activities: the instance it started. */
  calledProcessInstanceKey: string | null;
}

/**
 * A job's or task's completion and the variables it set, by name: what the
 * history records of a change of variables (JOB_COMPLETED's detail). The
 * values are not recorded (the write path keeps history small), so only
 * the instance's current values are known.
 */
export interface VariableChangeEntry {
  position: number;
  at: Date;
  elementId: string;
  elementInstanceKey: string;
  jobKey: string;
  names: string[];
}

const ELEMENT_POSITION = /^[1-9][0-9]{0,9}$/;

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

  /** The instance's element instances in the order they started. */
  async function listElementInstances(account: string, instanceKey: string, page: PageRequest = {}): Promise<Page<ElementInstanceEntry>> {
    assertAccount(account);
    if (!isKey(instanceKey)) return { items: [], nextCursor: null };
    const limit = clampLimit(page.limit);
    const after = page.cursor ? Number(decodeCursor(page.cursor, (p) => ELEMENT_POSITION.test(p))) : 0;
    const fetched = await rows<{
      started_pos: number;
      eik: string;
      element_id: string;
      element_type: string | null;
      started_at: string;
      ended_at: string | null;
      ended_as: string | null;
      incident: boolean;
      scope: string | null;
      called: string | null;
    }>(
      db,
      sql`with r as (
            select h.position + e.ord::int - 1 as pos, ${recordField('type')} as type, ${recordField('at')} as at,
                   ${recordField('elementId')} as element_id, ${recordField('elementType')} as element_type,
                   ${recordField('elementInstanceKey')} as eik, ${recordField('detail')}->>'flowScopeKey' as scope
            from history h cross join lateral jsonb_array_elements(h.records) with ordinality as e(record, ord)
            where h.account = ${account} and h.instance_key = ${instanceKey}
          ),
          el as (
            select eik,
                   min(pos) filter (where type = 'ELEMENT_ACTIVATED') as started_pos,
                   min(element_id) filter (where type = 'ELEMENT_ACTIVATED') as element_id,
                   min(element_type) filter (where type = 'ELEMENT_ACTIVATED') as element_type,
                   min(scope) filter (where type = 'ELEMENT_ACTIVATED') as scope,
                   min(at) filter (where type = 'ELEMENT_ACTIVATED') as started_at,
                   max(at) filter (where type in ('ELEMENT_COMPLETED', 'ELEMENT_TERMINATED')) as ended_at,
                   max(type) filter (where type in ('ELEMENT_COMPLETED', 'ELEMENT_TERMINATED')) as ended_as,
                   bool_or(type = 'INCIDENT_CREATED') as incident
            from r
            where type in ('ELEMENT_ACTIVATED', 'ELEMENT_COMPLETED', 'ELEMENT_TERMINATED', 'INCIDENT_CREATED') and eik is not null
            group by eik
          )
          select el.started_pos, el.eik, el.element_id, el.element_type, el.started_at, el.ended_at, el.ended_as, el.incident, el.scope,
                 (case when el.element_type = 'callActivity' then
                   (select c.key::text from instances c
                    where c.parent_key = ${instanceKey} and c.account = ${account}
                      and c.document->'parent'->>'elementInstanceKey' = el.eik
                    limit 1)
                  end) as called
          from el
          where el.started_pos > ${after}
          order by el.started_pos
          limit ${limit + 1}`,
    );
    return toPage(
      fetched,
      limit,
      (r) => String(r.started_pos),
      (r) => ({
        elementInstanceKey: r.eik,
        elementId: r.element_id,
        elementType: r.element_type ?? '',
        state: elementState(r.ended_as, r.incident),
        startedAt: new Date(Number(r.started_at)),
        endedAt: r.ended_at === null ? null : new Date(Number(r.ended_at)),
        flowScopeKey: r.scope ?? instanceKey,
        calledProcessInstanceKey: r.called,
      }),
    );
  }

  /** The instance's completions that set variables, in the order they happened. */
  async function listVariableChanges(account: string, instanceKey: string, page: PageRequest = {}): Promise<Page<VariableChangeEntry>> {
    assertAccount(account);
    if (!isKey(instanceKey)) return { items: [], nextCursor: null };
    const limit = clampLimit(page.limit);
    const after = page.cursor ? Number(decodeCursor(page.cursor, (p) => ELEMENT_POSITION.test(p))) : 0;
    const fetched = await rows<{ pos: number; at: string; element_id: string; eik: string; job_key: string; names: string[] }>(
      db,
      sql`select r.pos, r.at, r.element_id, r.eik, r.job_key, r.names
          from (
            select h.position + e.ord::int - 1 as pos, ${recordField('type')} as type, ${recordField('at')} as at,
                   ${recordField('elementId')} as element_id, ${recordField('elementInstanceKey')} as eik,
                   ${recordField('jobKey')} as job_key, ${recordField('detail')}->'variables' as names
            from history h cross join lateral jsonb_array_elements(h.records) with ordinality as e(record, ord)
            where h.account = ${account} and h.instance_key = ${instanceKey}
              and h.position + jsonb_array_length(h.records) - 1 > ${after}
          ) r
          where r.type = 'JOB_COMPLETED' and r.pos > ${after} and jsonb_typeof(r.names) = 'array' and jsonb_array_length(r.names) > 0
          order by r.pos
          limit ${limit + 1}`,
    );
    return toPage(
      fetched,
      limit,
      (r) => String(r.pos),
      (r) => ({
        position: Number(r.pos),
        at: new Date(Number(r.at)),
        elementId: r.element_id,
        elementInstanceKey: r.eik,
        jobKey: r.job_key,
        names: r.names,
      }),
    );
  }

  return guarded({ listHistory, listElementInstances, listVariableChanges });
}

function elementState(endedAs: string | null, incident: boolean): ElementInstanceState {
  if (endedAs === 'ELEMENT_COMPLETED') return 'COMPLETED';
  if (endedAs === 'ELEMENT_TERMINATED') return 'TERMINATED';
  return incident ? 'INCIDENT' : 'ACTIVE';
}
