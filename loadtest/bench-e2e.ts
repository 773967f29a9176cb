// `npm run bench:e2e`: Orca end to end over HTTP, the scenarios of the k6
// scripts in loadtest/k6 but runnable here. It starts Orca as a child process
// (embedded by default; --backend=pg-redis on DATABASE_URL / REDIS_URL with
// its own schema and key prefix), creates an account and key through the
// app's identity service, deploys start → service task → end, and drives it
// with undici: a warm-up, an open model (--rate instances/s for --seconds),
// then a closed model (--concurrency starters each waiting for its instance:
// the maximum throughput), while --workers workers activate up to 32 jobs per
// call. Prints a markdown table, detail lines, and as the LAST line
// {"backend","max_pi_per_s","p99_ms_at_200","activation_p99_ms","errors"}.
// Flags: see USAGE and parseArgs; --cpu-prof=DIR makes the server child
// write a V8 CPU profile there (summarise it with loadtest/cpu-profile-top.ts).
// --workers=library runs the client library's createWorker instead of the
// hand-written loop; --compare-workers runs the closed model with each in
// turn (loop, library, library, loop … for --rounds rounds) against one
// server and prints the throughput ratio (bench-e2e-compare.ts);
// --webhook runs the closed model for two accounts in turn, one with a
// webhook endpoint subscribed to process_instance.completed on a loopback
// receiver, and prints the throughput ratio, the delivery lag and backlog
// (bench-e2e-webhook.ts).
// --loop-keys has the loop send an Idempotency-Key on each completion as the
// library does, which separates the library's own cost from the key's.
// --telemetry=off|on runs the server with ORCA_METRICS so; --telemetry=metrics
// runs it --rounds times with metrics off and on alternately and prints the
// ratio, --telemetry=traces likewise with traces off and on (exported at
// 10 % sampling to a loopback OTLP sink) (bench-e2e-telemetry.ts). Without
// the flag the server runs as configured by default (metrics on, traces as
// the OTEL_* variables of the bench's environment say); with it, traces
// are off unless the flag turns them on.
// Speed is reported, never asserted; a failed correctness check exits 1, and
// the server and its data are removed in every case.
import { pathToFileURL } from 'node:url';
import { runLoad, type LoadResult, type LoadSettings, type PhasePlan, type PhaseResult, type Summary } from './bench-e2e-load.ts';
import { formatComparison, runWorkerComparison } from './bench-e2e-compare.ts';
import { startFlushProbe, type FlushFigures } from './bench-e2e-flush-probe.ts';
import { startServer, type Backend, type ServerExit } from './bench-e2e-server.ts';
import { compareTelemetry, TRACE_SAMPLING } from './bench-e2e-telemetry.ts';
import { formatWebhookComparison, runWebhookComparison } from './bench-e2e-webhook.ts';
import { describeUrl, messageOf, ServicesUnavailable, servicesFromEnv, type Scratch, type Services } from './bench-engine-services.ts';

export interface E2eOptions {
  backend: Backend;
  seconds: number;
  warmupSeconds: number;
  partitions: number;
  load: LoadSettings;
  /** Directory for the server child's CPU profile; absent: no profile. */
  cpuProfDir?: string;
  /** Rounds of the loop-against-library comparison; absent: a normal run. */
  compareRounds?: number;
  /** Compare runs without and with a webhook endpoint subscribed (bench-e2e-webhook.ts), `rounds` rounds. */
  webhook?: boolean;
  /** The endpoint's batched delivery (--webhook-batching=MAX_EVENTS:MAX_WAIT_MS); absent: one event per request. */
  webhookBatching?: { maxEvents: number; maxWaitMs: number };
  /**
   * off / on: ORCA_METRICS for the server (no traces); traced: metrics off,
   * traces exported to `otlpUrl` at 10 % sampling; metrics / traces: compare
   * off and on, `rounds` runs each; absent: the server's default.
   */
  telemetry?: Telemetry;
  /** With telemetry=metrics or traces: how many runs of each (default 3). */
  rounds?: number;
  /** With telemetry=traced: the OTLP/HTTP traces URL (compareTelemetry's sink). */
  otlpUrl?: string;
}

export type Telemetry = 'off' | 'on' | 'traced' | 'metrics' | 'traces';

export interface E2eResult {
  options: E2eOptions;
  /** pg-redis: where the services were (no credentials). */
  services?: Services;
  server: { pid: number; location: string; exit: ServerExit };
  load: LoadResult;
  open: PhaseResult;
  closed: PhaseResult;
  /** pg-redis: what a durable commit waited for the disk during each phase (bench-e2e-flush-probe.ts). */
  flush?: { open: FlushFigures; closed: FlushFigures };
}

