// Timers of a case's jobs (extensions, as a process job's in
// engine/runtime/behavior/): an activation timeout — a worker that
// activates a job with a timeout holds it until a timer of the case fires,
// and the job is then offered again unless it was completed, failed or
// withdrawn first — and a failed job's retry back-off, which offers it
// again when its timer fires instead of at once. Both are timers of the
// case, so they are stored, re-armed after a takeover and fired by the
// partition leader like a listener's, and go with their job.
import { armHold } from '../../runtime/behavior/activation-timeout.ts';
import type { Job } from '../../runtime/types.ts';
import type { CaseExecution } from './case-execution.ts';
import { jobOfferOf } from './plan-item-behavior.ts';
import type { CaseTimer } from './types.ts';

/** Records that `worker` holds `job` until `timeoutMs` from now; a hold already there is replaced. */
export function holdCaseJob(exec: CaseExecution, job: Job, worker: string, timeoutMs: number): void {
  exec.dropJobTimers(job);
  armHold(exec, job, worker, timeoutMs);
}

/** The deadline passed with the job neither completed nor failed: it is offered again. */
export function caseActivationTimedOut(exec: CaseExecution, timer: CaseTimer): void {
  delete exec.instance.timers[timer.key];
  exec.record('TIMER_TRIGGERED', {
    elementId: timer.elementId,
    jobKey: timer.jobKey,
    detail: { timerKey: timer.key, dueAt: timer.dueAt, activationTimeout: true },
  });
  const job = exec.instance.jobs[timer.jobKey!];
  if (job === undefined || job.held?.timerKey !== timer.key) return;
  job.held = undefined;
  if (job.state !== 'FAILED') exec.effect({ type: 'enqueueJob', job: jobOfferOf(exec.instance, job) });
}

/** A failed job with retries left waits `delayMs` before it is offered again. */
export function armRetryBackOff(exec: CaseExecution, job: Job, delayMs: number): void {
  const key = exec.nextKey();
  const dueAt = exec.now + delayMs;
  const schedule = { kind: 'date' as const, text: new Date(dueAt).toISOString(), at: dueAt, zone: 'UTC' };
  exec.instance.timers[key] = { key, elementId: job.elementId, ownerKey: job.elementInstanceKey, dueAt, schedule, firedCount: 0, jobKey: job.key };
  exec.record('TIMER_CREATED', { elementId: job.elementId, elementInstanceKey: job.elementInstanceKey, jobKey: job.key, detail: { timerKey: key, dueAt } });
  exec.effect({ type: 'scheduleTimer', timerKey: key, dueAt, elementId: job.elementId });
}

/** The back-off is over: the job, if it is still there, is offered again. */
export function retryBackOffPassed(exec: CaseExecution, timer: CaseTimer): void {
  delete exec.instance.timers[timer.key];
  exec.record('TIMER_TRIGGERED', { elementId: timer.elementId, jobKey: timer.jobKey, detail: { timerKey: timer.key, dueAt: timer.dueAt } });
  const job = exec.instance.jobs[timer.jobKey!];
  if (job !== undefined && job.state !== 'FAILED') exec.effect({ type: 'enqueueJob', job: jobOfferOf(exec.instance, job) });
}
