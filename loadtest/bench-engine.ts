// `npm run bench:engine`: the durable engine end to end on real PostgreSQL and
// Redis (no HTTP, one process) against BullMQ on the same Redis. Orca runs
// one-task instances through createEngine for a warm-up and then a timed
// window; BullMQ then processes as many bare jobs as Orca completed in that
// window. Prints a markdown table, a few detail lines, and as the LAST line
// the JSON a script reads: {"orca_pi_per_s","bullmq_jobs_per_s","ratio","p99_ms"}.
// Flags: --seconds=N (timed window, default 10), --warmup=N (default a
// quarter of it, at most 2), --partitions=N, --concurrency=N (instances in
// flight), --workers=N. DATABASE_URL / REDIS_URL choose the services (default
// the local ones); unreachable services stop the run before it starts. Each
// run uses its own schema and key prefixes and removes them, also on failure.
// Speed is reported, never asserted; a failed correctness check exits 1.
// --messages runs the message-correlation scenario instead (start → wait on
// a message → publish → end, bench-engine-messages.ts), with its own table
// and last line {"message_pi_per_s","p99_ms"}; --signals the same with a
// signal broadcast instead of a publish (last line {"signal_pi_per_s",
// "p99_ms"}); --concurrency and --partitions apply to both. --cases runs
// bench:core's case scenario durably (CMMN: a stage, two human tasks, a
// milestone; bench-engine-cases.ts), last line
// {"case_per_s","p99_ms","cpu_us_per_case"}; --concurrency, --partitions
// and --workers apply to it.
import { pathToFileURL } from 'node:url';
import { runBullmq } from './bench-engine-bullmq.ts';
import { formatCaseReport, runCaseScenario } from './bench-engine-cases.ts';
import { formatMessageReport, runMessageScenario } from './bench-engine-messages.ts';
import { DEFAULT_ORCA_SETTINGS, runOrcaEngine } from './bench-engine-orca.ts';
import type { BullmqRun, LatencySummary, OrcaRun, OrcaSettings } from './bench-engine-run.ts';
import {
  checkServices,
  describeUrl,
  messageOf,
  newScratch,
  removeScratch,
  servicesFromEnv,
  ServicesUnavailable,
  type Scratch,
  type Services,
} from './bench-engine-services.ts';

export interface EngineBenchOptions {
  seconds: number;
  warmupSeconds: number;
  settings: OrcaSettings;
  /** The message-correlation scenario instead of the Orca/BullMQ comparison. */
  messages?: boolean;
  /** The signal-broadcast scenario instead (extension). */
  signals?: boolean;
  /** The case scenario (CMMN) instead. */
  cases?: boolean;
}

export interface EngineBenchResult {
  services: Services;
  orca: OrcaRun;
  bullmq: BullmqRun;
}

/** The last line's shape; keys in this order. */
export interface EngineResultLine {
  orca_pi_per_s: number;
  bullmq_jobs_per_s: number;
  ratio: number;
  p99_ms: number;
}

const USAGE = 'Usage: bench-engine [--seconds=N] [--warmup=N] [--partitions=N] [--concurrency=N] [--workers=N] [--messages | --signals | --cases]';

export function parseArgs(argv: string[]): EngineBenchOptions {
  let seconds = 10;
  let warmupSeconds: number | undefined;
  const settings: OrcaSettings = { ...DEFAULT_ORCA_SETTINGS };
  let messages = false;
  let signals = false;
  let cases = false;
  const whole = (value: number) => Number.isInteger(value) && value >= 1;
  for (const arg of argv) {
    const [flag, text] = arg.split('=', 2);
    const value = text === undefined || text === '' ? Number.NaN : Number(text);
    if (arg === '--messages') messages = true;
    else if (arg === '--signals') signals = true;
    else if (arg === '--cases') cases = true;
    else if (flag === '--seconds' && value > 0) seconds = value;
    else if (flag === '--warmup' && value >= 0) warmupSeconds = value;
    else if (flag === '--partitions' && whole(value) && value <= 256) settings.partitions = value;
    else if (flag === '--concurrency' && whole(value)) settings.concurrency = value;
    else if (flag === '--workers' && whole(value)) settings.workers = value;
    else throw new Error(`Unknown or malformed argument '${arg}'. ${USAGE}`);
  }
  if ([messages, signals, cases].filter(Boolean).length > 1) throw new Error(`--messages, --signals and --cases are three scenarios; pick one. ${USAGE}`);
  return {
    seconds,
    warmupSeconds: warmupSeconds ?? Math.min(2, seconds / 4),
    settings,
    ...(messages ? { messages } : {}),
    ...(signals ? { signals } : {}),
    ...(cases ? { cases } : {}),
  };
}

export interface RunContext {
  /** Ends the run early; it then throws after cleaning up. */
  signal?: AbortSignal;
  /** Default: DATABASE_URL / REDIS_URL, else the local services. */
  services?: Services;
  /** Default: fresh random names (tests pass their own to check the cleanup). */
  scratch?: Scratch;
}

