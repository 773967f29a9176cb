// What one engine's timed run reports, and the checks both drivers share: a
// run that did not do what the model says fails loudly instead of reporting a
// rate (a benchmark that does not check its own result measures nothing).
import type { Scenario } from './bench-scenarios.ts';

/** What one engine achieved on one scenario, after its own checks passed. */
export interface EngineRun {
  instances: number;
  /** Instances seen to end; equal to `instances`, or the run throws. */
  completed: number;
  seconds: number;
  perSecond: number;
  /** Jobs (service calls) completed, by type. */
  jobs: Record<string, number>;
}

export interface TimedRunOptions {
  /** Timed duration; a driver stops starting instances once it has passed. */
  seconds: number;
  /** Untimed warm-up before it (JIT), in seconds. */
  warmupSeconds: number;
}

export class BenchmarkCheckFailed extends Error {}

/** Job counts must be instances × jobsPerInstance for every type, and zero for types the path never reaches. */
export function checkJobCounts(label: string, scenario: Scenario, instances: number, jobs: Record<string, number>): void {
  for (const [type, count] of Object.entries(jobs)) {
    const expected = instances * (scenario.jobsPerInstance[type] ?? 0);
    if (count !== expected) {
      throw new BenchmarkCheckFailed(`${label} ${scenario.name}: ${count} '${type}' jobs for ${instances} instances, expected ${expected}.`);
    }
  }
}

/** Element ids as a canonical string, so two paths compare regardless of completion order. */
export function pathKey(ids: string[]): string {
  return [...ids].sort().join(',');
}
