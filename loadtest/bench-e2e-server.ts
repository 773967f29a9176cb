// The Orca server `bench:e2e` measures: prepared, started as a child process
// (`node bin/orca.js start`, so the load generator and the server never share
// an event loop on a 2-core machine), and removed with everything it stored.
// Before the child starts, this process opens the same store, migrates it and
// creates the benchmark's account and API key directly through the app's
// identity service (no signup mail), with enough credits for any run. The
// embedded backend gets a fresh PGlite directory under the temp directory;
// pg-redis gets its own Postgres schema and Redis key prefix. The child is
// killed on stop, on failure, and when this process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createIdentity } from '../api/identity/index.ts';
import { createMailer } from '../api/mail/index.ts';
import { createStore, openDatabase, type Database } from '../engine/store/index.ts';
import { pgliteTemplate } from '../engine/store/testing/database.ts';
import { checkServices, messageOf, newScratch, removeScratch, ServicesUnavailable, type Scratch, type Services } from './bench-engine-services.ts';

export type Backend = 'embedded' | 'pg-redis';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ORCA_BIN = path.join(ROOT, 'bin', 'orca.js');
/** No run can spend this: a benchmark that hits 402 would measure the ledger, not the engine. */
const BENCH_CREDITS = 1_000_000_000;
const READY_TIMEOUT_MS = 120_000;
/** A graceful stop lets the child finish its batches and write its CPU profile. */
const STOP_GRACE_MS = 30_000;
/** Lines of the child's output kept for error messages. */
const OUTPUT_LINES = 40;

export interface ServerOptions {
  backend: Backend;
  /** pg-redis only: where the services are. */
  services?: Services;
  partitions: number;
  /** Node flags for the child, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/p']. */
  nodeFlags?: string[];
  /** pg-redis only: the schema and prefix to use (tests pass their own to check the cleanup). */
  scratch?: Scratch;
  /** Environment for the child on top of the benchmark's (the fuzzer sets SMTP_URL and the rate limit). */
  env?: NodeJS.ProcessEnv;
  /**
   * Rows the run needs before the server starts, written on its store beside
   * the benchmark's account: `account` makes another (bench:e2e --webhook
   * gives one a webhook endpoint).
   */
  setup?: (database: Database, account: () => Promise<{ account: string; apiKey: string }>) => Promise<void>;
}

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the child ignored SIGTERM for STOP_GRACE_MS and was killed. */
  killed: boolean;
}

export interface OrcaServer {
  backend: Backend;
  baseUrl: string;
  apiKey: string;
  account: string;
  pid: number;
  /** Where the server's data lives: the PGlite directory, or schema and prefix. */
  location: string;
  /** pg-redis: the server's Postgres schema. */
  schema?: string;
  /** The child's recent output, for error messages. */
  output(): string;
  /** True while the child runs. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL after a grace period; then removes the data. Idempotent. */
  stop(): Promise<ServerExit>;
}

export class ServerFailed extends Error {}

