// The per-element counts of a process version (schema.ts `element_stats`)
// as a batch changes them: its history records turned into deltas, added up
// here per (account, process, version, element) so the commit statement
// upserts one row for each instead of one per record. Counting at read time
// would mean reading every instance of a version; these rows keep a
// definition's statistics one index range away.
//
// What the counts mean (docs/api.md "Statistics"): `active` element
// instances alive and not stuck, `incidents` those stuck on an incident
// (the instance stays INCIDENT, so closing the incident record does not
// change it), `completed` and `canceled` (terminated) those that ended. The
// row with element id '' counts the version's instances by state instead.
import type { HistoryRecord, ProcessInstance } from '../runtime/types.ts';
import type { Batch } from './batch-types.ts';

/** The instance-level row's element id: no BPMN id is empty. */
export const INSTANCE_ROW = '';

/** One payload row: deltas of active, incidents, completed, canceled. */
export interface StatsDelta {
  p: number;
  a: string;
  b: string;
  v: number;
  el: string;
  da: number;
  di: number;
  dc: number;
  dx: number;
}

export function statsDeltas(batch: Batch): StatsDelta[] {
  const history = batch.history;
  if (history === undefined || history.length === 0) return [];
  const documents = new Map<string, ProcessInstance>();
  for (const w of batch.instances ?? []) documents.set(w.document.key, w.document);
  // Per (account, process, version): its elements' rows. Looked up once per run of one instance's records.
  const byDefinition = new Map<string, Map<string, StatsDelta>>();
  // First incident per element instance, built only for instances that have incidents.
  const firstIncidents = new Map<string, Map<string, string>>();
  const p = batch.partition;
  let cachedKey = '';
  let cachedRows: Map<string, StatsDelta> | undefined;
  let cachedDoc: ProcessInstance | undefined;

  const row = (account: string, doc: ProcessInstance, elementId: string): StatsDelta => {
    let r = cachedRows!.get(elementId);
    if (r === undefined) {
      r = { p, a: account, b: doc.bpmnProcessId, v: doc.version, el: elementId, da: 0, di: 0, dc: 0, dx: 0 };
      cachedRows!.set(elementId, r);
    }
    return r;
  };
  const incidentsOf = (doc: ProcessInstance): Map<string, string> => {
    let byElement = firstIncidents.get(doc.key);
    if (byElement === undefined) {
      byElement = new Map();
      for (const key in doc.incidents) {
        const eik = doc.incidents[key].elementInstanceKey;
        const first = byElement.get(eik);
        if (first === undefined || keyBefore(key, first)) byElement.set(eik, key);
      }
      firstIncidents.set(doc.key, byElement);
    }
    return byElement;
  };

  for (const w of history) {
    if (w.instanceKey !== cachedKey) {
      cachedKey = w.instanceKey;
      cachedDoc = documents.get(w.instanceKey);
      if (cachedDoc !== undefined) {
        // NUL cannot occur in an account, a process id or an element id (engine/limits.ts and the model's id rules).
        const definition = `${w.account}\u0000${cachedDoc.bpmnProcessId}\u0000${cachedDoc.version}`;
        cachedRows = byDefinition.get(definition);
        if (cachedRows === undefined) byDefinition.set(definition, (cachedRows = new Map()));
      }
    }
    const doc = cachedDoc;
    if (doc === undefined) continue;
    applyRecord(w.record, w.account, doc);
  }

  function applyRecord(record: HistoryRecord, account: string, doc: ProcessInstance): void {
    switch (record.type) {
      case 'ELEMENT_ACTIVATED':
        row(account, doc, record.elementId!).da++;
        return;
      case 'ELEMENT_COMPLETED':
      case 'ELEMENT_TERMINATED': {
        const r = row(account, doc, record.elementId!);
        if (record.type === 'ELEMENT_COMPLETED') r.dc++;
        else r.dx++;
        if (hasIncidents(doc) && incidentsOf(doc).has(record.elementInstanceKey!)) r.di--;
        else r.da--;
        return;
      }
      case 'INCIDENT_CREATED': {
        const byElement = incidentsOf(doc);
        const eik = record.elementInstanceKey!;
        // A second incident on an element instance already stuck changes nothing.
        if (byElement.get(eik) === record.incidentKey) {
          const r = row(account, doc, record.elementId!);
          r.di++;
          // An element instance moves from active to stuck; a process-level one was never active.
          if (eik !== doc.key) r.da--;
        }
        if (firstIncidentOf(byElement) === record.incidentKey) {
          const r = row(account, doc, INSTANCE_ROW);
          r.da--;
          r.di++;
        }
        return;
      }
      case 'PROCESS_INSTANCE_STARTED':
        row(account, doc, INSTANCE_ROW).da++;
        return;
      case 'PROCESS_INSTANCE_COMPLETED':
      case 'PROCESS_INSTANCE_TERMINATED': {
        const r = row(account, doc, INSTANCE_ROW);
        if (record.type === 'PROCESS_INSTANCE_COMPLETED') r.dc++;
        else r.dx++;
        if (hasIncidents(doc)) {
          r.di--;
          // A process-level incident (set aside with no element) ends with its instance.
          if (incidentsOf(doc).has(doc.key)) row(account, doc, doc.bpmnProcessId).di--;
        } else r.da--;
        return;
      }
    }
  }

  const out: StatsDelta[] = [];
  for (const rows of byDefinition.values()) for (const r of rows.values()) if (r.da !== 0 || r.di !== 0 || r.dc !== 0 || r.dx !== 0) out.push(r);
  return out;
}

function hasIncidents(doc: ProcessInstance): boolean {
  for (const _ in doc.incidents) return true;
  return false;
}

/** Keys are decimal int8 strings: shorter is smaller, equal lengths compare as text. */
function keyBefore(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

function firstIncidentOf(byElement: Map<string, string>): string | undefined {
  let first: string | undefined;
  for (const key of byElement.values()) if (first === undefined || keyBefore(key, first)) first = key;
  return first;
}
