// `npm run bench:engine -- --cases`: bench:core's case scenario (CMMN: a
// stage with two human tasks and a milestone, case-stage.cmmn) durably, on
// the partitions with real PostgreSQL and Redis, no HTTP. Lanes each start a
// case and wait for it to end; workers activate the `userTask` jobs and
// complete them. A case has ended once its second job's completion is
// committed (the stage and the milestone complete in that same command).
// Reports cases per second, the latency start → case ended and the CPU of
// this process per case; then checks against Postgres that every case is
// COMPLETED and no job is left.
import { createEngine, engineConfig } from '../engine/partition/index.ts';
import { BenchmarkCheckFailed } from './bench-core-run.ts';
import { summarise, type LatencySummary } from './bench-engine-run.ts';
import type { Scratch, Services } from './bench-engine-services.ts';
import { readModel } from './bench-scenarios.ts';

const ACCOUNT = 'bench-cases';
const CASE_ID = 'case-stage';
const JOBS_PER_CASE = 2;
const ACTIVATE_MAX = 32;
const LONG_POLL_MS = 1_000;

export interface CaseRun {
  partitions: number;
  concurrency: number;
  workers: number;
  completedInWindow: number;
  windowSeconds: number;
  perSecond: number;
  /** Start called → the case's second job completed (the case ended). */
  latency: LatencySummary;
  cpuPerCaseUs: number;
  verifiedCompleted: number;
}

export interface CaseOptions {
  services: Services;
  scratch: Scratch;
  seconds: number;
  warmupSeconds: number;
  partitions: number;
  concurrency: number;
  workers: number;
  signal?: AbortSignal;
}

export async function runCaseScenario(options: CaseOptions): Promise<CaseRun> {
  const engine = await createEngine(
    engineConfig({
      databaseUrl: options.services.databaseUrl,
      redisUrl: options.services.redisUrl,
      schema: options.scratch.schema,
      redisPrefix: options.scratch.orcaPrefix,
      partitions: options.partitions,
    }),
  );
  try {
    const deployed = await engine.deployCases(ACCOUNT, readModel('case-stage.cmmn'), 'case-stage.cmmn');
    const caseId = deployed.deployments[0]?.caseDefinitionId ?? CASE_ID;
    const now = () => performance.now();
    const windowStart = now() + options.warmupSeconds * 1000;
    const windowEnd = windowStart + options.seconds * 1000;
    /** Case key → its jobs still to complete, and what to call once none are left. */
    const waiting = new Map<string, { left: number; done: () => void }>();
    /** Jobs activated before their case's start returned: counted when it does. */
    const early = new Map<string, number>();
    const latencies: number[] = [];
    const started: string[] = [];
    let completedInWindow = 0;
    let cpuAtStart: NodeJS.CpuUsage | undefined;
    let cpuInWindow: NodeJS.CpuUsage | undefined;
    let lanesDone = false;

    const ended = (key: string) => {
      const entry = waiting.get(key);
      if (entry === undefined) early.set(key, (early.get(key) ?? 0) + 1);
      else if (--entry.left === 0) {
        waiting.delete(key);
        entry.done();
      }
    };
    const lane = async () => {
      while (now() < windowEnd) {
        if (options.signal?.aborted) throw new Error('interrupted');
        const at = now();
        const { caseInstanceKey } = await engine.startCase(ACCOUNT, caseId, { amount: 1 });
        started.push(caseInstanceKey);
        await new Promise<void>((done) => {
          waiting.set(caseInstanceKey, { left: JOBS_PER_CASE, done });
          for (let i = early.get(caseInstanceKey) ?? 0; i > 0; i--) ended(caseInstanceKey);
          early.delete(caseInstanceKey);
        });
        const end = now();
        if (at >= windowStart && end <= windowEnd) {
          completedInWindow++;
          latencies.push(end - at);
        }
        if (cpuAtStart === undefined && end >= windowStart) cpuAtStart = process.cpuUsage();
        if (cpuInWindow === undefined && end > windowEnd && cpuAtStart !== undefined) cpuInWindow = process.cpuUsage(cpuAtStart);
      }
    };
    const worker = async (n: number) => {
      while (!lanesDone) {
        const jobs = await engine.activateJobs(ACCOUNT, 'userTask', ACTIVATE_MAX, `bench-${n}`, LONG_POLL_MS);
        await Promise.all(
          jobs.map(async (job) => {
            await engine.completeJob(ACCOUNT, job.key, { done: true });
            ended(job.processInstanceKey);
          }),
        );
      }
    };
    const workers = Array.from({ length: options.workers }, (_, n) => worker(n));
    try {
      await Promise.all(Array.from({ length: options.concurrency }, lane));
    } finally {
      lanesDone = true;
      await Promise.all(workers);
    }
    const cpu = cpuInWindow ?? process.cpuUsage(cpuAtStart);
    const verifiedCompleted = await verify(engine, started);
    return {
      partitions: options.partitions,
      concurrency: options.concurrency,
      workers: options.workers,
      completedInWindow,
      windowSeconds: options.seconds,
      perSecond: completedInWindow / options.seconds,
      latency: summarise(latencies),
      cpuPerCaseUs: completedInWindow === 0 ? 0 : (cpu.user + cpu.system) / completedInWindow,
      verifiedCompleted,
    };
  } finally {
    await engine.close();
  }
}

/** Every started case must be COMPLETED in Postgres, and no job left. */
async function verify(engine: Awaited<ReturnType<typeof createEngine>>, started: string[]): Promise<number> {
  const stored = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await engine.store.caseInstances.listCaseInstances(ACCOUNT, { state: 'COMPLETED', limit: 1000, cursor });
    for (const item of page.items) stored.add(item.key);
    cursor = page.nextCursor;
  } while (cursor !== null);
  const missing = started.filter((key) => !stored.has(key));
  if (missing.length > 0) throw new BenchmarkCheckFailed(`${missing.length} cases are not COMPLETED (first: ${missing[0]})`);
  const left = await engine.store.tasks.listTasks(ACCOUNT, { state: 'open', limit: 5 });
  if (left.items.length > 0) throw new BenchmarkCheckFailed(`tasks left open: ${left.items.map((t) => t.key).join(', ')}`);
  return stored.size;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export function formatCaseReport(run: CaseRun): string {
  const l = run.latency;
  return [
    '| scenario | rate | p50 | p99 |',
    '|---|---:|---:|---:|',
    `| case-stage: a stage, two human tasks, a milestone (${run.partitions} partitions, ${run.concurrency} in flight, ${run.workers} workers) | ${Math.round(run.perSecond)} cases/s | ${ms(l.p50)} | ${ms(l.p99)} |`,
    '',
    `${run.completedInWindow} cases completed in the ${run.windowSeconds.toFixed(1)} s window; ${run.verifiedCompleted} COMPLETED in Postgres, no task left open.`,
    `CPU of this process in the window: ${Math.round(run.cpuPerCaseUs)} µs per case.`,
    '',
    JSON.stringify({ case_per_s: Math.round(run.perSecond), p99_ms: Math.round(l.p99), cpu_us_per_case: Math.round(run.cpuPerCaseUs) }),
  ].join('\n');
}
