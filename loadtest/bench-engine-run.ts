// What each side of `bench:engine` reports, and the small statistics both
// share. Latencies are kept as raw samples (milliseconds) so percentiles are
// exact rather than bucketed: a 10 s run holds a few tens of thousands.

export interface LatencySummary {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** Orca's timed run, after its checks passed. */
export interface OrcaRun {
  /** Instances whose job completion landed inside the timed window: the rate's numerator. */
  completedInWindow: number;
  windowSeconds: number;
  perSecond: number;
  /** Start → complete, over the instances started inside the window (all of them completed). */
  latency: LatencySummary;
  /** The two calls on their own, over the same window, to tell where the time goes. */
  startCall: LatencySummary;
  completeCall: LatencySummary;
  /** Everything started (warm-up and drain included); each one completed and was verified in Postgres. */
  started: number;
  completed: number;
  /** Instances the store holds as COMPLETED for the run's account (equal to `completed`, or the run throws). */
  verifiedCompleted: number;
  /** This process's CPU time (user + system) in the window per instance completed in it, microseconds. */
  cpuPerInstanceUs: number;
  settings: OrcaSettings;
}

export interface OrcaSettings {
  partitions: number;
  /** Instances in flight at once: each starter lane starts one and waits for its completion. */
  concurrency: number;
  workers: number;
  /** maxJobsToActivate per activation. */
  activateMax: number;
  /** Long-poll wait of an activation that found nothing. */
  longPollMs: number;
}

/** BullMQ on the same Redis, over as many jobs as Orca completed in its window. */
export interface BullmqRun {
  jobs: number;
  /** From the first addBulk to the last completion (adds included; see bench-engine-bullmq.ts). */
  seconds: number;
  /** The two phases: every addBulk, then the worker taking all the jobs. */
  addSeconds: number;
  processSeconds: number;
  perSecond: number;
  concurrency: number;
}

/** Nearest-rank percentile of unsorted samples; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarise(samples: readonly number[]): LatencySummary {
  return {
    samples: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.length === 0 ? Number.NaN : samples.reduce((m, s) => (s > m ? s : m), -Infinity),
  };
}
