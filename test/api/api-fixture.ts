// The whole service for one test file, over real HTTP on 127.0.0.1: real
// Postgres and Redis when DATABASE_URL / REDIS_URL are set (a fresh schema
// and key prefix, dropped by close()), otherwise PGlite in a temporary
// directory and the in-process queues.
//
//   const api = await apiFixture();
//   afterAll(() => api.close());
//   const { apiKey } = await api.newAccount();
//   const res = await api.call('GET', '/api/v1/account', { apiKey });
//
// Without SMTP the fixture is the reader of the mail the embedded default
// would print (mailEcho): `mail(to)` has it whole, `outbox(to)` has what the
// table keeps (no secrets).
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createApp, type App, type AppOptions } from '../../api/app.ts';
import { appConfig, type AppConfig } from '../../api/config.ts';
import type { EchoedMail } from '../../api/mail/index.ts';
import type { ConfigOverrides } from '../../engine/config.ts';
import { createEngine, engineConfig, type Engine } from '../../engine/partition/index.ts';
import type { OutboxMessage } from '../../engine/store/index.ts';
import { pgliteTemplate } from '../../engine/store/testing/database.ts';
import { deleteByPrefix } from '../../engine/queue/testing/redis.ts';

export interface CallOptions {
  /** Sent as X-API-Key. */
  apiKey?: string;
  /** Serialised as the JSON body (Content-Type application/json). */
  json?: unknown;
  /** A raw body (set Content-Type in headers yourself). */
  body?: string | Buffer | Uint8Array;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  /** The parsed body when it is JSON (problem+json included), else undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

export interface ApiFixture {
  baseUrl: string;
  app: App['app'];
  engine: App['engine'];
  /** Everything createApp returned (identity, credits, mailer …). */
  service: App;
  config: AppConfig;
  /** A fresh account (opening balance as configured) and its API key. */
  newAccount(email?: string): Promise<{ account: string; apiKey: string; email: string }>;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Messages in the mail outbox, newest first; `to` narrows to one address. */
  outbox(to?: string): Promise<OutboxMessage[]>;
  /** Messages as their reader got them without SMTP (secrets included), newest first; `to` narrows to one address. */
  mail(to?: string): EchoedMail[];
  /**
   * Stops the service (and the split fixture's shard) and starts a new one on
   * the same data, as a process restart does; `baseUrl`, `app`, `engine` and
   * `service` then name the new one.
   */
  restart(): Promise<void>;
  /**
   * The two halves of restart(), for a test that watches the time between:
   * stop() closes the service (and shard) as a process exit does, leaving
   * the data; start() starts a new one on it. With a fixed `http.port` the
   * new one answers at the same address.
   */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * Split fixtures only: starts another engine shard on the same store, then
   * stops the one leading now, and resolves once the new one leads every
   * partition — a leader handover of all partitions.
   */
  handOver(): Promise<void>;
  close(): Promise<void>;
}

/** The service's hooks (AppOptions: mail echo, clock, …) over the fixture's, and: */
export interface ApiFixtureOptions extends AppOptions {
  /**
   * Over the fixture's configuration: its own Postgres schema, Redis prefix
   * and PGlite directory, 4 partitions, a 1 s lease, a free port on 127.0.0.1,
   * no webhook dispatcher.
   */
  config?: ConfigOverrides<AppConfig>;
  /**
   * The API in a process role of its own (`api`) and the partitions led by
   * a separate engine shard (`engine`), as in a scaled-out install; they
   * share only Postgres and Redis, so it needs DATABASE_URL and REDIS_URL.
   */
  split?: boolean;
}

