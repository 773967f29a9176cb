// Per-element statistics for the console's diagrams: a process version's
// counts across all its instances (summed from the element_stats rows the
// engine keeps as it commits, element-stats.ts), and one instance's counts
// (its live elements from the document, what ended and which sequence flows
// were taken from its history, aggregated in SQL so only the totals travel).
import { sql } from 'drizzle-orm';
import type { ProcessInstance } from '../runtime/types.ts';
import { rows, type Db } from './db.ts';
import { INSTANCE_ROW } from './element-stats.ts';
import { guarded } from './errors.ts';
import { recordField } from './history-sql.ts';
import { assertAccount } from './tenancy.ts';

export interface ElementCounts {
  elementId: string;
  active: number;
  incidents: number;
  completed: number;
  canceled: number;
}

export interface DefinitionStatistics {
  /** Per element, by element id. */
  elements: ElementCounts[];
  /** The version's instances by state (active = ACTIVE, incidents = INCIDENT, canceled = TERMINATED). */
  instances: Omit<ElementCounts, 'elementId'>;
}

export interface InstanceStatistics {
  elements: ElementCounts[];
  sequenceFlows: { elementId: string; taken: number }[];
}

export function statisticsRepository(db: Db) {
  async function definitionStatistics(account: string, bpmnProcessId: string, version: number): Promise<DefinitionStatistics> {
    assertAccount(account);
    const found = await rows<{ element_id: string; active: string; incidents: string; completed: string; canceled: string }>(
      db,
      sql`select element_id, sum(active)::text as active, sum(incidents)::text as incidents,
                 sum(completed)::text as completed, sum(canceled)::text as canceled
          from element_stats
          where account = ${account} and bpmn_process_id = ${bpmnProcessId} and version = ${version}
          group by element_id
          order by element_id`,
    );
    const instances = { active: 0, incidents: 0, completed: 0, canceled: 0 };
    const elements: ElementCounts[] = [];
    for (const r of found) {
      const counts = { active: Number(r.active), incidents: Number(r.incidents), completed: Number(r.completed), canceled: Number(r.canceled) };
      if (r.element_id === INSTANCE_ROW) Object.assign(instances, counts);
      else if (counts.active !== 0 || counts.incidents !== 0 || counts.completed !== 0 || counts.canceled !== 0)
        elements.push({ elementId: r.element_id, ...counts });
    }
    return { elements, instances };
  }

  /** `document` is the instance's, already read under the caller's account. */
  async function instanceStatistics(account: string, document: ProcessInstance): Promise<InstanceStatistics> {
    assertAccount(account);
    const ended = await rows<{ type: string; element_id: string; n: number }>(
      db,
      sql`select r.type, r.element_id, count(*)::int as n
          from history h
          cross join lateral jsonb_array_elements(h.records) e(record)
          cross join lateral (select ${recordField('type')} as type, ${recordField('elementId')} as element_id) r
          where h.account = ${account} and h.instance_key = ${document.key}
            and r.type in ('ELEMENT_COMPLETED', 'ELEMENT_TERMINATED', 'SEQUENCE_FLOW_TAKEN')
          group by 1, 2`,
    );
    const byElement = new Map<string, ElementCounts>();
    const counts = (elementId: string): ElementCounts => {
      let c = byElement.get(elementId);
      if (c === undefined) byElement.set(elementId, (c = { elementId, active: 0, incidents: 0, completed: 0, canceled: 0 }));
      return c;
    };
    const sequenceFlows: InstanceStatistics['sequenceFlows'] = [];
    for (const r of ended) {
      if (r.type === 'SEQUENCE_FLOW_TAKEN') sequenceFlows.push({ elementId: r.element_id, taken: Number(r.n) });
      else if (r.type === 'ELEMENT_COMPLETED') counts(r.element_id).completed += Number(r.n);
      else counts(r.element_id).canceled += Number(r.n);
    }
    for (const ei of Object.values(document.elements)) {
      if (ei.incidentKey !== undefined) counts(ei.elementId).incidents++;
      else counts(ei.elementId).active++;
    }
    // An instance set aside with no element to blame has its incident on the process itself.
    if (document.state === 'INCIDENT' && Object.values(document.incidents).some((i) => i.elementInstanceKey === document.key)) {
      counts(document.bpmnProcessId).incidents++;
    }
    const byId = (a: { elementId: string }, b: { elementId: string }) => (a.elementId < b.elementId ? -1 : a.elementId > b.elementId ? 1 : 0);
    return { elements: [...byElement.values()].sort(byId), sequenceFlows: sequenceFlows.sort(byId) };
  }

  return guarded({ definitionStatistics, instanceStatistics });
}
