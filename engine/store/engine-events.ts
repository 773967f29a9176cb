// The webhook events a partition leader writes in its batch (Batch.events,
// payload field `ev`): an instance completed, canceled or entered INCIDENT,
// a case instance (CMMN) completed or terminated, an incident raised, a user
// task created or completed. Each is built from
// what the runtime did — the instance document and the history record of
// the change — with the agreed payload and its stable id, so the same
// change applied again (a batch replayed after a crash) yields the same
// event and the outbox keeps one delivery of it. Whether anybody wants the
// event is decided by the commit statement against the account's endpoints,
// not here: building one is a small object and no lookup.
import type { CaseInstance } from '../cmmn/runtime/types.ts';
import type { HistoryRecord, Incident, ProcessInstance } from '../runtime/types.ts';
import { webhookEventId, type WebhookEvent, type WebhookEventType } from './webhook-outbox.ts';

function event(type: WebhookEventType, key: string, account: string, at: number, data: Record<string, unknown>): WebhookEvent {
  return { id: webhookEventId(type, key), account, type, timestamp: new Date(at).toISOString(), data };
}

/** process_instance.completed or process_instance.canceled, at the record that ended the instance. */
export function instanceEndedEvent(account: string, instance: ProcessInstance, record: HistoryRecord): WebhookEvent {
  const type = record.type === 'PROCESS_INSTANCE_COMPLETED' ? 'process_instance.completed' : 'process_instance.canceled';
  return event(type, instance.key, account, record.at, {
    processInstanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
    version: instance.version,
  });
}

/**
 * case_instance.completed or case_instance.terminated, at the record that
 * ended the case. Terminated covers every way a case ends without
 * completing (a cancel over the API, an exit criterion on its plan model,
 * the end of the case task that started it): the case runtime has the one
 * state for all of them.
 */
export function caseEndedEvent(account: string, instance: CaseInstance, record: HistoryRecord): WebhookEvent {
  const type = record.type === 'CASE_INSTANCE_COMPLETED' ? 'case_instance.completed' : 'case_instance.terminated';
  return event(type, instance.key, account, record.at, {
    caseInstanceKey: instance.key,
    caseDefinitionId: instance.caseDefinitionId,
    version: instance.version,
  });
}

/** What a task's or incident's event names of its instance; a case (CMMN) gives its key and its case definition id. */
export type EventSource = Pick<ProcessInstance, 'key' | 'bpmnProcessId'>;

/** incident.created. */
export function incidentCreatedEvent(account: string, instance: EventSource, incident: Incident): WebhookEvent {
  return event('incident.created', incident.key, account, incident.createdAt, {
    incidentKey: incident.key,
    processInstanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
    elementId: incident.elementId,
    type: incident.type,
    message: incident.message,
    jobKey: incident.jobKey ?? null,
  });
}

/** process_instance.incident: the instance entered INCIDENT with `incident`, its first. */
export function instanceIncidentEvent(account: string, instance: ProcessInstance, incident: Incident): WebhookEvent {
  return event('process_instance.incident', incident.key, account, incident.createdAt, {
    processInstanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
    version: instance.version,
    incidentKey: incident.key,
  });
}

/** user_task.created or user_task.completed, from the JOB_CREATED or JOB_COMPLETED record of a user task's job. */
export function userTaskEvent(account: string, instance: EventSource, record: HistoryRecord): WebhookEvent {
  const type = record.type === 'JOB_CREATED' ? 'user_task.created' : 'user_task.completed';
  return event(type, record.jobKey!, account, record.at, {
    taskId: record.jobKey!,
    processInstanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
    elementId: record.elementId!,
  });
}

/**
 * Whether the instance entered INCIDENT through the records of one apply:
 * the document keeps every incident it ever had (the instance stays
 * INCIDENT, SPEC.md), so it had none open before exactly when all of them
 * were created by these records.
 */
export function enteredIncident(instance: ProcessInstance, records: readonly HistoryRecord[]): boolean {
  let created = 0;
  for (const record of records) if (record.type === 'INCIDENT_CREATED') created++;
  let held = 0;
  for (const _key in instance.incidents) held++;
  return created > 0 && created === held;
}