export async function startServer(options: ServerOptions): Promise<OrcaServer> {
  const { backend } = options;
  if (backend === 'pg-redis') {
    if (options.services === undefined) throw new Error('pg-redis needs DATABASE_URL and REDIS_URL');
    try {
      await checkServices(options.services);
    } catch (err) {
      // The shared check names bench:engine; say who is asking.
      if (err instanceof ServicesUnavailable) throw new ServicesUnavailable(err.message.replace(/^bench:engine/, 'bench:e2e --backend=pg-redis'));
      throw err;
    }
  }
  const scratch = options.scratch ?? newScratch();
  const dataDir = backend === 'embedded' ? await mkdtemp(path.join(tmpdir(), 'orca-bench-e2e-')) : undefined;
  const removeData = async () => {
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    else await removeScratch(options.services!, scratch);
  };

  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  try {
    const database = await (dataDir !== undefined
      ? openDatabase({ dataDir, pgliteTemplate: await pgliteTemplate() })
      : openDatabase({ url: options.services!.databaseUrl, schema: scratch.schema, poolSize: 2 }));
    let credentials: { account: string; apiKey: string };
    try {
      credentials = await createBenchAccount(database);
      await options.setup?.(database, () => createBenchAccount(database));
    } finally {
      // PGlite allows one process per directory: the child opens it next.
      await database.close();
    }

    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      ORCA_PARTITIONS: String(options.partitions),
      ORCA_ROLE: 'all',
      // The benchmark measures the engine; the per-account limit (1,000 requests/s by default) would cap it.
      ORCA_RATE_LIMIT_PER_SECOND: '0',
      SMTP_URL: '',
      ...options.env,
    };
    if (dataDir !== undefined) {
      delete env.DATABASE_URL;
      delete env.REDIS_URL;
      env.ORCA_DATA_DIR = dataDir;
    } else {
      env.DATABASE_URL = options.services!.databaseUrl;
      env.REDIS_URL = options.services!.redisUrl;
      env.ORCA_DB_SCHEMA = scratch.schema;
      env.ORCA_REDIS_PREFIX = scratch.orcaPrefix;
    }
    child = spawn(process.execPath, [...(options.nodeFlags ?? []), ORCA_BIN, 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    process.once('exit', killOnExit);
    const output = outputBuffer(child);
    const exited = new Promise<ServerExit>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal, killed: false })));
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntilReady(baseUrl, exited, output);

    const running = child;
    let stopping: Promise<ServerExit> | undefined;
    return {
      backend,
      baseUrl,
      ...credentials,
      pid: running.pid!,
      location: dataDir ?? `schema ${scratch.schema}, Redis prefix ${scratch.orcaPrefix}`,
      ...(dataDir === undefined ? { schema: scratch.schema } : {}),
      output,
      alive: () => running.exitCode === null && running.signalCode === null,
      stop() {
        stopping ??= (async () => {
          try {
            return await stopChild(running, exited);
          } finally {
            process.removeListener('exit', killOnExit);
            await removeData();
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    if (child !== undefined) {
      child.kill('SIGKILL');
      process.removeListener('exit', killOnExit);
    }
    await removeData().catch((cleanupErr: unknown) => console.error(`bench:e2e: cleanup after a failed start: ${messageOf(cleanupErr)}`));
    throw err;
  }
}

async function createBenchAccount(database: Database): Promise<{ account: string; apiKey: string }> {
  await database.migrate();
  const store = createStore(database.db);
  // createAccount sends no mail; the mailer is only what the identity service is built with.
  const identity = createIdentity({
    store,
    mailer: createMailer({ outbox: store.mailOutbox }),
    config: { publicUrl: 'http://localhost', initialCredits: BENCH_CREDITS },
  });
  return identity.createAccount(`bench-e2e-${randomBytes(6).toString('hex')}@example.com`);
}

async function waitUntilReady(baseUrl: string, exited: Promise<ServerExit>, output: () => string): Promise<void> {
  let gone: ServerExit | undefined;
  void exited.then((exit) => (gone = exit));
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (gone !== undefined) throw new ServerFailed(`the Orca server exited before it was ready (code ${gone.code}, signal ${gone.signal}):\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new ServerFailed(`the Orca server was not ready within ${READY_TIMEOUT_MS / 1000} s:\n${output()}`);
}

async function stopChild(child: ChildProcess, exited: Promise<ServerExit>): Promise<ServerExit> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace-over'>((resolve) => (timer = setTimeout(() => resolve('grace-over'), STOP_GRACE_MS)));
  const first = await Promise.race([exited, graceOver]);
  clearTimeout(timer);
  if (first !== 'grace-over') return first;
  child.kill('SIGKILL');
  return { ...(await exited), killed: true };
}

function outputBuffer(child: ChildProcess): () => string {
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      if (lines.length > OUTPUT_LINES) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => lines.map((l) => `  | ${l}`).join('\n');
}

/** A port nobody listens on right now (the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
