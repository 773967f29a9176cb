// One round of a polling job worker, shared by job-workers.js and
// end-to-end.js: activate up to MAX_JOBS jobs of JOB_TYPE, complete them all
// in one parallel batch, and when the answer is empty sleep 1 to 5 seconds
// before the next poll, as SPEC.md's polling guidance asks. With
// LONG_POLL_MS > 0 the worker uses Orca's long-polling extension instead: the
// server holds the request until a job arrives or the time is up, so there is
// nothing to sleep. Instances started by these scripts carry `k6StartedAt`
// (epoch ms), from which the worker measures how long the job took to reach
// it and the whole start → completion round trip.
import { sleep } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { envNumber, envString } from './env.js';
import { activateJobs, completeJobs } from './orca-api.js';

/** Start request sent (k6StartedAt) → job completion acknowledged; needs the starters' and workers' clocks to agree. */
export const startToComplete = new Trend('orca_start_to_complete', true);
/** Start request sent → the activation answer that handed the job to a worker (includes the start call itself). */
export const startToActivation = new Trend('orca_start_to_activation', true);
export const jobsCompleted = new Counter('orca_jobs_completed');
export const emptyActivations = new Counter('orca_empty_activations');

/**
 * @typedef {{ jobType: string, maxJobs: number, longPollMs: number }} WorkerSettings
 */

/**
 * JOB_TYPE, MAX_JOBS and LONG_POLL_MS from the environment.
 * @param {number} defaultLongPollMs
 * @returns {WorkerSettings}
 */
export function workerSettings(defaultLongPollMs) {
  return {
    jobType: envString('JOB_TYPE', 'orca-load-work'),
    maxJobs: envNumber('MAX_JOBS', 32, { min: 1, max: 1000, integer: true }),
    longPollMs: envNumber('LONG_POLL_MS', defaultLongPollMs, { min: 0, max: 60000, integer: true }),
  };
}

/**
 * One activation and the completion of what it brought.
 * @param {WorkerSettings} settings
 * @param {string} worker
 */
export function pollOnce(settings, worker) {
  const jobs = activateJobs(settings.jobType, settings.maxJobs, { requestTimeoutMs: settings.longPollMs, worker });
  const activatedAt = Date.now();
  if (jobs.length === 0) {
    emptyActivations.add(1);
    if (settings.longPollMs === 0) sleep(1 + Math.random() * 4);
    return;
  }
  for (const job of jobs) {
    const startedAt = job.variables.k6StartedAt;
    if (typeof startedAt === 'number') startToActivation.add(activatedAt - startedAt);
  }
  const acknowledged = completeJobs(jobs, () => ({ k6CompletedBy: worker }));
  // The batch answers together: each acknowledged job's round trip ends here.
  const completedAt = Date.now();
  jobs.forEach((job, i) => {
    if (!acknowledged[i]) return;
    jobsCompleted.add(1);
    const startedAt = job.variables.k6StartedAt;
    if (typeof startedAt === 'number') startToComplete.add(completedAt - startedAt);
  });
}