export async function runEngineBenchmark(options: EngineBenchOptions, context: RunContext = {}): Promise<EngineBenchResult> {
  const { signal, services = servicesFromEnv(), scratch = newScratch() } = context;
  await checkServices(services);
  let outcome: EngineBenchResult | undefined;
  try {
    const orca = await runOrcaEngine({ services, scratch, seconds: options.seconds, warmupSeconds: options.warmupSeconds, settings: options.settings, signal });
    // The same amount of work as Orca's rate is built on.
    const bullmq = await runBullmq({ services, scratch, jobs: orca.completedInWindow, signal });
    outcome = { services, orca, bullmq };
  } finally {
    // A cleanup failure must not hide the run's own error, but must not pass silently after a good run either.
    const cleanup = removeScratch(services, scratch);
    if (outcome === undefined) await cleanup.catch((err: unknown) => console.error(`bench:engine: ${messageOf(err)}`));
    else await cleanup;
  }
  return outcome;
}

/** The message-correlation scenario, on its own scratch schema and prefixes (removed afterwards, also on failure). */
export async function runMessages(options: EngineBenchOptions, signal?: AbortSignal, services = servicesFromEnv(), scratch = newScratch()) {
  await checkServices(services);
  try {
    return await runMessageScenario({
      services,
      scratch,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      partitions: options.settings.partitions,
      concurrency: options.settings.concurrency,
      signal,
      event: options.signals ? 'signal' : 'message',
    });
  } finally {
    await removeScratch(services, scratch).catch((err: unknown) => console.error(`bench:engine: ${messageOf(err)}`));
  }
}

/** The case scenario (CMMN), on its own scratch schema and prefixes (removed afterwards, also on failure). */
export async function runCases(options: EngineBenchOptions, signal?: AbortSignal, services = servicesFromEnv(), scratch = newScratch()) {
  await checkServices(services);
  try {
    return await runCaseScenario({
      services,
      scratch,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      partitions: options.settings.partitions,
      concurrency: options.settings.concurrency,
      workers: options.settings.workers,
      signal,
    });
  } finally {
    await removeScratch(services, scratch).catch((err: unknown) => console.error(`bench:engine: ${messageOf(err)}`));
  }
}

export function resultLine(result: EngineBenchResult): EngineResultLine {
  return {
    orca_pi_per_s: Math.round(result.orca.perSecond),
    bullmq_jobs_per_s: Math.round(result.bullmq.perSecond),
    // Two decimals: at one, 0.45 would read as the 0.5 goal met.
    ratio: Math.round((result.orca.perSecond / result.bullmq.perSecond) * 100) / 100,
    p99_ms: Math.round(result.orca.latency.p99),
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const spread = (l: LatencySummary) => `p50 ${ms(l.p50)}, p99 ${ms(l.p99)}, max ${ms(l.max)}`;

export function formatEngineReport(result: EngineBenchResult): string {
  const { orca, bullmq, services } = result;
  const s = orca.settings;
  const line = resultLine(result);
  return [
    '| engine | rate | p50 | p99 |',
    '|---|---:|---:|---:|',
    `| Orca (createEngine, ${s.partitions} partitions, ${s.concurrency} in flight, ${s.workers} workers × ${s.activateMax}) | ${line.orca_pi_per_s} PI/s | ${ms(orca.latency.p50)} | ${ms(orca.latency.p99)} |`,
    `| BullMQ (addBulk, then Worker concurrency ${bullmq.concurrency}) | ${line.bullmq_jobs_per_s} jobs/s | — | — |`,
    '',
    `Services: PostgreSQL ${describeUrl(services.databaseUrl)}, Redis ${describeUrl(services.redisUrl)}.`,
    `Orca: ${orca.completedInWindow} instances completed in the ${orca.windowSeconds.toFixed(1)} s window; ` +
      `${orca.started} started in all (warm-up and drain included), each completed and COMPLETED in Postgres (${orca.verifiedCompleted} verified).`,
    `Orca latency start → job completed: ${spread(orca.latency)} over ${orca.latency.samples} instances started in the window.`,
    `Orca calls: startInstance ${spread(orca.startCall)}; completeJob ${spread(orca.completeCall)}.`,
    `Orca CPU of this process in the window: ${Math.round(orca.cpuPerInstanceUs)} µs per instance (${((orca.cpuPerInstanceUs * orca.perSecond) / 1e6).toFixed(2)} cores).`,
    `BullMQ: ${bullmq.jobs} jobs from first add to last completion in ${bullmq.seconds.toFixed(2)} s (added in ${bullmq.addSeconds.toFixed(2)} s, then processed in ${bullmq.processSeconds.toFixed(2)} s); each processed once, none left.`,
    '',
    JSON.stringify(line),
  ].join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const controller = new AbortController();
  // Ctrl-C ends the run through its normal cleanup (schema dropped, keys deleted).
  process.once('SIGINT', () => controller.abort());
  if (options.messages || options.signals) {
    console.log(formatMessageReport(await runMessages(options, controller.signal)));
    return;
  }
  if (options.cases) {
    console.log(formatCaseReport(await runCases(options, controller.signal)));
    return;
  }
  console.log(formatEngineReport(await runEngineBenchmark(options, { signal: controller.signal })));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    // Open handles (a reconnecting client) must not keep a finished run alive.
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof ServicesUnavailable ? err.message : `bench:engine failed: ${messageOf(err)}`);
      process.exit(1);
    },
  );
}