/** The last line's shape; keys in this order. */
export interface E2eResultLine {
  backend: Backend;
  max_pi_per_s: number;
  p99_ms_at_200: number;
  activation_p99_ms: number;
  errors: number;
}

// Defaults: embedded, 10 s per phase, 200/s, 256 starters, 4 workers, warm-up min(2, seconds/4) s,
// maxJobsToActivate 32, long polling 1000 ms (0: SPEC.md polling, a 1–5 s sleep on an empty answer),
// 1000 starts in flight at most in the open model (each on its own connection), 8 partitions.
const USAGE =
  'Usage: bench-e2e [--backend=embedded|pg-redis] [--seconds=N] [--rate=N] [--concurrency=N] [--workers=N] [--warmup=N] ' +
  '[--max-jobs=N] [--long-poll-ms=N] [--max-in-flight=N] [--partitions=N] [--cpu-prof=DIR] [--workers=loop|library] [--compare-workers] [--loop-keys] [--telemetry=off|on|metrics|traces] [--webhook] [--webhook-batching=MAX_EVENTS:MAX_WAIT_MS] [--rounds=N]';

export function parseArgs(argv: string[]): E2eOptions {
  let backend: Backend = 'embedded';
  let seconds = 10;
  let warmupSeconds: number | undefined;
  let partitions = 8;
  let cpuProfDir: string | undefined;
  let compare = false;
  let webhook = false;
  let webhookBatching: { maxEvents: number; maxWaitMs: number } | undefined;
  let telemetry: Telemetry | undefined;
  let rounds: number | undefined;
  // The closed model's 256 starters saturate the server (the maximum); fewer measure its latency instead.
  const load: LoadSettings = { rate: 200, concurrency: 256, workers: 4, maxJobs: 32, longPollMs: 1_000, maxInFlight: 1_000 };
  const whole = (value: number, max: number) => Number.isInteger(value) && value >= 1 && value <= max;
  for (const arg of argv) {
    const [flag, text] = arg.split('=', 2);
    const value = text === undefined || text === '' ? Number.NaN : Number(text);
    if (flag === '--backend' && (text === 'embedded' || text === 'pg-redis')) backend = text;
    else if (flag === '--seconds' && value > 0 && value <= 3_600) seconds = value;
    else if (flag === '--warmup' && value >= 0 && value <= 600) warmupSeconds = value;
    else if (flag === '--rate' && value > 0 && value <= 100_000) load.rate = value;
    else if (flag === '--concurrency' && whole(value, 10_000)) load.concurrency = value;
    else if (flag === '--workers' && whole(value, 1_000)) load.workers = value;
    else if ((flag === '--workers' || flag === '--worker-kind') && (text === 'loop' || text === 'library')) load.workerKind = text;
    else if (flag === '--compare-workers' && text === undefined) compare = true;
    else if (flag === '--webhook' && text === undefined) webhook = true;
    else if (flag === '--webhook-batching' && /^\d+:\d+$/.test(text ?? '')) {
      const [maxEvents, maxWaitMs] = text!.split(':').map(Number);
      if (!whole(maxEvents, 1_000) || maxWaitMs > 10_000) throw new Error(`--webhook-batching=MAX_EVENTS:MAX_WAIT_MS takes 1..1000 and 0..10000. ${USAGE}`);
      webhook = true;
      webhookBatching = { maxEvents, maxWaitMs };
    } else if (flag === '--loop-keys' && text === undefined) load.loopKeys = true;
    else if (flag === '--rounds' && whole(value, 100)) rounds = value;
    else if (flag === '--max-jobs' && whole(value, 1_000)) load.maxJobs = value;
    else if (flag === '--long-poll-ms' && Number.isInteger(value) && value >= 0 && value <= 60_000) load.longPollMs = value;
    else if (flag === '--max-in-flight' && whole(value, 100_000)) load.maxInFlight = value;
    else if (flag === '--partitions' && whole(value, 256)) partitions = value;
    else if (flag === '--cpu-prof' && text !== undefined && text !== '') cpuProfDir = text;
    else if (flag === '--telemetry' && (text === 'off' || text === 'on' || text === 'metrics' || text === 'traces')) telemetry = text;
    else throw new Error(`Unknown or malformed argument '${arg}'. ${USAGE}`);
  }
  return {
    backend,
    seconds,
    warmupSeconds: warmupSeconds ?? Math.min(2, seconds / 4),
    partitions,
    load,
    cpuProfDir,
    telemetry,
    rounds,
    ...(compare ? { compareRounds: rounds ?? 2 } : {}),
    ...(webhook ? { webhook } : {}),
    ...(webhookBatching ? { webhookBatching } : {}),
  };
}

