// A failed job's retry back-off (extension): instead of being offered again
// at once (SPEC.md), the job waits on a timer of its own element instance
// and is offered when it fires. The timer goes with the element (a
// completion, a cancel or an interrupting event withdraws it), and, being a
// timer, it is stored and re-armed after a restart like any other.
import type { Execution } from '../execution.ts';
import type { Job, Timer } from '../types.ts';
import { jobOffer } from './job.ts';

export function armRetryBackOff(exec: Execution, job: Job, delayMs: number): void {
  const key = exec.nextKey();
  const dueAt = exec.now + delayMs;
  const schedule = { kind: 'date' as const, text: new Date(dueAt).toISOString(), at: dueAt, zone: 'UTC' };
  exec.instance.timers[key] = { key, elementId: job.elementId, ownerKey: job.elementInstanceKey, dueAt, schedule, firedCount: 0, jobKey: job.key };
  exec.record('TIMER_CREATED', { elementId: job.elementId, elementInstanceKey: job.elementInstanceKey, jobKey: job.key, detail: { timerKey: key, dueAt } });
  exec.effect({ type: 'scheduleTimer', timerKey: key, dueAt, elementId: job.elementId });
}

/** The back-off is over: the job, if it is still there, is offered again. */
export function retryBackOffPassed(exec: Execution, timer: Timer): void {
  delete exec.instance.timers[timer.key];
  exec.record('TIMER_TRIGGERED', { elementId: timer.elementId, detail: { timerKey: timer.key, dueAt: timer.dueAt } });
  const job = exec.instance.jobs[timer.jobKey!];
  if (job !== undefined && job.state !== 'FAILED') exec.effect({ type: 'enqueueJob', job: jobOffer(exec.instance, job) });
}
