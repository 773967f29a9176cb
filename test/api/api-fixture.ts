// The whole service for one test file, over real HTTP on 127.0.0.1: real
// Postgres and Redis when DATABASE_URL / REDIS_URL are set (a fresh schema
// and key prefix, dropped by close()), otherwise PGlite in a temporary
// directory and the in-process queues.
//
//   const api = await apiFixture();
//   afterAll(() => api.close());
//   const { apiKey } = await api.newAccount();
//   const res = await api.call('GET', '/api/v1/account', { apiKey });
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createApp, type App, type AppConfig } from '../../api/app.ts';
import type { OutboxMessage } from '../../engine/store/index.ts';
import { pgliteTemplate } from '../support/database.ts';
import { deleteByPrefix } from '../support/redis.ts';

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
  close(): Promise<void>;
}

export async function apiFixture(overrides: Partial<AppConfig> = {}): Promise<ApiFixture> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const redisUrl = process.env.REDIS_URL || undefined;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const redisPrefix = `orca-test-${randomBytes(6).toString('hex')}:`;
  const dataDir = databaseUrl ? undefined : await mkdtemp(join(tmpdir(), 'orca-api-'));
  if (dataDir) await seedPgliteDataDir(dataDir);
  const config: AppConfig = {
    databaseUrl,
    redisUrl,
    schema,
    redisPrefix,
    dataDir,
    partitions: 4,
    leaseMs: 1_000,
    replyTimeoutMs: 10_000,
    port: 0,
    host: '127.0.0.1',
    mailEcho: false,
    ...overrides,
  };

  async function dropEverything() {
    await Promise.allSettled([
      redisUrl ? deleteByPrefix(redisUrl, redisPrefix) : Promise.resolve(),
      dataDir ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve(),
      databaseUrl ? dropSchema(databaseUrl, schema) : Promise.resolve(),
    ]);
  }

  let service: App;
  try {
    service = await createApp(config);
  } catch (error) {
    await dropEverything();
    throw error;
  }
  let baseUrl: string;
  try {
    baseUrl = await service.listen();
  } catch (error) {
    await service.close().catch(() => {});
    await dropEverything();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    app: service.app,
    engine: service.engine,
    service,
    config,

    async newAccount(email = `user-${randomBytes(6).toString('hex')}@example.com`) {
      const created = await service.identity.createAccount(email);
      return { ...created, email };
    },

    async call(method, path, options = {}) {
      const url = new URL(path, baseUrl);
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

    outbox: (to) => service.engine.store.mailOutbox.list({ to }),

    close() {
      closing ??= (async () => {
        await service.close().catch(() => {});
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
// is dumped once to the temp directory (the same file test/support/database.ts
// uses) and unpacked into each fixture's directory; the engine then only
// migrates. Any trouble: leave the directory empty and let initdb run.
async function seedPgliteDataDir(dataDir: string): Promise<void> {
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
