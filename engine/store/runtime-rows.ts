// Turns pieces of a runtime instance document into the rows commitBatch
// writes, so the partition leader does not restate the mapping (and cannot
// drift from it): a job, timer or incident of the document becomes its
// table's row, and apply()'s records become history entries.
import type { HistoryRecord, Incident, Job, ProcessInstance, Timer } from '../runtime/types.ts';
import type { HistoryWrite, IncidentWrite, JobWrite, TimerWrite } from './commit-batch.ts';

export function jobRow(account: string, instance: ProcessInstance, job: Job): JobWrite {
  return {
    key: job.key,
    account,
    instanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
    processVersion: instance.version,
    elementId: job.elementId,
    elementInstanceKey: job.elementInstanceKey,
    type: job.type,
    retries: job.retries,
    state: job.state,
    customHeaders: job.customHeaders,
    errorMessage: job.errorMessage ?? null,
  };
}

export function timerRow(account: string, instance: ProcessInstance, timer: Timer): TimerWrite {
  return {
    key: timer.key,
    account,
    instanceKey: instance.key,
    ownerKey: timer.ownerKey,
    bpmnProcessId: instance.bpmnProcessId,
    processVersion: instance.version,
    elementId: timer.elementId,
    dueAt: new Date(timer.dueAt),
    schedule: timer.schedule,
    firedCount: timer.firedCount,
  };
}

export function incidentRow(account: string, instance: ProcessInstance, incident: Incident): IncidentWrite {
  return {
    key: incident.key,
    account,
    instanceKey: instance.key,
    elementId: incident.elementId,
    elementInstanceKey: incident.elementInstanceKey,
    jobKey: incident.jobKey ?? null,
    type: incident.type,
    message: incident.message,
    createdAt: new Date(incident.createdAt),
  };
}

export function historyRows(account: string, instanceKey: string, records: HistoryRecord[]): HistoryWrite[] {
  return records.map((record) => ({ account, instanceKey, record }));
}
