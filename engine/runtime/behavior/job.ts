// Jobs: the wait state of every task a worker handles (SPEC.md job
// semantics). Creating one queues an offer for workers; a cancelled one is
// withdrawn from the queues.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance, Job, JobOffer, ProcessInstance } from '../types.ts';
import { describe, evaluateValue } from './expression.ts';
import { raiseIncident } from './incident.ts';

export function jobOffer(instance: ProcessInstance, job: Job): JobOffer {
  return {
    key: job.key,
    type: job.type,
    retries: job.retries,
    processInstanceKey: instance.key,
    bpmnProcessId: instance.bpmnProcessId,
    processDefinitionVersion: instance.version,
    elementId: job.elementId,
    elementInstanceKey: job.elementInstanceKey,
    customHeaders: job.customHeaders,
  };
}

/**
 * Creates the job of `node` for `ei` and leaves the element waiting on it.
 * An event-based gateway creates one per message branch: then `node` is the
 * branch's catch event, and the jobs hang off the gateway's instance.
 */
export function createJob(exec: Execution, ei: ElementInstance, node: FlowNode): boolean {
  const definition = node.job!;
  const type = evaluateValue(exec, ei, definition.type);
  if (!type.ok || typeof type.value !== 'string' || type.value === '') {
    const why = type.ok ? `it gave ${describe(type.value)}, not a non-empty string` : type.error;
    raiseIncident(exec, ei, 'EXTRACT_VALUE_ERROR', `The job type of '${node.id}' could not be determined: ${why}.`);
    return false;
  }
  const retriesResult = evaluateValue(exec, ei, definition.retries);
  const retries = retriesResult.ok ? Number(retriesResult.value) : NaN;
  if (!Number.isInteger(retries) || retries < 0) {
    const why = retriesResult.ok ? `it gave ${describe(retriesResult.value)}, not a whole number of at least 0` : retriesResult.error;
    raiseIncident(exec, ei, 'EXTRACT_VALUE_ERROR', `The job retries of '${node.id}' could not be determined: ${why}.`);
    return false;
  }
  const job: Job = {
    key: exec.nextKey(),
    type: type.value,
    retries,
    elementId: node.id,
    elementInstanceKey: ei.key,
    customHeaders: definition.headers,
    state: 'ACTIVATABLE',
  };
  exec.instance.jobs[job.key] = job;
  if (ei.elementId === node.id) ei.jobKey = job.key;
  exec.persist(ei);
  exec.record('JOB_CREATED', { elementId: node.id, elementInstanceKey: ei.key, jobKey: job.key, detail: { jobType: job.type, retries } });
  exec.effect({ type: 'enqueueJob', job: jobOffer(exec.instance, job) });
  return true;
}

/** Cancels every job hanging off `eiKey` (the branches of an event-based gateway). */
export function withdrawJobsOf(exec: Execution, eiKey: string, except?: string): void {
  for (const key of Object.keys(exec.instance.jobs)) {
    if (key !== except && exec.instance.jobs[key].elementInstanceKey === eiKey) cancelJob(exec, key);
  }
}

export function cancelJob(exec: Execution, jobKey: string): void {
  const job = exec.instance.jobs[jobKey];
  if (job === undefined) return;
  delete exec.instance.jobs[jobKey];
  exec.record('JOB_CANCELED', { elementId: job.elementId, elementInstanceKey: job.elementInstanceKey, jobKey });
  exec.effect({ type: 'cancelJob', jobKey, jobType: job.type });
}
