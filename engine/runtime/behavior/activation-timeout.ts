// A job's activation timeout (extension, like Zeebe's job `timeout`): a worker
// that activates with a timeout holds the job until a timer of the job's
// element fires; the job is then offered again unless it was completed,
// failed or withdrawn first. SPEC.md's default is untouched: without a
// timeout nothing is recorded and the job stays with its worker. Being a
// timer of the instance, the deadline is stored, re-armed after a takeover
// and fired by the partition leader's timer wheel, and the hold itself is
// stored on the job's row (state ACTIVATED), so a queue rebuild keeps the
// job with its worker until then.
import type { Execution } from '../execution.ts';
import type { Effect, HistoryRecord, Job, RecordType, Timer } from '../types.ts';
import { cancelTimer } from './timers.ts';
import { jobOffer } from './job.ts';

/** Records that `worker` holds `job` until `timeoutMs` from now; a hold already there is replaced. */
export function holdJob(exec: Execution, job: Job, worker: string, timeoutMs: number): void {
  releaseHold(exec, job);
  armHold(exec, job, worker, timeoutMs);
}

/** What arming a hold needs of an execution: a process instance's (Execution) or a case's (CaseExecution). */
export interface HoldScope {
  readonly now: number;
  readonly instance: { timers: Record<string, Timer> };
  nextKey(): string;
  record(type: RecordType, fields?: Omit<HistoryRecord, 'type' | 'at'>): void;
  effect(effect: Effect): void;
}

/** The hold itself, once any earlier one is gone: a timer of the job's element and the job marked held by `worker`. */
export function armHold(exec: HoldScope, job: Job, worker: string, timeoutMs: number): void {
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

/** The worker gave the job back (a fail): its deadline is withdrawn. */
export function releaseHold(exec: Execution, job: Job): void {
  if (job.held === undefined) return;
  if (exec.instance.timers[job.held.timerKey] !== undefined) cancelTimer(exec, job.held.timerKey);
  job.held = undefined;
}

/** The deadline passed with the job neither completed nor failed: it is offered again (at least once, as Zeebe does). */
export function activationTimedOut(exec: Execution, timer: Timer): void {
  delete exec.instance.timers[timer.key];
  exec.record('TIMER_TRIGGERED', {
    elementId: timer.elementId,
    jobKey: timer.jobKey,
    detail: { timerKey: timer.key, dueAt: timer.dueAt, activationTimeout: true },
  });
  const job = exec.instance.jobs[timer.jobKey!];
  if (job === undefined || job.held?.timerKey !== timer.key) return;
  job.held = undefined;
  if (job.state !== 'FAILED') exec.effect({ type: 'enqueueJob', job: jobOffer(exec.instance, job) });
}
