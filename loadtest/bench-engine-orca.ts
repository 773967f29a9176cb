// Orca's side of `bench:engine`: the durable engine (createEngine on real
// Postgres and Redis, no HTTP) driven the way a client fleet drives it.
// Starter lanes each start a one-task instance and wait for it to complete
// before starting the next (a closed loop: `concurrency` instances in flight,
// so latency measures the engine rather than an ever-growing backlog); job
// workers keep up to 32 jobs active the way Camunda 8's clients do (see
// workerLoop), long-polling when nothing is queued. After the timed window the lanes stop
// starting and every instance in flight is drained, then the run checks
// itself against Postgres: every instance it saw complete must be stored as
// COMPLETED, and nothing may be left active, stuck or queued.
import { createEngine, engineConfig, type Engine } from '../engine/partition/index.ts';
import { BenchmarkCheckFailed } from './bench-core-run.ts';
import { summarise, type OrcaRun, type OrcaSettings } from './bench-engine-run.ts';
import type { Scratch, Services } from './bench-engine-services.ts';
import { findScenario, readModel } from './bench-scenarios.ts';

export const ACCOUNT = 'bench';
const SCENARIO = findScenario('one-task');
const JOB_TYPE = 'work';
/** An instance not completed this long after its start is stuck: the run fails instead of hanging. */
const COMPLETION_TIMEOUT_MS = 30_000;

export const DEFAULT_ORCA_SETTINGS: OrcaSettings = {
  // DESIGN §5 default.
  partitions: 8,
  // Enough load to measure the engine's rate, not the load generator's: the
  // fewest instances in flight and workers past which the rate stops rising
  // (2026-11-23, commit in its own thread: 384 in flight gave less, 768 no
  // more, 1,024 with 16 workers less). Workers keep at most 32 jobs each, so
  // they cap the jobs in hand: with 4 (128 jobs) the run measured the
  // workers — in a scratch build whose commits were an 8 ms wait and no
  // Postgres at all (one run each, not committed), 4 workers and 256 in
  // flight gave about 5,000 instances/s, 8 workers and 512 about 8,000.
  concurrency: 512,
  workers: 8,
  // What a Camunda 8 worker asks for by default.
  activateMax: 32,
  longPollMs: 250,
};

export interface OrcaOptions {
  services: Services;
  scratch: Scratch;
  seconds: number;
  warmupSeconds: number;
  settings?: Partial<OrcaSettings>;
  /** Aborting ends the run early (Ctrl-C): the run throws, the caller cleans up. */
  signal?: AbortSignal;
}

interface Started {
  /** Before startInstance was called. */
  at: number;
  /** When startInstance resolved. */
  returnedAt: number;
}

interface Completed {
  jobKey: string;
  /** Before completeJob was called. */
  calledAt: number;
  /** When completeJob resolved: the instance's completion time. */
  at: number;
}

/**
 * Per-instance bookkeeping shared by lanes and workers. A job may be completed
 * before its start call even returns (the leader pushes the job before it
 * replies), so completions are recorded by instance key and joined later.
 * The harness runs in the measured process, so it keeps its own cost low:
 * one sweep a second finds the stuck instances, not a timer per instance.
 */
class Tracker {
  readonly started = new Map<string, Started>();
  readonly completed = new Map<string, Completed>();
  /** In the order they began waiting, hence of their deadlines. */
  private readonly waiters = new Map<string, { resolve: () => void; reject: (err: Error) => void; since: number }>();
  private readonly sweeper = setInterval(() => this.sweep(), 1_000).unref();
  failure: Error | undefined;

  recordStart(instanceKey: string, started: Started): void {
    if (this.started.has(instanceKey)) this.fail(new BenchmarkCheckFailed(`instance key ${instanceKey} was returned by two starts`));
    this.started.set(instanceKey, started);
  }

  recordCompletion(instanceKey: string, completed: Completed): void {
    const earlier = this.completed.get(instanceKey);
    if (earlier !== undefined) {
      this.fail(new BenchmarkCheckFailed(`instance ${instanceKey} had two jobs completed (${earlier.jobKey}, ${completed.jobKey}); one-task has one`));
      return;
    }
    this.completed.set(instanceKey, completed);
    const waiter = this.waiters.get(instanceKey);
    if (waiter !== undefined) {
      this.waiters.delete(instanceKey);
      waiter.resolve();
    }
  }

