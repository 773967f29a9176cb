// Turns pieces of a runtime instance document into the rows commitBatch
// writes, and stored rows back into what the runtime and the queues hold,
// so the partition leader does not restate the mapping (and cannot drift
// from it): a job, timer or incident of the document becomes its table's
// row, apply()'s records become history entries, a job row becomes the
// offer its queue holds again, and a timer start event's row its schedule.
import { jobOffer } from '../runtime/behavior/job.ts';
import type { TimerSchedule } from '../timer/index.ts';
import type { HistoryRecord, Incident, Job, JobMessage, JobOffer, ProcessInstance, Timer } from '../runtime/types.ts';
import type { HistoryWrite, IncidentWrite, JobWrite, TimerWrite } from './batch-types.ts';
import type { JobRecord } from './jobs-repository.ts';
import type { TimerRecord } from './timers-repository.ts';

/** A timer start event of a deployed process version, as its row stores it (no instance). */
export interface StartTimer {
  bpmnProcessId: string;
  version: number;
  elementId: string;
  schedule: TimerSchedule;
  firedCount: number;
}

// The jobs table has no column of its own for a message wait's message
// (an extension): its row keeps it among the custom headers under these
// keys, and the offer rebuilt from the row takes them out again.
const MESSAGE_NAME_HEADER = 'orca:message.name';
const CORRELATION_KEY_HEADER = 'orca:message.correlationKey';

/** A job's row from the offer apply() queued (an effect), in `state`. */
export function offeredJobRow(account: string, offer: JobOffer, state: JobWrite['state'], errorMessage?: string): JobWrite {
  return {
    key: offer.key,
    account,
    instanceKey: offer.processInstanceKey,
    bpmnProcessId: offer.bpmnProcessId,
    processVersion: offer.processDefinitionVersion,
    elementId: offer.elementId,
    elementInstanceKey: offer.elementInstanceKey,
    type: offer.type,
    retries: offer.retries,
    state,
    // Compiled models use prototype-less records; the SQL layer wants plain objects.
    customHeaders: offer.message === undefined ? { ...offer.customHeaders } : withMessage(offer.customHeaders, offer.message),
    errorMessage: errorMessage ?? null,
  };
}

/** A job of the document as its row. */
export function jobRow(account: string, instance: ProcessInstance, job: Job): JobWrite {
  const row = offeredJobRow(account, jobOffer(instance, job), job.state, job.errorMessage);
  // Held until an activation timeout (extension): stored as activated, so a queue rebuild keeps it with its worker.
  if (job.held !== undefined && job.state === 'ACTIVATABLE') {
    row.state = 'ACTIVATED';
    row.worker = job.held.worker;
    row.activatedAt = new Date(job.held.at);
  }
  return row;
}

/** The offer a stored job stands for: what its queue holds again after a rebuild. */
export function offerOfJobRow(row: JobRecord): JobOffer {
  const headers = row.customHeaders;
  if (headers !== null && MESSAGE_NAME_HEADER in headers) {
    const { [MESSAGE_NAME_HEADER]: name, [CORRELATION_KEY_HEADER]: correlationKey, ...customHeaders } = headers;
    return { ...offerOfJobRow({ ...row, customHeaders }), message: correlationKey === undefined ? { name } : { name, correlationKey } };
  }
  return {
    key: row.key,
    type: row.type,
    retries: row.retries,
    processInstanceKey: row.instanceKey,
    bpmnProcessId: row.bpmnProcessId,
    processDefinitionVersion: row.processVersion,
    elementId: row.elementId,
    elementInstanceKey: row.elementInstanceKey,
    customHeaders: row.customHeaders,
  };
}

function withMessage(headers: Record<string, string>, message: JobMessage): Record<string, string> {
  const stored: Record<string, string> = { ...headers, [MESSAGE_NAME_HEADER]: message.name };
  if (message.correlationKey !== undefined) stored[CORRELATION_KEY_HEADER] = message.correlationKey;
  return stored;
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

/** A timer start event's row, due at `dueAt`. */
export function startTimerRow(key: string, account: string, dueAt: number, start: StartTimer): TimerWrite {
  return {
    key,
    account,
    instanceKey: null,
    ownerKey: null,
    bpmnProcessId: start.bpmnProcessId,
    processVersion: start.version,
    elementId: start.elementId,
    dueAt: new Date(dueAt),
    schedule: start.schedule,
    firedCount: start.firedCount,
  };
}

/** The timer start event a stored timer row without an instance stands for. */
export function startTimerOf(row: TimerRecord): StartTimer {
  return { bpmnProcessId: row.bpmnProcessId, version: row.processVersion, elementId: row.elementId, schedule: row.schedule, firedCount: row.firedCount };
}

export function incidentRow(account: string, instance: ProcessInstance, incident: Incident): IncidentWrite {
  return {
    key: incident.key,
    account,
    instanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
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
