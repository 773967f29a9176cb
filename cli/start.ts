// `orca start [--role all|api|engine] [--partitions N]`: runs Orca until
// SIGINT or SIGTERM. Roles `all` (the default) and `api` serve the REST API
// on PORT; `engine` runs partition leaders only. Without DATABASE_URL /
// REDIS_URL it is the embedded default: PGlite in ORCA_DATA_DIR and
// in-process queues. Shutdown is graceful: in-flight requests finish, leaders
// finish their batch and release their leases so another shard takes over.
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.ts';
import { createEngine } from '../engine/partition/index.ts';
import { loadConfig, type ServiceConfig } from './config.ts';

function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

export async function runStart(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { role: { type: 'string' }, partitions: { type: 'string' }, port: { type: 'string' } } });
  const loaded = loadConfig({
    ...process.env,
    ...(values.role !== undefined ? { ORCA_ROLE: values.role } : {}),
    ...(values.partitions !== undefined ? { ORCA_PARTITIONS: values.partitions } : {}),
    ...(values.port !== undefined ? { PORT: values.port } : {}),
  });
  if (!loaded.ok) {
    for (const error of loaded.errors) process.stderr.write(`orca start: ${error}\n`);
    return 1;
  }
  const config = loaded.config;
  const where = `${config.DATABASE_URL ? 'PostgreSQL' : `PGlite in ${config.ORCA_DATA_DIR}`}, ${config.REDIS_URL ? 'Redis' : 'in-process queues'}`;
  process.stdout.write(`orca: role ${config.ORCA_ROLE}, ${config.ORCA_PARTITIONS} partitions, ${where}\n`);
  return config.ORCA_ROLE === 'engine' ? runEngine(config) : runApi(config);
}

async function runEngine(config: ServiceConfig): Promise<number> {
  const engine = await createEngine({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    dataDir: config.ORCA_DATA_DIR,
    schema: config.ORCA_DB_SCHEMA,
    redisPrefix: config.ORCA_REDIS_PREFIX,
    partitions: config.ORCA_PARTITIONS,
    role: 'engine',
    leaseMs: config.ORCA_LEASE_MS,
    commandRetentionMs: config.ORCA_COMMAND_RETENTION_MS,
  });
  process.stdout.write(`orca: leading partitions ${engine.ownedPartitions().join(', ') || '(none yet)'}; Ctrl-C stops it\n`);
  await untilSignal();
  process.stdout.write('orca: shutting down\n');
  await engine.close();
  return 0;
}

async function runApi(config: ServiceConfig): Promise<number> {
  const service = await createApp({
    port: config.PORT,
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    dataDir: config.ORCA_DATA_DIR,
    schema: config.ORCA_DB_SCHEMA,
    redisPrefix: config.ORCA_REDIS_PREFIX,
    partitions: config.ORCA_PARTITIONS,
    role: config.ORCA_ROLE,
    leaseMs: config.ORCA_LEASE_MS,
    commandRetentionMs: config.ORCA_COMMAND_RETENTION_MS,
    smtpUrl: config.SMTP_URL,
    publicUrl: config.PUBLIC_URL,
  });
  await service.listen();
  const base = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
  process.stdout.write(
    `orca: listening on ${base} (OpenAPI: ${base}/api/v1/openapi.json)\n` +
      `orca: to get an API key, sign up:\n` +
      `  curl -s -X POST ${base}/api/signup -H 'content-type: application/json' -d '{"email":"you@example.com"}'\n` +
      (config.SMTP_URL
        ? `  then follow the link in the confirmation mail; the welcome mail carries the key.\n`
        : `  There is no SMTP_URL, so mail is printed here (and kept in the mail_outbox table):\n` +
          `  open the confirmation link it shows, and the welcome message with your key follows.\n`),
  );
  await untilSignal();
  process.stdout.write('orca: shutting down\n');
  await service.close();
  return 0;
}
