// `bench:e2e --compare-workers`: what the client library's workers cost
// against the hand-written loop, measured in one invocation on one server.
// Each round runs the closed model (maximum throughput) once with each kind,
// the order alternating between rounds (loop, library, then library, loop …)
// so that a server warming up or a neighbour's load does not favour one
// kind. Beside the throughput, each run counts the work it caused per
// instance, which a neighbour's load does not change: activation requests,
// and the batches the server committed (its orca_partition_batch_commands
// histogram, read from /metrics before and after; — when metrics are off),
// and the CPU time each instance took (process-cpu.ts): of the server, of
// the Postgres backends serving it (pg-redis), and of this load generator.
// Prints both kinds' throughput per round, their means and the ratio
// library ÷ loop, and as the LAST line
// {"backend","compare_workers","loop_pi_per_s","library_pi_per_s","library_vs_loop","errors"}.
// Speed is reported, never asserted.
import { runLoad, type PhasePlan, type PhaseResult } from './bench-e2e-load.ts';
import { startServer } from './bench-e2e-server.ts';
import type { E2eOptions, RunContext } from './bench-e2e.ts';
import { WORKER_KINDS, type WorkerKind } from './bench-e2e-workers.ts';
import { messageOf, servicesFromEnv } from './bench-engine-services.ts';
import { postgresCpuMs, processCpuMs } from './process-cpu.ts';

export interface ComparisonRun {
  round: number;
  kind: WorkerKind;
  closed: PhaseResult;
  errors: number;
  errorsByKind: Record<string, number>;
  /** Per instance counted over the run (warm-up included): activation requests, and batches the server committed (NaN without metrics). */
  activationsPerInstance: number;
  batchesPerInstance: number;
  /** CPU µs per instance over the run (warm-up included); null where it could not be read. */
  cpuUsPerInstance: { server: number | null; postgres: number | null; client: number };
}

export interface Comparison {
  options: E2eOptions;
  runs: ComparisonRun[];
  /** Mean closed-model instances/s per kind. */
  mean: Record<WorkerKind, number>;
  /** library ÷ loop: 0.95 means the library costs 5 % of the throughput. */
  ratio: number;
  errors: number;
}

export function comparisonOrder(rounds: number): { round: number; kind: WorkerKind }[] {
  const order: { round: number; kind: WorkerKind }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const kinds = round % 2 === 1 ? WORKER_KINDS : [...WORKER_KINDS].reverse();
    for (const kind of kinds) order.push({ round, kind });
  }
  return order;
}

export async function runWorkerComparison(options: E2eOptions, context: RunContext = {}): Promise<Comparison> {
  const rounds = options.compareRounds ?? 2;
  const services = options.backend === 'pg-redis' ? (context.services ?? servicesFromEnv()) : undefined;
  // The server's Postgres connections carry this name, so their backends' CPU can be told from a neighbour's.
  const appName = `orca-bench-${process.pid}`;
  const server = await startServer({
    backend: options.backend,
    services,
    partitions: options.partitions,
    scratch: context.scratch,
    env: { ORCA_DB_APPLICATION_NAME: appName },
  });
  const postgresCpu = () => (services === undefined ? Promise.resolve(null) : postgresCpuMs(services.databaseUrl, appName));
  context.onServer?.({ pid: server.pid, location: server.location });
  const plans: PhasePlan[] = [
    ...(options.warmupSeconds > 0 ? [{ name: 'warm-up', model: 'closed' as const, seconds: options.warmupSeconds, warmup: true }] : []),
    { name: 'closed', model: 'closed', seconds: options.seconds },
  ];
  const runs: ComparisonRun[] = [];
  let finished = false;
  try {
    for (const { round, kind } of comparisonOrder(rounds)) {
      const batchesBefore = await committedBatches(server.baseUrl);
      const [serverBefore, postgresBefore, clientBefore] = [processCpuMs(server.pid), await postgresCpu(), process.cpuUsage()];
      const load = await runLoad(server.baseUrl, server.apiKey, { ...options.load, workerKind: kind }, plans, context.signal);
      const [serverAfter, postgresAfter, client] = [processCpuMs(server.pid), await postgresCpu(), process.cpuUsage(clientBefore)];
      const batches = (await committedBatches(server.baseUrl)) - batchesBefore;
      const perInstance = (before: number | null, after: number | null) =>
        before === null || after === null ? null : ((after - before) * 1000) / load.counted;
      runs.push({
        round,
        kind,
        closed: load.phases.find((p) => p.name === 'closed')!,
        errors: load.errors,
        errorsByKind: load.errorsByKind,
        activationsPerInstance: load.activations / load.counted,
        batchesPerInstance: batches / load.counted,
        cpuUsPerInstance: {
          server: perInstance(serverBefore, serverAfter),
          postgres: perInstance(postgresBefore, postgresAfter),
          client: (client.user + client.system) / load.counted,
        },
      });
    }
    finished = true;
  } catch (err) {
    if (err instanceof Error && !server.alive()) err.message += `\nthe Orca server exited during the run:\n${server.output()}`;
    throw err;
  } finally {
    const stopped = server.stop();
    if (!finished) await stopped.catch((err: unknown) => console.error(`bench:e2e: ${messageOf(err)}`));
    else await stopped;
  }
  const meanOf = (kind: WorkerKind) => {
    const figures = runs.filter((r) => r.kind === kind).map((r) => r.closed.perSecond);
    return figures.reduce((a, b) => a + b, 0) / figures.length;
  };
  const mean = { loop: meanOf('loop'), library: meanOf('library') };
  return { options, runs, mean, ratio: mean.library / mean.loop, errors: runs.reduce((sum, r) => sum + r.errors, 0) };
}

