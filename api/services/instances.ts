// How a process instance is shown over the API: the list summary, and the
// full view with its live elements and incidents (read from the instance
// document and the incidents table, so a closed incident record shows as
// RESOLVED while the instance itself stays INCIDENT, as SPEC.md requires).
import type { IncidentRecord, InstanceRecord, InstanceSummary } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';

export function instanceSummary(i: InstanceSummary) {
  return {
    processInstanceKey: i.key,
    bpmnProcessId: i.bpmnProcessId,
    version: i.version,
    state: i.state,
    variables: i.variables,
    parentProcessInstanceKey: i.parentKey,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
    endedAt: i.endedAt?.toISOString() ?? null,
  };
}

export function incidentView(i: IncidentRecord) {
  return {
    id: i.key,
    processInstanceKey: i.instanceKey,
    bpmnProcessId: i.bpmnProcessId,
    elementId: i.elementId,
    elementInstanceKey: i.elementInstanceKey,
    jobKey: i.jobKey,
    type: i.type,
    message: i.message,
    state: i.state,
    createdAt: i.createdAt.toISOString(),
    resolvedAt: i.resolvedAt?.toISOString() ?? null,
  };
}

export function instanceDetail(i: InstanceRecord, incidents: IncidentRecord[]) {
  const document = i.document;
  const activeElements = Object.values(document.elements).map((e) => ({
    elementInstanceKey: e.key,
    elementId: e.elementId,
    flowScopeKey: e.scopeKey,
    jobKey: e.jobKey ?? null,
    incidentKey: e.incidentKey ?? null,
  }));
  return {
    ...instanceSummary(i),
    activeElements,
    jobs: Object.values(document.jobs).map((j) => ({ key: j.key, type: j.type, elementId: j.elementId, retries: j.retries, state: j.state })),
    incidents: incidents.map(incidentView),
  };
}

/** One instance of the account with its live elements, jobs and incidents; NOT_FOUND when the account has none under `key`. */
export async function getInstanceDetail(ctx: ApiContext, account: string, key: string) {
  const instance = await ctx.engine.store.instances.getInstance(account, key);
  if (instance === null) throw new ApiError('NOT_FOUND', `Process instance '${key}' not found.`);
  const incidents = await ctx.engine.store.incidents.listIncidents(account, { instanceKey: key, limit: 1000 });
  return instanceDetail(instance, incidents.items);
}
