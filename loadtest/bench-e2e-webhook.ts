// `npm run bench:e2e -- --webhook`: what webhook delivery costs the engine,
// measured in one invocation on one server. Two accounts drive the same
// closed model (maximum throughput) in turn, the order alternating by round
// (without, with, then with, without …, --rounds rounds): one has no webhook
// endpoint, the other an endpoint subscribed to process_instance.completed
// on a receiver in a process of its own (bench-e2e-webhook-receiver.ts, so
// it takes none of the load generator's CPU; loopback, the server runs with
// ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS=on; --webhook-batching=N:MS gives the
// endpoint batched delivery). The endpoint row is written
// before the server starts, so no webhook API is needed. For each run: the
// throughput, the deliveries received, their lag (the event's `timestamp`,
// the change's commit, → receipt here; both clocks are this host's), and the
// backlog (the server's orca_webhook_deliveries_pending) when the run ends;
// before the next run the backlog is let drain (up to DRAIN_MS). Prints the
// runs, the ratio with ÷ without (the goal: ≥ 0.9), and as the LAST
// line {"backend","webhook","without_pi_per_s","with_pi_per_s","ratio",
// "lag_p99_ms","backlog_max","errors","refused","cpu_us_without","cpu_us_with"}.
// Throughput ratios are noisy on a shared machine; so each run also counts
// the CPU each instance took (process-cpu.ts), from the run's start until
// its backlog drained (the deliveries it caused included): of the server,
// of the Postgres backends serving it (pg-redis), of the receiver and of
// this load generator. Speed is reported, never asserted.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { newSigningSecret, secretSealer } from '../api/webhooks/signing-secret.ts';
import { webhookEndpoints } from '../engine/store/schema.ts';
import { runLoad, summarise, type PhasePlan, type PhaseResult, type Summary } from './bench-e2e-load.ts';
import { startServer } from './bench-e2e-server.ts';
import type { E2eOptions, RunContext } from './bench-e2e.ts';
import { messageOf, servicesFromEnv } from './bench-engine-services.ts';
import { postgresCpuMs, processCpuMs } from './process-cpu.ts';

const RECEIVER = fileURLToPath(new URL('./bench-e2e-webhook-receiver.ts', import.meta.url));

/** How long a run's backlog may take to drain before the next run starts anyway. */
const DRAIN_MS = 30_000;

export type WebhookSide = 'without' | 'with';

export interface WebhookRun {
  round: number;
  side: WebhookSide;
  closed: PhaseResult;
  errors: number;
  /** Deliveries received from the run's start until its backlog drained. */
  received: number;
  /** webhook-ids received more than once (at-least-once delivery allows it; the engine's batch should not cause it). */
  duplicates: number;
  /** Event timestamp → receipt, ms. */
  lag: Summary;
  /** Pending deliveries when the run ended (NaN: metrics off). */
  backlogAtEnd: number;
  /** How long the backlog then took to drain, ms (NaN: it did not within DRAIN_MS). */
  drainMs: number;
  /** CPU µs per instance from the run's start until its backlog drained (warm-up included); null where it could not be read. */
  cpuUsPerInstance: CpuPerInstance;
}

export interface CpuPerInstance {
  server: number | null;
  postgres: number | null;
  receiver: number | null;
  client: number;
}

export interface WebhookComparison {
  options: E2eOptions;
  runs: WebhookRun[];
  mean: Record<WebhookSide, number>;
  /** with ÷ without. */
  ratio: number;
  errors: number;
  /** Deliveries the receiver refused for a bad signature (should be none). */
  refused: number;
}

export function webhookOrder(rounds: number): { round: number; side: WebhookSide }[] {
  const order: { round: number; side: WebhookSide }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const sides: WebhookSide[] = round % 2 === 1 ? ['without', 'with'] : ['with', 'without'];
    for (const side of sides) order.push({ round, side });
  }
  return order;
}

/** The receiver process (bench-e2e-webhook-receiver.ts). */
export interface BenchReceiver {
  url: string;
  pid: number;
  /** Deliveries refused for a bad signature so far. */
  refused(): Promise<number>;
  /** The deliveries noted so far, from the `from`th on. */
  deliveries(from?: number): Promise<{ id: string; receivedAt: number; lagMs: number }[]>;
  close(): Promise<void>;
}

