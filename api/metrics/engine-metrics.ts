// The engine's metrics interface (engine/metrics.ts) onto prom-client: a
// published batch's tally becomes a handful of increments and
// observations, once per batch, on label children bound up front (no label
// lookup per event); an activation's jobs are counted per kind in one go.
import type { Counter } from 'prom-client';
import { JOB_KINDS, jobKindOfType, kindIndex, type ActivationTiming, type BatchTally, type EngineMetrics, type KindCounts } from '../../engine/index.ts';
import type { OrcaMetrics } from './orca-metrics.ts';

type Child = ReturnType<Counter['labels']>;

export function engineMetrics(metrics: OrcaMetrics): EngineMetrics {
  const byKind = (counter: Counter<'job_kind'>): Child[] => JOB_KINDS.map((kind) => counter.labels(kind));
  const created = byKind(metrics.jobsCreated);
  const completed = byKind(metrics.jobsCompleted);
  const failed = byKind(metrics.jobsFailed);
  const activated = byKind(metrics.jobsActivated);
  const waits = JOB_KINDS.map((kind) => metrics.activationWait.labels(kind));
  const endedCompleted = metrics.instancesEnded.labels('COMPLETED');
  const endedTerminated = metrics.instancesEnded.labels('TERMINATED');
  const casesCompleted = metrics.casesEnded.labels('COMPLETED');
  const casesTerminated = metrics.casesEnded.labels('TERMINATED');

  const add = (children: Child[], counts: KindCounts) => {
    for (let i = 0; i < counts.length; i++) if (counts[i] > 0) children[i].inc(counts[i]);
  };

  return {
    batchPublished(_partition: number, tally: BatchTally) {
      metrics.batchDuration.observe((performance.now() - tally.began) / 1000);
      metrics.batchCommands.observe(tally.commands);
      if (tally.instancesStarted > 0) metrics.instancesStarted.inc(tally.instancesStarted);
      if (tally.instancesCompleted > 0) endedCompleted.inc(tally.instancesCompleted);
      if (tally.instancesTerminated > 0) endedTerminated.inc(tally.instancesTerminated);
      if (tally.casesStarted > 0) metrics.casesStarted.inc(tally.casesStarted);
      if (tally.casesCompleted > 0) casesCompleted.inc(tally.casesCompleted);
      if (tally.casesTerminated > 0) casesTerminated.inc(tally.casesTerminated);
      for (const seconds of tally.instanceDurations) metrics.instanceDuration.observe(seconds);
      add(created, tally.jobsCreated);
      add(completed, tally.jobsCompleted);
      add(failed, tally.jobsFailed);
      if (tally.incidentsCreated > 0) metrics.incidentsCreated.inc(tally.incidentsCreated);
      if (tally.rejected !== undefined) for (const [reason, n] of Object.entries(tally.rejected)) metrics.commandsRejected.inc({ reason }, n);
    },

    jobsActivated(jobs: readonly ActivationTiming[]) {
      const counts: KindCounts = [0, 0, 0, 0, 0, 0];
      for (const job of jobs) {
        const k = kindIndex(job.kind ?? jobKindOfType(job.type));
        counts[k]++;
        if (job.queuedAt !== undefined) waits[k].observe(Math.max(0, job.activatedAt - job.queuedAt) / 1000);
      }
      add(activated, counts);
    },

    commandRejected(reason) {
      metrics.commandsRejected.inc({ reason });
    },

    leaderChanged() {
      metrics.leaseChanges.inc();
    },
  };
}