  /** Resolves once the instance's job completed (at once if it already has). */
  completion(instanceKey: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.completed.has(instanceKey)) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.set(instanceKey, { resolve, reject, since: performance.now() }));
  }

  /** The first failure wins; every lane waiting on a completion is released with it. */
  fail(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.waiters.values()) waiter.reject(this.failure);
    this.waiters.clear();
  }

  /** The run is over: no more sweeps. */
  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Fails the run on an instance whose job was not completed within COMPLETION_TIMEOUT_MS of its start. */
  private sweep(): void {
    // The oldest waiter is the first: if it is within its time, all are.
    const oldest = this.waiters.entries().next();
    if (oldest.done || oldest.value[1].since > performance.now() - COMPLETION_TIMEOUT_MS) return;
    this.fail(new BenchmarkCheckFailed(`instance ${oldest.value[0]}: its job was not completed within ${COMPLETION_TIMEOUT_MS} ms of its start`));
  }
}

export async function runOrcaEngine(options: OrcaOptions): Promise<OrcaRun> {
  const settings: OrcaSettings = { ...DEFAULT_ORCA_SETTINGS, ...options.settings };
  const engine = await createEngine(
    engineConfig({
      databaseUrl: options.services.databaseUrl,
      redisUrl: options.services.redisUrl,
      schema: options.scratch.schema,
      redisPrefix: options.scratch.orcaPrefix,
      partitions: settings.partitions,
    }),
  );
  try {
    await engine.deploy(ACCOUNT, readModel(SCENARIO.orcaModel), SCENARIO.orcaModel);
    const tracker = new Tracker();
    const onAbort = () => tracker.fail(new Error('interrupted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    const now = () => performance.now();
    const windowStart = now() + options.warmupSeconds * 1000;
    const windowEnd = windowStart + options.seconds * 1000;
    let draining = false;
    // This process's CPU over the window (leaders, API side and workers all run here), per
    // instance: a cost that other load on a shared machine distorts less than the rate.
    const cpu = { startUs: 0, endUs: 0, completedAtStart: 0, completedAtEnd: 0 };
    const cpuUs = () => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    };
    const cpuTimers = [
      setTimeout(() => Object.assign(cpu, { startUs: cpuUs(), completedAtStart: tracker.completed.size }), windowStart - now()),
      setTimeout(() => Object.assign(cpu, { endUs: cpuUs(), completedAtEnd: tracker.completed.size }), windowEnd - now()),
    ];
    try {
      const workers = Array.from({ length: settings.workers }, (_, i) =>
        workerLoop(engine, `bench-worker-${i}`, settings, tracker, () => draining).catch((err: unknown) => tracker.fail(asError(err))),
      );
      const lanes = Array.from({ length: settings.concurrency }, () =>
        starterLane(engine, tracker, () => now() >= windowEnd).catch((err: unknown) => tracker.fail(asError(err))),
      );
      await Promise.all(lanes);
      // Every lane has seen its last instance complete (or the run failed): the workers may go.
      draining = true;
      await Promise.all(workers);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      for (const timer of cpuTimers) clearTimeout(timer);
      tracker.stop();
    }
    if (tracker.failure) throw tracker.failure;
    const verifiedCompleted = await verify(engine, tracker);
    const cpuPerInstanceUs = (cpu.endUs - cpu.startUs) / Math.max(1, cpu.completedAtEnd - cpu.completedAtStart);
    return report(tracker, settings, windowStart, windowEnd, verifiedCompleted, cpuPerInstanceUs);
  } finally {
    await engine.close();
  }
}

async function starterLane(engine: Engine, tracker: Tracker, windowOver: () => boolean): Promise<void> {
  while (!windowOver() && tracker.failure === undefined) {
    const at = performance.now();
    const { processInstanceKey } = await engine.startInstance(ACCOUNT, SCENARIO.processId, { ...SCENARIO.startVariables });
    tracker.recordStart(processInstanceKey, { at, returnedAt: performance.now() });
    await tracker.completion(processInstanceKey);
  }
}

/**
 * A job worker as Camunda 8's clients run one: it holds up to `activateMax`
 * jobs at once and asks for more (as many as it has room for) once its
 * active jobs drop to 30 % of that (the Java client's activation threshold),
 * so completing one activation's jobs overlaps with working the next's —
 * rather than activating 32, waiting for the slowest, then activating again.
 */
async function workerLoop(engine: Engine, name: string, settings: OrcaSettings, tracker: Tracker, done: () => boolean): Promise<void> {
  const work = SCENARIO.workers[JOB_TYPE];
  const threshold = Math.round(settings.activateMax * 0.3);
  const active = new Set<Promise<void>>();
  let roomMade: (() => void) | undefined;
  const complete = async (job: Awaited<ReturnType<Engine['activateJobs']>>[number]): Promise<void> => {
    if (job.type !== JOB_TYPE || job.bpmnProcessId !== SCENARIO.processId) {
      throw new BenchmarkCheckFailed(
        `activated a job of type '${job.type}' from '${job.bpmnProcessId}'; only '${JOB_TYPE}' from '${SCENARIO.processId}' exists`,
      );
    }
    const calledAt = performance.now();
    await engine.completeJob(ACCOUNT, job.key, work(job.variables));
    tracker.recordCompletion(job.processInstanceKey, { jobKey: job.key, calledAt, at: performance.now() });
  };
  while (!done() && tracker.failure === undefined) {
    if (active.size > threshold) {
      await new Promise<void>((resolve) => (roomMade = resolve));
      continue;
    }
    const jobs = await engine.activateJobs(ACCOUNT, JOB_TYPE, settings.activateMax - active.size, name, settings.longPollMs);
    for (const job of jobs) {
      const running: Promise<void> = complete(job)
        .catch((err: unknown) => tracker.fail(asError(err)))
        .finally(() => {
          active.delete(running);
          if (active.size <= threshold) roomMade?.();
        });
      active.add(running);
    }
  }
  await Promise.all(active);
}

/**
 * Reads the outcome back from Postgres through the store: the run's account
 * must hold exactly the instances seen completing, all COMPLETED, and no
 * instance left active or on an incident, and no job left to activate.
 * Returns how many COMPLETED instances the store holds.
 */
async function verify(engine: Engine, tracker: Tracker): Promise<number> {
  for (const key of tracker.completed.keys()) {
    if (!tracker.started.has(key)) throw new BenchmarkCheckFailed(`a job of instance ${key} was completed, but no start returned that key`);
  }
  for (const key of tracker.started.keys()) {
    if (!tracker.completed.has(key)) throw new BenchmarkCheckFailed(`instance ${key} was started but its job was never completed`);
  }
  const stored = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await engine.store.instances.listInstances(ACCOUNT, { state: 'COMPLETED', bpmnProcessId: SCENARIO.processId, limit: 1000, cursor });
    for (const item of page.items) stored.add(item.key);
    cursor = page.nextCursor;
  } while (cursor !== null);
  const missing = [...tracker.completed.keys()].filter((key) => !stored.has(key));
  if (missing.length > 0) {
    throw new BenchmarkCheckFailed(`${missing.length} instances reported completed are not COMPLETED in Postgres (first: ${missing.slice(0, 3).join(', ')})`);
  }
  if (stored.size !== tracker.completed.size) {
    throw new BenchmarkCheckFailed(`Postgres holds ${stored.size} COMPLETED instances, the run saw ${tracker.completed.size} complete`);
  }
  for (const state of ['ACTIVE', 'INCIDENT'] as const) {
    const left = await engine.store.instances.listInstances(ACCOUNT, { state, limit: 5 });
    if (left.items.length > 0) throw new BenchmarkCheckFailed(`instances left ${state} after the drain: ${left.items.map((i) => i.key).join(', ')}`);
  }
  const queued = await engine.store.jobs.listActivatableJobs(ACCOUNT, JOB_TYPE, { limit: 5 });
  if (queued.length > 0) throw new BenchmarkCheckFailed(`jobs left in Postgres after the drain: ${queued.map((j) => j.key).join(', ')}`);
  return stored.size;
}