/** The server's environment for `options.telemetry`: ORCA_METRICS, and the OTEL_* variables that turn traces on (traced) or off. */
export function serverTelemetry(options: E2eOptions): NodeJS.ProcessEnv {
  const { telemetry, otlpUrl } = options;
  if (telemetry === undefined) return {};
  if (telemetry !== 'traced') return { ORCA_METRICS: telemetry, OTEL_SDK_DISABLED: 'true' };
  if (otlpUrl === undefined) throw new Error('a traced run needs the OTLP URL to export to');
  return {
    ORCA_METRICS: 'off',
    OTEL_SDK_DISABLED: 'false',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(TRACE_SAMPLING),
  };
}

export function phasePlans(options: E2eOptions): PhasePlan[] {
  return [
    // Closed at the same concurrency: loads the code paths and the connection pool, counts nothing.
    ...(options.warmupSeconds > 0 ? [{ name: 'warm-up', model: 'closed' as const, seconds: options.warmupSeconds, warmup: true }] : []),
    { name: 'open', model: 'open', seconds: options.seconds },
    { name: 'closed', model: 'closed', seconds: options.seconds },
  ];
}

export interface RunContext {
  /** Ends the run early; it then throws after cleaning up. */
  signal?: AbortSignal;
  /** pg-redis: default DATABASE_URL / REDIS_URL, else the local services. */
  services?: Services;
  /** pg-redis: the schema and prefix to use (tests pass their own to check the cleanup). */
  scratch?: Scratch;
  /** Called with the server's pid once it is up (tests check it is gone afterwards). */
  onServer?: (server: { pid: number; location: string }) => void;
}

export async function runE2eBenchmark(options: E2eOptions, context: RunContext = {}): Promise<E2eResult> {
  const services = options.backend === 'pg-redis' ? (context.services ?? servicesFromEnv()) : undefined;
  const nodeFlags = options.cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`];
  if (options.telemetry === 'metrics' || options.telemetry === 'traces')
    throw new Error('runE2eBenchmark runs one server: compare telemetry with compareTelemetry');
  const env = serverTelemetry(options);
  const server = await startServer({ backend: options.backend, services, partitions: options.partitions, nodeFlags, scratch: context.scratch, env });
  context.onServer?.({ pid: server.pid, location: server.location });
  let load: LoadResult | undefined;
  let exit: ServerExit;
  let flush: E2eResult['flush'];
  try {
    const probe = services && server.schema !== undefined ? await startFlushProbe(services.databaseUrl, server.schema) : undefined;
    try {
      load = await runLoad(server.baseUrl, server.apiKey, options.load, phasePlans(options), context.signal, probe);
    } finally {
      // The probe's own failure must not hide the run's.
      const stopped = probe?.stop();
      if (load === undefined) await stopped?.catch(() => undefined);
      else await stopped;
    }
    const [open, closed] = [probe?.figures('open'), probe?.figures('closed')];
    if (open && closed) flush = { open, closed };
  } catch (err) {
    // What the server said is often the explanation.
    if (err instanceof Error && !server.alive()) err.message += `\nthe Orca server exited during the run:\n${server.output()}`;
    throw err;
  } finally {
    // A cleanup failure must not hide the run's own error, but must not pass silently after a good run either.
    const stopped = server.stop();
    if (load === undefined) await stopped.catch((err: unknown) => console.error(`bench:e2e: ${messageOf(err)}`));
    else exit = await stopped;
  }
  const open = load.phases.find((p) => p.name === 'open')!;
  const closed = load.phases.find((p) => p.name === 'closed')!;
  return { options, services, server: { pid: server.pid, location: server.location, exit: exit! }, load, open, closed, ...(flush ? { flush } : {}) };
}

export function resultLine(result: E2eResult): E2eResultLine {
  return {
    backend: result.options.backend,
    max_pi_per_s: Math.round(result.closed.perSecond),
    p99_ms_at_200: Math.round(result.open.startToComplete.p99),
    activation_p99_ms: Math.round(result.open.activation.p99),
    errors: result.load.errors,
  };
}

// What the figures mean (the report states it too):
//   instances/s     completions acknowledged inside the phase's window ÷ the window;
//   start→complete  start request sent → job completion acknowledged (204);
//   activation      job created → the activation response that handed the job to a
//                   worker. "Created" is the instance's createdAt from the API: the job
//                   row is written in the same transaction, whose start time it is. That
//                   compares the server's clock with ours, sound because both run on this
//                   host (with a remote DATABASE_URL, skew adds to it). Not the start
//                   response: the leader queues the job before it replies, so many jobs
//                   reach a worker before their start is answered;
//   errors          non-2xx answers, transport failures and request timeouts, plus
//                   instances not completed 30 s after their phase ended.
const ms = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(1)} ms`);
const spread = (s: Summary) => `p50 ${ms(s.p50)}, p95 ${ms(s.p95)}, p99 ${ms(s.p99)}, max ${ms(s.max)} (${s.samples})`;

