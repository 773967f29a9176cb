// Handing jobs to a worker: from the queues directly, long polling
// (extension) when none wait, and with an activation timeout (extension)
// each job's deadline committed through its partition before the worker
// hears of the job.
import type { EngineMetrics } from '../metrics.ts';
import type { ActivatedJob, Queues } from '../queue/index.ts';
import type { SendCommand } from './command-client.ts';
import { EngineError } from './engine-error.ts';

/** Refusals that say nothing about the command itself: the same command may succeed shortly. */
const TRANSIENT: ReadonlySet<string> = new Set(['BACKPRESSURE', 'TIMEOUT', 'UNAVAILABLE']);

export type ActivateJobs = (
  account: string,
  type: string,
  max: number,
  worker: string,
  requestTimeoutMs?: number,
  timeoutMs?: number,
) => Promise<ActivatedJob[]>;

export function jobActivation(parts: { queues: Queues; send: SendCommand; metrics: EngineMetrics; partitionOf: (jobKey: string) => number }): ActivateJobs {
  const { queues, send, metrics, partitionOf } = parts;

  /** Jobs handed to a worker: long polling (extension) when none wait; counted for the metrics. */
  async function activate(account: string, type: string, max: number, worker: string, requestTimeoutMs?: number, timeoutMs?: number): Promise<ActivatedJob[]> {
    let jobs = await queues.jobs.activate(account, type, max, worker);
    if (jobs.length === 0 && requestTimeoutMs) {
      // Long polling (extension): wait for a push, then try once more.
      if (!(await queues.jobs.waitForJobs(account, type, requestTimeoutMs))) return [];
      jobs = await queues.jobs.activate(account, type, max, worker);
    }
    if (jobs.length > 0 && timeoutMs) jobs = await holdAll(account, jobs, worker, timeoutMs);
    if (jobs.length > 0) metrics.jobsActivated(jobs);
    return jobs;
  }

  /**
   * Activation timeout (extension): a worker hears of a job only once its
   * deadline is committed through the job's partition, so a leader kill or
   * a Redis flush cannot leave it held with no deadline. A job whose hold
   * was refused is not handed out. Refused for what it is (gone, failed,
   * its instance set aside) it is dropped: the leader has withdrawn it or
   * will. Refused for the moment (backpressure, no answer in time, the
   * store down) it goes back to its queue — if the hold was stored after
   * all, the job is offered twice at worst (at least once).
   */
  async function holdAll(account: string, jobs: ActivatedJob[], worker: string, timeoutMs: number): Promise<ActivatedJob[]> {
    const outcomes = await Promise.allSettled(
      jobs.map((job) => send(partitionOf(job.key), { kind: 'holdJob', account, jobKey: job.key, worker, timeout: timeoutMs })),
    );
    const held: ActivatedJob[] = [];
    let failure: unknown;
    for (let i = 0; i < jobs.length; i++) {
      const outcome = outcomes[i];
      if (outcome.status === 'fulfilled') held.push(jobs[i]);
      else if (!(outcome.reason instanceof EngineError) || TRANSIENT.has(outcome.reason.code)) {
        failure ??= outcome.reason;
        await queues.jobs.requeue(jobs[i]);
      }
    }
    if (held.length === 0 && failure !== undefined) throw failure;
    return held;
  }

  return activate;
}
