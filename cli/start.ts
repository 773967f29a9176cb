// `orca start [--role all|api|engine] [--partitions N]`: runs Orca until
// SIGINT or SIGTERM. Roles `all` (the default) and `api` serve the REST API
// on PORT; `engine` runs partition leaders, with only probes and metrics
// (/healthz, /readyz, /metrics) on PORT. Without DATABASE_URL /
// REDIS_URL it is the embedded default: PGlite in ORCA_DATA_DIR and
// in-process queues. Shutdown is graceful: in-flight requests finish, leaders
// finish their batch and release their leases so another shard takes over.
// A PGlite directory another process still has open is waited for, not shared.
// Traces are exported when the standard OTEL_* variables ask for it
// (api/tracing/settings.ts); the SDK is stopped after the service.
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.ts';
import { createEngineService } from '../api/engine-service.ts';
import { dataDirHolder, DataDirInUseError, pgliteDirectory } from '../engine/store/data-dir-lock.ts';
import type { AppConfig } from '../api/config.ts';
import { startTracing, type Tracing } from '../api/tracing/sdk.ts';
import { tracingSettings } from '../api/tracing/settings.ts';
import { loadConfig } from './config.ts';

function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/** `as`: the command the user typed (`orca serve` or `orca start`), named in every error. */
export async function runStart(argv: string[], as = 'orca serve'): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { role: { type: 'string' }, partitions: { type: 'string' }, port: { type: 'string' } } });
  const loaded = loadConfig({
    ...process.env,
    ...(values.role !== undefined ? { ORCA_ROLE: values.role } : {}),
    ...(values.partitions !== undefined ? { ORCA_PARTITIONS: values.partitions } : {}),
    ...(values.port !== undefined ? { PORT: values.port } : {}),
  });
  const traced = tracingSettings(process.env);
  const errors = [...(loaded.ok ? [] : loaded.errors), ...(traced.ok ? [] : traced.errors)];
  if (!loaded.ok || !traced.ok) {
    for (const error of errors) process.stderr.write(`${as}: ${error}\n`);
    return 1;
  }
  const config = loaded.config;
  const { engine } = config;
  const where = `${engine.databaseUrl ? 'PostgreSQL' : `PGlite in ${engine.dataDir}`}, ${engine.redisUrl ? 'Redis' : 'in-process queues'}`;
  process.stdout.write(`orca: role ${engine.role}, ${engine.partitions} partitions, ${where}\n`);
  const dataDir = engine.databaseUrl ? undefined : pgliteDirectory(engine.dataDir);
  const holder = dataDir === undefined ? undefined : await dataDirHolder(dataDir);
  if (holder !== undefined) {
    // Typically the previous run, still finishing its graceful shutdown: opening the directory now would lose its last commits.
    process.stdout.write(
      `orca: ${dataDir} is still open in another process${holder.pid === undefined ? '' : ` (pid ${holder.pid})`}; waiting for it to stop\n`,
    );
  }
  const tracing = traced.settings && startTracing(traced.settings);
  if (tracing !== undefined) {
    const { url, sampler } = tracing.settings;
    const ratio = 'ratio' in sampler ? ` ${sampler.ratio}` : '';
    process.stdout.write(`orca: traces to ${url} (sampler ${sampler.name}${ratio})\n`);
  }
  let code: number;
  try {
    code = await (engine.role === 'engine' ? runEngine(config, tracing) : runApi(config, tracing));
  } catch (error) {
    await tracing?.shutdown();
    if (!(error instanceof DataDirInUseError)) throw error;
    process.stderr.write(`${as}: ${error.message}\n`);
    return 1;
  }
  if (tracing !== undefined && !(await tracing.shutdown())) {
    process.stdout.write('orca: the trace collector did not take the last spans within 2 s; they are dropped\n');
    // The service is closed; only the exporter's last request (retried up to
    // OTEL_EXPORTER_OTLP_TIMEOUT) would keep the process: a dead collector must not hold a shutdown.
    process.exit(code);
  }
  return code;
}

async function runEngine(config: AppConfig, tracing: Tracing | undefined): Promise<number> {
  const service = await createEngineService(config, { tracer: tracing?.tracer });
  const base = await service.listen();
  const metrics = config.metrics.enabled ? ' and metrics' : '';
  process.stdout.write(
    `orca: leading partitions ${service.engine.ownedPartitions().join(', ') || '(none yet)'}; probes${metrics} on ${base}; Ctrl-C stops it\n`,
  );
  await untilSignal();
  process.stdout.write('orca: shutting down\n');
  await service.close();
  return 0;
}

async function runApi(config: AppConfig, tracing: Tracing | undefined): Promise<number> {
  const service = await createApp(config, { tracer: tracing?.tracer });
  const listening = await service.listen();
  // The URL listened on names the port actually taken (PORT=0 picks a free one).
  const base = config.http.publicUrl ?? listening;
  const smtp = config.mail.smtpUrl;
  process.stdout.write(
    `orca: listening on ${base} (OpenAPI: ${base}/api/v1/openapi.json)\n` +
      `orca: console ${base}/console/, task list ${base}/tasklist/\n` +
      `orca: to get an API key, sign up:\n` +
      `  curl -s -X POST ${base}/api/signup -H 'content-type: application/json' -d '{"email":"you@example.com"}'\n` +
      (smtp
        ? `  then follow the link in the confirmation mail; the welcome mail carries the key.\n`
        : config.engine.databaseUrl
          ? `  There is no SMTP_URL, so no one can be sent a confirmation link or a key: signup answers 503 until SMTP_URL is set.\n`
          : `  There is no SMTP_URL, so mail is printed here (the mail_outbox table keeps it without the link's token and the key):\n` +
            `  open the confirmation link it shows, and the welcome message with your key follows.\n`),
  );
  await untilSignal();
  process.stdout.write('orca: shutting down\n');
  await service.close();
  return 0;
}