export async function apiFixture(options: ApiFixtureOptions = {}): Promise<ApiFixture> {
  const { split = false, config: overrides, ...hooks } = options;
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const redisUrl = process.env.REDIS_URL || undefined;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const redisPrefix = `orca-test-${randomBytes(6).toString('hex')}:`;
  const dataDir = databaseUrl ? undefined : await mkdtemp(join(tmpdir(), 'orca-api-'));
  if (dataDir) await seedPgliteDataDir(dataDir);
  const printed: EchoedMail[] = [];
  const config = appConfig(
    // No webhook dispatcher unless a test asks for one: endpoints in tests name public addresses that must never be reached.
    {
      http: { port: 0, host: '127.0.0.1' },
      engine: { databaseUrl, redisUrl, schema, redisPrefix, dataDir, partitions: 4, leaseMs: 1_000 },
      webhooks: { dispatcher: false },
    },
    overrides,
    split ? { engine: { role: 'api' } } : undefined,
  );
  if (split && (!databaseUrl || !redisUrl)) throw new Error('a split fixture needs DATABASE_URL and REDIS_URL');

  async function dropEverything() {
    await Promise.allSettled([
      redisUrl ? deleteByPrefix(redisUrl, redisPrefix) : Promise.resolve(),
      dataDir ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve(),
      databaseUrl ? dropSchema(databaseUrl, schema) : Promise.resolve(),
    ]);
  }

  // A traced service's shard traces too: the split fixture's batches are led there.
  const newShard = () => createEngine(engineConfig(config.engine, { role: 'engine' }), { tracer: hooks.tracer });

  /** Waits (up to 10 s) for `shard` to lead every partition; says whether it does. */
  async function leadsAll(shard: Engine): Promise<boolean> {
    const partitions = config.engine.partitions;
    for (let i = 0; i < 400 && shard.ownedPartitions().length < partitions; i++) await new Promise((r) => setTimeout(r, 25));
    return shard.ownedPartitions().length === partitions;
  }

  /** The service (and the split fixture's shard), listening. */
  async function startService(): Promise<{ service: App; shard?: Engine; baseUrl: string }> {
    const service = await createApp(config, { mailEcho: (mail) => void printed.unshift(mail), ...hooks });
    let shard: Engine | undefined;
    try {
      if (split) {
        shard = await newShard();
        await leadsAll(shard);
      }
      return { service, shard, baseUrl: await service.listen() };
    } catch (error) {
      await service.close().catch(() => {});
      await shard?.close().catch(() => {});
      throw error;
    }
  }

  let running: { service: App; shard?: Engine; baseUrl: string };
  try {
    running = await startService();
  } catch (error) {
    await dropEverything();
    throw error;
  }

  async function stopService() {
    await running.service.close();
    await running.shard?.close();
  }

  let closing: Promise<void> | undefined;
  return {
    get baseUrl() {
      return running.baseUrl;
    },
    get app() {
      return running.service.app;
    },
    get engine() {
      return running.service.engine;
    },
    get service() {
      return running.service;
    },
    config,

    async newAccount(email = `user-${randomBytes(6).toString('hex')}@example.com`) {
      const created = await running.service.identity.createAccount(email);
      return { ...created, email };
    },

    async call(method, path, options = {}) {
      const url = new URL(path, running.baseUrl);
      for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
      let body: string | Uint8Array | undefined;
      if (options.json !== undefined) {
        body = JSON.stringify(options.json);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      } else if (options.body !== undefined) {
        body = options.body;
      }
      const response = await fetch(url, { method, headers, body: body as RequestInit['body'] });
      const text = await response.text();
      let json: unknown;
      if (/json/i.test(response.headers.get('content-type') ?? '') && text !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      return { status: response.status, headers: response.headers, json, text };
    },

    outbox: (to) => running.service.engine.store.mailOutbox.list({ to }),

    mail: (to) => printed.filter((m) => to === undefined || m.to === to),

    async restart() {
      await stopService();
      running = await startService();
    },

    stop: stopService,

    async start() {
      running = await startService();
    },

    async handOver() {
      if (!split || running.shard === undefined) throw new Error('handOver needs a split fixture');
      const old = running.shard;
      const next = await newShard();
      running.shard = next;
      // A leaving shard hands its partitions back; the new one takes them all.
      await old.close();
      if (!(await leadsAll(next))) throw new Error(`the new shard leads ${next.ownedPartitions().length} of ${config.engine.partitions} partitions`);
    },

    close() {
      closing ??= (async () => {
        await running.service.close().catch(() => {});
        await running.shard?.close().catch(() => {});
        await dropEverything();
      })();
      return closing;
    },
  };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

// PGlite's initdb takes many seconds on a small machine. An initialised,
// empty data directory is the same every time for one PGlite version, so it
// is dumped once to the temp directory (the same file engine/store/testing/database.ts
// uses) and unpacked into each fixture's directory; the engine then only
// migrates. Any trouble: leave the directory empty and let initdb run.
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  try {
    const template = await pgliteTemplate();
    if (template === undefined) return;
    const seeded = await PGlite.create({ dataDir, loadDataDir: template });
    await seeded.close();
  } catch {
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true });
  }
}
