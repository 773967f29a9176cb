// Jobs: the wait state of every task a worker handles (SPEC.md job
// semantics). Creating one queues an offer for workers; a cancelled one is
// withdrawn from the queues.
import type { FlowNode, JobDefinition } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance, Job, JobMessage, JobOffer, ProcessInstance } from '../types.ts';
import { describe, evaluateSource, evaluateValue } from './expression.ts';
import { raiseIncident } from './incident.ts';
import { correlationKeyText, openSubscription } from './messages.ts';

export function jobOffer(instance: ProcessInstance, job: Job): JobOffer {
  const offer: JobOffer = {
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
  if (job.message !== undefined) offer.message = job.message;
  return offer;
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
  if (definition.message !== undefined) {
    const message = messageOfWait(exec, ei, definition.message);
    if (message !== undefined) job.message = message;
  }
  exec.instance.jobs[job.key] = job;
  if (ei.elementId === node.id) ei.jobKey = job.key;
  exec.persist(ei);
  // Extension: a wait with a correlation key can also be reached by a published message.
  if (job.message?.correlationKey !== undefined) openSubscription(exec, node.id, ei.key, job.message.name, job.message.correlationKey);
  exec.record('JOB_CREATED', { elementId: node.id, elementInstanceKey: ei.key, jobKey: job.key, detail: { jobType: job.type, retries } });
  exec.effect({ type: 'enqueueJob', job: jobOffer(exec.instance, job) });
  return true;
}

/**
 * A message wait's message name and correlation key, evaluated now (Zeebe
 * evaluates the key when the subscription opens). Informative only: a name
 * or key that does not evaluate to a string (or, for the key, a number) is
 * left out rather than stopping the wait, which SPEC.md makes a plain job.
 */
function messageOfWait(exec: Execution, ei: ElementInstance, definition: NonNullable<JobDefinition['message']>): JobMessage | undefined {
  const name = evaluateValue(exec, ei, definition.name);
  if (!name.ok || typeof name.value !== 'string') return undefined;
  if (definition.correlationKey === undefined) return { name: name.value };
  const key = evaluateSource(exec, ei, definition.correlationKey);
  const text = key.ok ? correlationKeyText(key.value) : undefined;
  return text === undefined ? { name: name.value } : { name: name.value, correlationKey: text };
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
