// `npm run bench:reads`: are the console's read APIs fast with a million
// instances? Starts an Orca server (a child process, real Postgres and
// Redis: DATABASE_URL is required, REDIS_URL defaults to the local one) on a
// fresh schema, deploys the benchmark's models over HTTP, fills the store in
// bulk (bench-reads-fill.ts), measures each read route over HTTP
// (bench-reads-measure.ts), and removes the schema and Redis keys whatever
// happens. Goals (issue #17): p99 ≤ 50 ms for first pages and filters,
// ≤ 200 ms for a definition's element statistics. The last line is JSON with
// every route's p50/p99.
//
// Flags: --instances=N (default 1,000,000), --samples=N per route (200),
// --warmup=N (20), --partitions=N (8).
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { fillStore } from './bench-reads-fill.ts';
import { measureRoutes, type RouteFigures } from './bench-reads-measure.ts';
import { MODELS, secondVersion } from './bench-reads-shapes.ts';
import { startServer, type OrcaServer } from './bench-e2e-server.ts';
import { messageOf, servicesFromEnv } from './bench-engine-services.ts';

export interface ReadsOptions {
  instances: number;
  samples: number;
  warmup: number;
  partitions: number;
  log?: (line: string) => void;
}

export interface ReadsResult {
  instances: number;
  /** The Postgres schema the run used (dropped when it returns). */
  schema: string;
  fillSeconds: number;
  routes: Record<string, RouteFigures>;
}

const USAGE = 'usage: bench:reads [--instances=N] [--samples=N] [--warmup=N] [--partitions=N]';

export function parseArgs(argv: string[]): ReadsOptions {
  const options: ReadsOptions = { instances: 1_000_000, samples: 200, warmup: 20, partitions: 8 };
  for (const arg of argv) {
    const match = /^--(instances|samples|warmup|partitions)=([0-9_,]+)$/.exec(arg);
    if (match === null) throw new Error(`bench:reads: unknown argument ${arg}\n${USAGE}`);
    const value = Number(match[2].replace(/[_,]/g, ''));
    if (!Number.isSafeInteger(value) || value < (match[1] === 'warmup' ? 0 : 1)) throw new Error(`bench:reads: --${match[1]} must be a positive integer`);
    options[match[1] as 'instances' | 'samples' | 'warmup' | 'partitions'] = value;
  }
  return options;
}

export async function runReadsBenchmark(options: ReadsOptions, env: NodeJS.ProcessEnv = process.env): Promise<ReadsResult> {
  if (!env.DATABASE_URL) throw new Error('bench:reads needs DATABASE_URL (a real PostgreSQL: the fill is a bulk INSERT … SELECT into a fresh schema)');
  const log = options.log ?? (() => {});
  const services = servicesFromEnv(env);
  const server: OrcaServer = await startServer({ backend: 'pg-redis', services, partitions: options.partitions });
  const stopOnSignal = () => void server.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  try {
    for (const model of MODELS) {
      await deploy(server, model.xml, `${model.id}.bpmn`);
      if (model.versions > 1) await deploy(server, secondVersion(model.xml), `${model.id}-v2.bpmn`);
    }
    const client = new pg.Client({ connectionString: services.databaseUrl, options: `-c search_path=${server.schema}` });
    await client.connect();
    let filled;
    try {
      filled = await fillStore(client, { account: server.account, instances: options.instances, partitions: options.partitions, log });
    } finally {
      await client.end();
    }
    log(`bench:reads: filled ${options.instances.toLocaleString('en-US')} instances in ${filled.seconds.toFixed(1)} s`);
    const routes = await measureRoutes(
      {
        baseUrl: server.baseUrl,
        apiKey: server.apiKey,
        instances: options.instances,
        partitions: options.partitions,
        from: filled.from,
        step: filled.step,
        samples: options.samples,
        warmup: options.warmup,
      },
      log,
    );
    return { instances: options.instances, schema: server.schema!, fillSeconds: Math.round(filled.seconds * 10) / 10, routes };
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    await server.stop();
  }
}

async function deploy(server: OrcaServer, xml: string, name: string): Promise<void> {
  const response = await fetch(`${server.baseUrl}/api/v1/process-definitions?resourceName=${name}`, {
    method: 'POST',
    headers: { 'x-api-key': server.apiKey, 'content-type': 'application/xml' },
    body: xml,
  });
  if (response.status !== 200) throw new Error(`bench:reads: deploying ${name} answered ${response.status} ${await response.text()}`);
}

export function formatReadsReport(result: ReadsResult): string {
  const width = Math.max(...Object.keys(result.routes).map((n) => n.length));
  const lines = [`bench:reads — ${result.instances.toLocaleString('en-US')} instances (filled in ${result.fillSeconds} s), ms per request over HTTP`];
  lines.push(`${'route'.padEnd(width)}  ${'p50'.padStart(8)}  ${'p99'.padStart(8)}`);
  for (const [name, f] of Object.entries(result.routes)) lines.push(`${name.padEnd(width)}  ${f.p50.toFixed(2).padStart(8)}  ${f.p99.toFixed(2).padStart(8)}`);
  const routes = Object.fromEntries(Object.entries(result.routes).map(([name, f]) => [name, { p50: f.p50, p99: f.p99 }]));
  lines.push(JSON.stringify({ bench: 'reads', instances: result.instances, fillSeconds: result.fillSeconds, routes }));
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const options = parseArgs(process.argv.slice(2));
    const result = await runReadsBenchmark({ ...options, log: (line) => console.error(line) });
    console.log(formatReadsReport(result));
  } catch (err) {
    console.error(messageOf(err));
    process.exitCode = 1;
  }
}
