// `npm run bench:deploy`: the CPU one keyed deploy costs the engine, as
// `bench:operator` makes them (one new single-process model each, with an
// Idempotency-Key), without HTTP. N deploys one after another on the
// engine's API role (no partition leaders), then each of them replayed under
// its key; reports process CPU per deploy and, on Postgres, the statements
// each sends. CPU, not wall time: it stays meaningful on a loaded machine.
// Postgres when DATABASE_URL is set (a scratch schema, dropped after), PGlite
// in memory otherwise. Last line JSON.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { engineConfig } from '../engine/config.ts';
import { createEngine } from '../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../engine/runtime/testing.ts';

const N = Number(process.argv[2] ?? 500);
const ACCOUNT = 'bench-deploy';

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const databaseUrl = process.env.DATABASE_URL;
const schema = `bench_deploy_${randomBytes(4).toString('hex')}`;
const engine = await createEngine(engineConfig({ databaseUrl, dataDir: 'memory://', schema, role: 'api', partitions: 1 }));

function model(i: number): string {
  return processXml(`bench-deploy-${i}`, start() + service('work', 'bench-work') + end() + flow('f1', 'start', 'work') + flow('f2', 'work', 'end'));
}

async function phase(label: string, keyOf: (i: number) => string) {
  const cpu = process.cpuUsage();
  const before = statements;
  for (let i = 0; i < N; i += 1) {
    const xml = model(i);
    await engine.deploy(ACCOUNT, xml, `${i}.bpmn`, { commandKey: keyOf(i), fingerprint: `fp-${i}` });
  }
  const used = process.cpuUsage(cpu);
  return {
    [`${label}_cpu_ms_per_deploy`]: Number(((used.user + used.system) / 1000 / N).toFixed(3)),
    [`${label}_statements_per_deploy`]: databaseUrl ? (statements - before) / N : null,
  };
}

try {
  // Warm-up: JIT, connections, prepared statements.
  for (let i = 0; i < 50; i += 1) await engine.deploy(ACCOUNT, model(-i - 1), 'warm.bpmn', { commandKey: `warm-${i}`, fingerprint: 'fp' });
  const fresh = await phase('keyed', (i) => `deploy-${i}`);
  const replayed = await phase('replayed', (i) => `deploy-${i}`);
  console.log(JSON.stringify({ store: databaseUrl ? 'postgres' : 'pglite', deploys: N, ...fresh, ...replayed }));
} finally {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
  await engine.close();
}