function report(
  tracker: Tracker,
  settings: OrcaSettings,
  windowStart: number,
  windowEnd: number,
  verifiedCompleted: number,
  cpuPerInstanceUs: number,
): OrcaRun {
  let completedInWindow = 0;
  const completeCalls: number[] = [];
  for (const done of tracker.completed.values()) {
    if (done.at >= windowStart && done.at < windowEnd) {
      completedInWindow++;
      completeCalls.push(done.at - done.calledAt);
    }
  }
  const latencies: number[] = [];
  const startCalls: number[] = [];
  for (const [key, started] of tracker.started) {
    if (started.at < windowStart || started.at >= windowEnd) continue;
    latencies.push(tracker.completed.get(key)!.at - started.at);
    startCalls.push(started.returnedAt - started.at);
  }
  if (completedInWindow === 0) throw new BenchmarkCheckFailed('no instance completed inside the timed window');
  const windowSeconds = (windowEnd - windowStart) / 1000;
  return {
    completedInWindow,
    windowSeconds,
    perSecond: completedInWindow / windowSeconds,
    latency: summarise(latencies),
    startCall: summarise(startCalls),
    completeCall: summarise(completeCalls),
    started: tracker.started.size,
    completed: tracker.completed.size,
    verifiedCompleted,
    cpuPerInstanceUs,
    settings,
  };
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
