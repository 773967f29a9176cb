// `npm run fuzz`: an OpenAPI-driven fuzzer for Orca's HTTP API. It starts
// Orca as a child process on loopback (embedded by default; --backend=
// pg-redis on DATABASE_URL / REDIS_URL with its own schema and key prefix,
// removed afterwards) or targets --url, reads the served OpenAPI document,
// prepares an account with deployed models and live instances, then sends
// --requests generated requests (valid ones and mutations, see
// mutations.ts) with --concurrency at a time for at most --seconds. A
// partition canary (canary.ts) runs before, every --canary-every seconds
// during, and after the run. Exit 0: nothing found; 1: findings, each
// printed once with its request; 2: the run itself could not be done.
// Usage and what counts as a finding: docs/fuzz.md.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, type Backend, type OrcaServer } from '../bench-e2e-server.ts';
import { messageOf, servicesFromEnv } from '../bench-engine-services.ts';
import { MailSink, signUp } from './accounts.ts';
import { runCanary } from './canary.ts';
import { MUTATION_KINDS } from './mutations.ts';
import { formatFinding, formatStall, formatSummary, resultLine, type CanaryLog } from './report.ts';
import { Findings, runFuzz, type RunOutcome } from './runner.ts';
import { prepare, readOperations } from './setup.ts';

export interface FuzzOptions {
  requests: number;
  seconds: number;
  seed: number;
  concurrency: number;
  backend: Backend;
  url?: string;
  apiKey?: string;
  smtpPort?: number;
  partitions: number;
  timeoutMs: number;
  canaryEverySeconds: number;
  canaryMs: number;
  only?: string;
  findingsDir?: string;
}

const USAGE =
  'Usage: npm run fuzz -- [--requests=15000] [--seconds=300] [--seed=N] [--concurrency=8] [--backend=embedded|pg-redis] ' +
  '[--url=http://127.0.0.1:PORT [--api-key=KEY] [--smtp-port=N]] [--partitions=8] [--timeout-ms=15000] ' +
  '[--canary-every=20] [--canary-ms=5000] [--only=MUTATION] [--findings-dir=DIR]';

export function parseArgs(argv: string[]): FuzzOptions {
  const options: FuzzOptions = {
    requests: 15_000,
    seconds: 300,
    seed: randomBytes(4).readUInt32BE(0),
    concurrency: 8,
    backend: 'embedded',
    partitions: 8,
    timeoutMs: 15_000,
    canaryEverySeconds: 20,
    canaryMs: 5_000,
  };
  const whole = (text: string | undefined, min: number, max: number) => {
    const n = Number(text);
    return text !== undefined && text !== '' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
  };
  for (const arg of argv) {
    const at = arg.indexOf('=');
    const [flag, text] = at < 0 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
    let ok = true;
    const set = <K extends keyof FuzzOptions>(key: K, value: FuzzOptions[K] | undefined) => (value === undefined ? (ok = false) : (options[key] = value));
    if (flag === '--requests') set('requests', whole(text, 1, 10_000_000));
    else if (flag === '--seconds') set('seconds', whole(text, 1, 86_400));
    else if (flag === '--seed') set('seed', whole(text, 0, 2 ** 32 - 1));
    // Above 64 at once, a partition's queue of pending commands could fill for real and its 503s would be deliberate.
    else if (flag === '--concurrency') set('concurrency', whole(text, 1, 64));
    else if (flag === '--backend') set('backend', text === 'embedded' || text === 'pg-redis' ? text : undefined);
    else if (flag === '--url') set('url', text !== undefined && isLoopback(text) ? text.replace(/\/+$/, '') : undefined);
    else if (flag === '--api-key') set('apiKey', text || undefined);
    else if (flag === '--smtp-port') set('smtpPort', whole(text, 1, 65_535));
    else if (flag === '--partitions') set('partitions', whole(text, 1, 256));
    else if (flag === '--timeout-ms') set('timeoutMs', whole(text, 100, 600_000));
    else if (flag === '--canary-every') set('canaryEverySeconds', whole(text, 1, 3_600));
    else if (flag === '--canary-ms') set('canaryMs', whole(text, 100, 600_000));
    else if (flag === '--only') set('only', text !== undefined && MUTATION_KINDS.includes(text) ? text : undefined);
    else if (flag === '--findings-dir') set('findingsDir', text || undefined);
    else ok = false;
    if (!ok)
      throw new Error(`Unknown or malformed argument '${arg}' (--url must be a loopback address; --only one of ${MUTATION_KINDS.join(', ')}).\n${USAGE}`);
  }
  if (options.url !== undefined && options.apiKey === undefined && options.smtpPort === undefined) {
    throw new Error(`--url needs --api-key, or --smtp-port with the server's SMTP_URL pointing at smtp://127.0.0.1:<that port>.\n${USAGE}`);
  }
  return options;
}

