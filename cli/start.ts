// `orca start [--role all|api|engine] [--partitions N]`: runs the engine
// (PGlite and in-process queues unless DATABASE_URL / REDIS_URL are set)
// until SIGINT or SIGTERM, then shuts down gracefully: leaders finish their
// batch and release their leases so another shard takes over at once.
// The HTTP API is not there yet (see README.md); `api` serves nothing so far.
import { parseArgs } from 'node:util';
import { createEngine } from '../engine/partition/index.ts';
import { loadConfig } from './config.ts';

export async function runStart(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { role: { type: 'string' }, partitions: { type: 'string' } } });
  const loaded = loadConfig({
    ...process.env,
    ...(values.role !== undefined ? { ORCA_ROLE: values.role } : {}),
    ...(values.partitions !== undefined ? { ORCA_PARTITIONS: values.partitions } : {}),
  });
  if (!loaded.ok) {
    for (const error of loaded.errors) process.stderr.write(`orca start: ${error}\n`);
    return 1;
  }
  const config = loaded.config;
  const engine = await createEngine({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    dataDir: config.ORCA_DATA_DIR,
    schema: config.ORCA_DB_SCHEMA,
    redisPrefix: config.ORCA_REDIS_PREFIX,
    partitions: config.ORCA_PARTITIONS,
    role: config.ORCA_ROLE,
    leaseMs: config.ORCA_LEASE_MS,
  });
  const store = config.DATABASE_URL ? 'PostgreSQL' : `PGlite in ${config.ORCA_DATA_DIR}`;
  const queues = config.REDIS_URL ? 'Redis' : 'in-process queues';
  process.stdout.write(`orca: role ${config.ORCA_ROLE}, ${config.ORCA_PARTITIONS} partitions, ${store}, ${queues}\n`);
  if (config.ORCA_ROLE !== 'api') process.stdout.write(`orca: leading partitions ${engine.ownedPartitions().join(', ') || '(none yet)'}\n`);
  process.stdout.write('orca: the REST API is not available yet; this process runs the engine only. Ctrl-C stops it.\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write('orca: shutting down\n');
  await engine.close();
  return 0;
}