/** Starts the receiver; with `secret` (a `whsec_…` signing secret) it checks every delivery's signature. */
export async function startBenchReceiver(secret?: string): Promise<BenchReceiver> {
  const child = spawn(process.execPath, ['--import', 'tsx', RECEIVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ORCA_BENCH_WEBHOOK_SECRET: secret ?? '' },
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const found = /listening (\d+)/.exec(text);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (code ${code}) before it listened`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/bench-webhooks`,
    pid: child.pid!,
    async refused() {
      return (await (await fetch(`${base}/refused`)).json()) as number;
    },
    async deliveries(from = 0) {
      const notes = (await (await fetch(`${base}/deliveries?from=${from}`)).json()) as [string, number, number | null][];
      // JSON has no NaN: a delivery without a timestamp comes back as null.
      return notes.map(([id, receivedAt, lagMs]) => ({ id, receivedAt, lagMs: lagMs ?? Number.NaN }));
    },
    async close() {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function runWebhookComparison(options: E2eOptions, context: RunContext = {}): Promise<WebhookComparison> {
  const rounds = options.rounds ?? 2;
  const services = options.backend === 'pg-redis' ? (context.services ?? servicesFromEnv()) : undefined;
  const secret = newSigningSecret();
  const receiver = await startBenchReceiver(secret);
  // The server's Postgres connections carry this name, so their backends' CPU can be told from a neighbour's.
  const appName = `orca-bench-webhook-${process.pid}`;
  let subscribed: { account: string; apiKey: string } | undefined;
  const server = await startServer({
    backend: options.backend,
    services,
    partitions: options.partitions,
    scratch: context.scratch,
    nodeFlags: options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`],
    env: { ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'on', ORCA_WEBHOOK_DISPATCHER: 'on', ORCA_METRICS: 'on', ORCA_DB_APPLICATION_NAME: appName },
    async setup(database, account) {
      subscribed = await account();
      await database.db.insert(webhookEndpoints).values({
        id: `ep_bench_${randomBytes(6).toString('hex')}`,
        account: subscribed.account,
        url: receiver.url,
        events: ['process_instance.completed'],
        // The server runs without ORCA_WEBHOOK_SECRET_KEY: stored plainly.
        secret: secretSealer().seal(secret),
        batching: options.webhookBatching ?? null,
      });
    },
  });
  context.onServer?.({ pid: server.pid, location: server.location });
  const postgresCpu = () => (services === undefined ? Promise.resolve(null) : postgresCpuMs(services.databaseUrl, appName));
  const plans: PhasePlan[] = [
    ...(options.warmupSeconds > 0 ? [{ name: 'warm-up', model: 'closed' as const, seconds: options.warmupSeconds, warmup: true }] : []),
    { name: 'closed', model: 'closed', seconds: options.seconds },
  ];
  const runs: WebhookRun[] = [];
  let finished = false;
  let refused = 0;
  try {
    for (const { round, side } of webhookOrder(rounds)) {
      const apiKey = side === 'with' ? subscribed!.apiKey : server.apiKey;
      const from = (await receiver.deliveries()).length;
      const [serverBefore, postgresBefore, receiverBefore, clientBefore] = [
        processCpuMs(server.pid),
        await postgresCpu(),
        processCpuMs(receiver.pid),
        process.cpuUsage(),
      ];
      const load = await runLoad(server.baseUrl, apiKey, options.load, plans, context.signal);
      const backlogAtEnd = await pendingDeliveries(server.baseUrl);
      const drainStarted = performance.now();
      let backlog = backlogAtEnd;
      while (backlog > 0 && performance.now() - drainStarted <= DRAIN_MS) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        backlog = await pendingDeliveries(server.baseUrl);
      }
      const drainMs = backlog > 0 ? Number.NaN : performance.now() - drainStarted;
      const [serverAfter, postgresAfter, receiverAfter, client] = [
        processCpuMs(server.pid),
        await postgresCpu(),
        processCpuMs(receiver.pid),
        process.cpuUsage(clientBefore),
      ];
      const perInstance = (before: number | null, after: number | null) =>
        before === null || after === null ? null : ((after - before) * 1000) / load.counted;
      const got = await receiver.deliveries(from);
      const ids = new Set(got.map((d) => d.id));
      runs.push({
        round,
        side,
        closed: load.phases.find((p) => p.name === 'closed')!,
        errors: load.errors,
        received: got.length,
        duplicates: got.length - ids.size,
        lag: summarise(got.map((d) => d.lagMs).filter((lag) => !Number.isNaN(lag))),
        backlogAtEnd,
        drainMs,
        cpuUsPerInstance: {
          server: perInstance(serverBefore, serverAfter),
          postgres: perInstance(postgresBefore, postgresAfter),
          receiver: perInstance(receiverBefore, receiverAfter),
          client: (client.user + client.system) / load.counted,
        },
      });
    }
    refused = await receiver.refused();
    finished = true;
  } catch (err) {
    if (err instanceof Error && !server.alive()) err.message += `\nthe Orca server exited during the run:\n${server.output()}`;
    throw err;
  } finally {
    const stopped = server.stop();
    if (!finished) await stopped.catch((err: unknown) => console.error(`bench:e2e: ${messageOf(err)}`));
    else await stopped;
    await receiver.close();
  }
  const meanOf = (side: WebhookSide) => {
    const figures = runs.filter((r) => r.side === side).map((r) => r.closed.perSecond);
    return figures.reduce((a, b) => a + b, 0) / figures.length;
  };
  const mean = { without: meanOf('without'), with: meanOf('with') };
  return { options, runs, mean, ratio: mean.with / mean.without, errors: runs.reduce((sum, r) => sum + r.errors, 0), refused };
}

const CPU_PARTS = ['server', 'postgres', 'receiver', 'client'] as const;

/** The side's CPU per instance, each part the mean of its runs (null if any run could not read it), and their total. */
export function meanCpu(runs: readonly WebhookRun[], side: WebhookSide): CpuPerInstance & { total: number } {
  const mine = runs.filter((r) => r.side === side).map((r) => r.cpuUsPerInstance);
  const mean = (part: (typeof CPU_PARTS)[number]) =>
    mine.length === 0 || mine.some((c) => c[part] === null) ? null : mine.reduce((sum, c) => sum + c[part]!, 0) / mine.length;
  const [server, postgres, receiver, client] = CPU_PARTS.map(mean);
  return { server, postgres, receiver, client: client ?? 0, total: [server, postgres, receiver, client].reduce<number>((sum, v) => sum + (v ?? 0), 0) };
}

/** The server's webhook backlog from /metrics (orca_webhook_deliveries_pending); NaN when it serves none. */
export async function pendingDeliveries(baseUrl: string): Promise<number> {
  const response = await fetch(`${baseUrl}/metrics`).catch(() => undefined);
  if (response === undefined || !response.ok) return Number.NaN;
  const line = (await response.text()).split('\n').find((l) => l.startsWith('orca_webhook_deliveries_pending '));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

export function formatWebhookComparison(result: WebhookComparison): string {
  const { options, runs, mean, ratio } = result;
  const ms = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(1)} ms`);
  const withRuns = runs.filter((r) => r.side === 'with');
  const lag = summarise(withRuns.flatMap((r) => (r.lag.samples > 0 ? [r.lag.p99] : [])));
  const received = withRuns.reduce((sum, r) => sum + r.received, 0);
  const backlogMax = Math.max(...withRuns.map((r) => r.backlogAtEnd));
  const us = (value: number | null) => (value === null ? '—' : value.toFixed(0));
  const cpu = { without: meanCpu(runs, 'without'), with: meanCpu(runs, 'with') };
  const cpuText = (c: CpuPerInstance & { total: number }) =>
    `${c.total.toFixed(0)} µs (server ${us(c.server)}, Postgres ${us(c.postgres)}, receiver ${us(c.receiver)}, load generator ${us(c.client)})`;
  return [
    '| round | webhook | instances/s | start→complete p99 | deliveries | duplicates | lag p50 | lag p99 | lag max | backlog at end | drained in | CPU µs / instance: server | Postgres | receiver | load generator | errors |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.round} | ${r.side} | ${Math.round(r.closed.perSecond)} | ${ms(r.closed.startToComplete.p99)} | ${r.received} | ${r.duplicates} | ` +
        `${ms(r.lag.p50)} | ${ms(r.lag.p99)} | ${ms(r.lag.max)} | ${r.backlogAtEnd} | ${ms(r.drainMs)} | ` +
        `${us(r.cpuUsPerInstance.server)} | ${us(r.cpuUsPerInstance.postgres)} | ${us(r.cpuUsPerInstance.receiver)} | ${us(r.cpuUsPerInstance.client)} | ${r.errors} |`,
    ),
    '',
    `Closed model, ${options.load.concurrency} starters for ${options.seconds} s per run (warm-up ${options.warmupSeconds} s), ${options.load.workers} workers, ` +
      `${options.partitions} partitions, ${options.backend}; one server for all runs, the order alternating by round. "with": the account has an endpoint ` +
      'subscribed to process_instance.completed on a loopback receiver in a process of its own that checks every signature ' +
      (options.webhookBatching === undefined
        ? '(one event per request; '
        : `(batched delivery: up to ${options.webhookBatching.maxEvents} events per request, waiting up to ${options.webhookBatching.maxWaitMs} ms; `) +
      `${result.refused} refused); lag: the event timestamp → receipt.`,
    `Mean instances/s: without ${mean.without.toFixed(1)}, with ${mean.with.toFixed(1)}; with ÷ without = ${ratio.toFixed(3)} (goal ≥ 0.9).` +
      (received === 0 ? ' No delivery arrived: this server writes no process_instance.completed events.' : ''),
    `Mean CPU per instance (run start → backlog drained): without ${cpuText(cpu.without)}; with ${cpuText(cpu.with)}; ` +
      `the webhook adds ${(cpu.with.total - cpu.without.total).toFixed(0)} µs (with ÷ without = ${(cpu.with.total / cpu.without.total).toFixed(3)}).`,
    '',
    JSON.stringify({
      backend: options.backend,
      webhook: true,
      batching: options.webhookBatching ?? null,
      without_pi_per_s: Math.round(mean.without),
      with_pi_per_s: Math.round(mean.with),
      ratio: Number(ratio.toFixed(3)),
      lag_p99_ms: lag.samples === 0 ? null : Math.round(lag.max),
      backlog_max: Number.isNaN(backlogMax) ? null : backlogMax,
      errors: result.errors,
      refused: result.refused,
      cpu_us_without: Math.round(cpu.without.total),
      cpu_us_with: Math.round(cpu.with.total),
    }),
  ].join('\n');
}