function isLoopback(url: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

const log = (line: string) => process.stderr.write(`fuzz: ${line}\n`);

export async function main(argv: string[]): Promise<number> {
  let options: FuzzOptions;
  try {
    options = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${messageOf(err)}\n`);
    return 2;
  }
  const findingsDir = options.findingsDir ?? mkdtempSync(path.join(tmpdir(), 'orca-fuzz-'));
  const sink = options.url === undefined || options.smtpPort !== undefined ? await MailSink.start(options.smtpPort ?? 0) : undefined;
  let server: OrcaServer | undefined;
  try {
    let baseUrl: string;
    let apiKey: string;
    if (options.url === undefined) {
      log(`starting Orca (${options.backend}, ${options.partitions} partitions)`);
      server = await startServer({
        backend: options.backend,
        services: options.backend === 'pg-redis' ? servicesFromEnv() : undefined,
        partitions: options.partitions,
        // Mail to the sink; the rate limit back at its default (the benchmark turns it off).
        env: { SMTP_URL: sink!.url, ORCA_RATE_LIMIT_PER_SECOND: '' },
      });
      baseUrl = server.baseUrl;
      apiKey = server.apiKey;
      log(`Orca is up at ${baseUrl} (pid ${server.pid}; ${server.location})`);
    } else {
      baseUrl = options.url;
      apiKey = options.apiKey ?? (await signUp(baseUrl, sink!, `fuzz-${randomBytes(4).toString('hex')}@example.com`));
    }
    const operations = await readOperations(baseUrl);
    const ctx = await prepare(baseUrl, apiKey);
    log(`${operations.length} operations; seed ${options.seed}; findings go to ${findingsDir}`);

    const findings = new Findings();
    const canaries: CanaryLog[] = [];
    let fuzzStart = performance.now();
    let canaryRuns = 0;
    const canary = async () => {
      const run = ++canaryRuns;
      const at = canaryRuns === 1 ? -1 : (performance.now() - fuzzStart) / 1000;
      try {
        const key = sink ? await signUp(baseUrl, sink, `fuzz-canary-${run}-${randomBytes(4).toString('hex')}@example.com`) : ctx.credentials.key;
        const result = await runCanary({ baseUrl, apiKey: key, partitions: options.partitions, boundMs: options.canaryMs, run });
        for (const [partition, check] of result.partitions) {
          if (!check.ok)
            findings.add(`canary partition ${partition}`, 'partition stopped answering', 'canary', `${check.problem} (${Math.round(check.ms)} ms)`);
        }
        if (result.problem !== undefined) findings.add('canary', 'canary failed', 'canary', result.problem);
        const failed = [...result.partitions].filter(([, c]) => !c.ok).map(([p, c]) => `partition ${p}: ${c.problem}`);
        const slowest = Math.max(0, ...[...result.partitions.values()].map((c) => c.ms));
        const summary =
          `${result.partitions.size} partitions checked, slowest ${Math.round(slowest)} ms` +
          (result.unreached.length > 0 ? `; no start landed on ${result.unreached.join(', ')}` : '') +
          (failed.length > 0 ? `; ${failed.join('; ')}` : '') +
          (result.problem ? `; ${result.problem}` : '');
        canaries.push({ at, ok: result.ok, summary });
        log(`canary ${at < 0 ? 'before' : `at ${at.toFixed(0)} s`}: ${result.ok ? 'ok' : 'FAILED'}: ${summary}`);
        return result.ok;
      } catch (err) {
        findings.add('canary', 'canary failed', 'canary', messageOf(err));
        canaries.push({ at, ok: false, summary: messageOf(err) });
        log(`canary failed: ${messageOf(err)}`);
        return false;
      }
    };

    if (!(await canary())) {
      log('the partition canary failed before any fuzzing: the server is not healthy to begin with');
      return 2;
    }
    fuzzStart = performance.now();
    const alive = () => server === undefined || server.alive();
    const running = runFuzz({ baseUrl, operations, ctx, findings, alive, ...options });
    let outcome: RunOutcome | undefined;
    void running.then(
      (o) => (outcome = o),
      () => undefined,
    );
    while (outcome === undefined) {
      const wake = new Promise((resolve) => setTimeout(resolve, options.canaryEverySeconds * 1000));
      await Promise.race([running.catch(() => undefined), wake]);
      if (outcome !== undefined || !alive()) break;
      log(`${findings.size} findings so far`);
      await canary();
    }
    const result = await running;
    if (alive()) await canary();

    if (server !== undefined && !server.alive()) log(`the Orca server exited; its last output:\n${server.output()}`);
    const listed = [...findings.byKey.values()];
    listed.forEach((finding, i) => process.stdout.write(`${formatFinding(i + 1, finding, findingsDir)}\n\n`));
    const stalls = [...findings.stalls.values()].sort((a, b) => a.partition - b.partition);
    stalls.forEach((stall, i) => process.stdout.write(`${formatStall(listed.length + i + 1, stall, findingsDir)}\n\n`));
    const summary = {
      backend: options.url ?? options.backend,
      seed: options.seed,
      concurrency: options.concurrency,
      seconds: result.ms / 1000,
      stoppedBy: result.stoppedBy,
      stats: result.stats,
      findings: listed,
      stalls,
      canaries,
      findingsDir,
    };
    process.stdout.write(`${formatSummary(summary)}\n${resultLine(summary)}\n`);
    return listed.length === 0 ? 0 : 1;
  } catch (err) {
    log(`the run could not be done: ${messageOf(err)}`);
    if (server !== undefined && !server.alive()) log(`the Orca server's last output:\n${server.output()}`);
    return 2;
  } finally {
    await server?.stop().catch((err: unknown) => log(`stopping the server: ${messageOf(err)}`));
    await sink?.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
