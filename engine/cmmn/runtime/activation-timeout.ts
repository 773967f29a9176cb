// A case task's activation timeout (extension), as a process job's
// (engine/runtime/behavior/activation-timeout.ts): a worker that activates
// a case's job with a timeout holds it until a timer of the case fires; the
// job is then offered again unless it was completed, failed or withdrawn
// first. The deadline is a timer of the case, so it is stored, re-armed
// after a takeover and fired by the partition leader like a listener's.
import type { Job } from '../../runtime/types.ts';
import type { CaseExecution } from './case-execution.ts';
import { jobOfferOf } from './plan-item-behavior.ts';
import type { CaseTimer } from './types.ts';

/** Records that `worker` holds `job` until `timeoutMs` from now; a hold already there is replaced. */
export function holdCaseJob(exec: CaseExecution, job: Job, worker: string, timeoutMs: number): void {
  exec.releaseHold(job);
  const key = exec.nextKey();
  const dueAt = exec.now + timeoutMs;
  const schedule = { kind: 'date' as const, text: new Date(dueAt).toISOString(), at: dueAt, zone: 'UTC' };
  exec.instance.timers[key] = {
    key,
    elementId: job.elementId,
    ownerKey: job.elementInstanceKey,
    dueAt,
    schedule,
    firedCount: 0,
    jobKey: job.key,
    activationTimeout: true,
  };
  job.held = { worker, at: exec.now, timerKey: key };
  exec.record('TIMER_CREATED', {
    elementId: job.elementId,
    elementInstanceKey: job.elementInstanceKey,
    jobKey: job.key,
    detail: { timerKey: key, dueAt, activationTimeout: true, worker },
  });
  exec.effect({ type: 'scheduleTimer', timerKey: key, dueAt, elementId: job.elementId });
  exec.effect({ type: 'holdJob', jobKey: job.key });
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