/** Batches the server committed so far, from its /metrics; NaN when it serves none. */
async function committedBatches(baseUrl: string): Promise<number> {
  const response = await fetch(`${baseUrl}/metrics`).catch(() => undefined);
  if (response === undefined || !response.ok) return Number.NaN;
  let total = 0;
  let found = false;
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('orca_partition_batch_commands_count')) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
    found = true;
  }
  return found ? total : Number.NaN;
}

function kinds(byKind: Record<string, number>): string {
  const entries = Object.entries(byKind);
  return entries.length === 0 ? '' : ` (${entries.map(([kind, n]) => `${kind} ×${n}`).join(', ')})`;
}

export function formatComparison(result: Comparison): string {
  const { options, runs, mean, ratio } = result;
  const ms = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(1)} ms`);
  const per = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : '—');
  const us = (value: number | null) => (value === null ? '—' : value.toFixed(0));
  const cpuMean = (kind: WorkerKind) => {
    const mine = runs.filter((r) => r.kind === kind).map((r) => r.cpuUsPerInstance);
    const mean = (part: 'server' | 'postgres' | 'client') =>
      mine.some((c) => c[part] === null) ? null : mine.reduce((sum, c) => sum + c[part]!, 0) / mine.length;
    const [server, postgres, client] = [mean('server'), mean('postgres'), mean('client')];
    const total = [server, postgres, client].reduce<number>((sum, v) => sum + (v ?? 0), 0);
    return { text: `${total.toFixed(0)} µs (server ${us(server)}, Postgres ${us(postgres)}, load generator ${us(client)})`, total };
  };
  const cpu = { loop: cpuMean('loop'), library: cpuMean('library') };
  return [
    '| round | workers | instances/s | start→complete p50 | p99 | complete call p99 | load generator CPU | activations / instance | server batches / instance | CPU µs / instance: server | Postgres | load generator | errors |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.round} | ${r.kind} | ${Math.round(r.closed.perSecond)} | ${ms(r.closed.startToComplete.p50)} | ${ms(r.closed.startToComplete.p99)} | ` +
        `${ms(r.closed.completeCall.p99)} | ${Math.round(r.closed.clientCpuPercent)} % | ${per(r.activationsPerInstance)} | ${per(r.batchesPerInstance)} | ` +
        `${us(r.cpuUsPerInstance.server)} | ${us(r.cpuUsPerInstance.postgres)} | ${us(r.cpuUsPerInstance.client)} | ` +
        `${r.errors}${kinds(r.errorsByKind)} |`,
    ),
    '',
    `Closed model, ${options.load.concurrency} starters for ${options.seconds} s per run (warm-up ${options.warmupSeconds} s), ${options.load.workers} workers × ` +
      `maxJobsToActivate ${options.load.maxJobs}, ${options.load.longPollMs > 0 ? `long polling ${options.load.longPollMs} ms` : 'polling'}, ` +
      `${options.partitions} partitions, ${options.backend}; one server for all runs, the order alternating by round` +
      `${options.load.loopKeys ? '; the loop sends an Idempotency-Key on each completion, as the library does' : ''}.`,
    `Mean instances/s: loop ${mean.loop.toFixed(1)}, library ${mean.library.toFixed(1)}; library ÷ loop = ${ratio.toFixed(3)} ` +
      `(${ratio >= 1 ? 'no cost measured' : `the library costs ${((1 - ratio) * 100).toFixed(1)} %`}).`,
    `Mean CPU per instance: loop ${cpu.loop.text}; library ${cpu.library.text}; library ÷ loop = ${(cpu.library.total / cpu.loop.total).toFixed(3)}.`,
    '',
    JSON.stringify({
      backend: options.backend,
      compare_workers: true,
      loop_pi_per_s: Math.round(mean.loop),
      library_pi_per_s: Math.round(mean.library),
      library_vs_loop: Number(ratio.toFixed(3)),
      errors: result.errors,
    }),
  ].join('\n');
}
