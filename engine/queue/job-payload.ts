// How a job is stored while it waits, shared by both implementations so they
// return exactly the same shape: the runtime's offer and the job's variables
// as two JSON documents (variables can then be replaced alone while the job
// waits), plus account, partition and activation held beside them.
import type { JobOffer, Variables } from '../runtime/types.ts';
import type { ActivatedJob, QueuedJob } from './types.ts';

/**
 * The offer's own fields of a job that carries more (account, partition,
 * variables, activation), in the offer's order: what a queue stores and
 * what the API shows of a job besides its variables and worker.
 */
export function offerOf(job: JobOffer): JobOffer {
  const offer: JobOffer = {
    key: job.key,
    type: job.type,
    retries: job.retries,
    processInstanceKey: job.processInstanceKey,
    bpmnProcessId: job.bpmnProcessId,
    processDefinitionVersion: job.processDefinitionVersion,
    elementId: job.elementId,
    elementInstanceKey: job.elementInstanceKey,
    customHeaders: job.customHeaders,
  };
  if (job.message !== undefined) offer.message = job.message;
  return offer;
}

/** The offer alone, as JSON, with when it was queued and its kind: never the account, partition or variables kept beside it. */
export function encodeOffer(job: QueuedJob): string {
  const offer: JobOffer = offerOf(job);
  // For the metrics: how long the job waited, and its category, come back with it at activation.
  if (job.queuedAt !== undefined) (offer as QueuedJob).queuedAt = job.queuedAt;
  if (job.kind !== undefined) (offer as QueuedJob).kind = job.kind;
  return JSON.stringify(offer);
}

export function encodeVariables(variables: Variables | undefined): string {
  return JSON.stringify(variables ?? {});
}

export function decodeActivated(
  account: string,
  partition: number,
  offerJson: string,
  variablesJson: string,
  worker: string,
  activatedAt: number,
): ActivatedJob {
  // Completed in place, in the order a spread would give: every activated job passes here.
  const job = JSON.parse(offerJson) as ActivatedJob;
  job.account = account;
  job.partition = partition;
  job.variables = JSON.parse(variablesJson) as Variables;
  job.worker = worker;
  job.activatedAt = activatedAt;
  return job;
}

/** Validates and normalises `max` of an activation: a positive integer, else nothing to do. */
export function activationCount(max: number): number {
  return Number.isFinite(max) && max >= 1 ? Math.floor(max) : 0;
}

export function assertPartition(partition: number): void {
  if (!Number.isSafeInteger(partition) || partition < 0) {
    throw new RangeError(`partition must be a non-negative integer, got ${partition}`);
  }
}