export function formatE2eReport(result: E2eResult): string {
  const { options, load, open, closed, services, server } = result;
  const s = options.load;
  const phaseRow = (p: PhaseResult, label: string, what: string) =>
    `| ${label} | ${what} | ${Math.round(p.perSecond)} | ${ms(p.startToComplete.p50)} | ${ms(p.startToComplete.p95)} | ${ms(p.startToComplete.p99)} | ${ms(p.activation.p99)} | ${p.errors} |`;
  const where =
    options.backend === 'embedded'
      ? `embedded (PGlite in ${server.location}, in-process queues)`
      : `pg-redis (PostgreSQL ${describeUrl(services!.databaseUrl)}, Redis ${describeUrl(services!.redisUrl)}; ${server.location})`;
  const errorKinds = Object.entries(load.errorsByKind).map(([kind, n]) => `${kind} ×${n}`);
  return [
    '| model | load | instances/s | start→complete p50 | p95 | p99 | activation p99 | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    phaseRow(open, 'open (constant arrival rate)', `${s.rate}/s for ${options.seconds} s`),
    phaseRow(closed, 'closed (maximum throughput)', `${s.concurrency} starters for ${options.seconds} s`),
    '',
    `Server: \`node bin/orca.js start\` (pid ${server.pid}), ${options.partitions} partitions, ${where}, rate limit off; ` +
      `exit code ${server.exit.code}${server.exit.killed ? ' (killed after the grace period)' : ''}.`,
    `Client: undici in this process; ${s.workers} ${s.workerKind === 'library' ? 'client-library workers (createWorker)' : 'hand-written worker loops'} × maxJobsToActivate ${s.maxJobs}, ` +
      `${s.longPollMs > 0 ? `long polling (requestTimeout ${s.longPollMs} ms)` : 'polling with a 1–5 s sleep on an empty answer'}; ` +
      `${load.activations} activations, ${load.emptyActivations} empty.`,
    ...[open, closed].map(
      (p) =>
        `${p.name}: ${p.started} started, ${p.completed} completed (${p.completedInWindow} inside the ${p.windowSeconds} s window), ${p.incomplete} incomplete; ` +
        `start→complete ${spread(p.startToComplete)}; activation ${spread(p.activation)}, ${p.activatedBeforeStartAnswered} handed out before the start was answered; ` +
        `start call ${spread(p.startCall)}; complete call ${spread(p.completeCall)}` +
        (p.model === 'open'
          ? `; ${p.dropped} arrivals dropped (over ${s.maxInFlight} starts in flight), latest send ${ms(p.maxSendLagMs)} behind schedule`
          : '') +
        `; load generator CPU ${Math.round(p.clientCpuPercent)} % of a core.`,
    ),
    `Verified: ${load.verified} of ${load.counted} instances counted as completed (warm-up included) are COMPLETED over GET /api/v1/process-instances.` +
      (load.unmatchedJobs > 0 ? ` ${load.unmatchedJobs} jobs belonged to starts whose answer was lost.` : ''),
    `Errors: ${load.errors}${errorKinds.length > 0 ? ` (${errorKinds.join(', ')})` : ''}.`,
    ...(result.flush
      ? [
          'Postgres flush probe (a one-row insert committed every 50 ms on a connection of its own: what the disk made any durable commit wait): ' +
            (['open', 'closed'] as const)
              .map((name) => `${name} ${spread(result.flush![name].commit)}, ${result.flush![name].checkpoints} checkpoints begun`)
              .join('; ') +
            '.',
        ]
      : []),
    'instances/s: completions acknowledged inside the window ÷ window. start→complete: start request sent → job completion acknowledged. ' +
      "activation: the instance's createdAt from the API (the job is written in the same transaction) → activation response that handed the job out. " +
      'errors: non-2xx, transport failures, request timeouts, and instances not completed 30 s after their phase.',
    '',
    JSON.stringify(resultLine(result)),
  ].join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const controller = new AbortController();
  // Ctrl-C (or a kill) ends the run through its normal cleanup (server stopped, data removed);
  // dying of the signal instead would leave the server child running.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => controller.abort());
  const context = { signal: controller.signal };
  if (options.compareRounds !== undefined) console.log(formatComparison(await runWorkerComparison(options, context)));
  else if (options.webhook) console.log(formatWebhookComparison(await runWebhookComparison(options, context)));
  else if (options.telemetry === 'metrics' || options.telemetry === 'traces')
    console.log(await compareTelemetry(options, async (run) => resultLine(await runE2eBenchmark(run, context))));
  else console.log(formatE2eReport(await runE2eBenchmark(options, context)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    // Open handles (a keep-alive socket) must not keep a finished run alive.
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof ServicesUnavailable ? err.message : `bench:e2e failed: ${messageOf(err)}`);
      process.exit(1);
    },
  );
}
