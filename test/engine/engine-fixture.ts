// A durable engine for one test file: real Postgres and Redis when
// DATABASE_URL / REDIS_URL are set (a fresh schema and key prefix, dropped
// afterwards), otherwise PGlite in a temporary directory and the in-process
// queues. `restart` opens a new engine on the same data, as a new pod would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ConfigOverrides } from '../../engine/config.ts';
import { createEngine, engineConfig, type Engine, type EngineConfig, type EngineOptions } from '../../engine/partition/index.ts';
import { deleteByPrefix } from '../../engine/queue/testing/redis.ts';

export interface EngineFixture {
  /** This run's configuration: its own schema, key prefix and data directory, 4 partitions, a 1 s lease. */
  config: EngineConfig;
  /** An engine on this run's configuration under `overrides`; `options` are its shard identity and test hooks. */
  start(overrides?: ConfigOverrides<EngineConfig>, options?: EngineOptions): Promise<Engine>;
  /** Deletes this run's Redis keys: what a FLUSHALL does to it. */
  flushRedis(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function engineFixture(): Promise<EngineFixture> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const redisUrl = process.env.REDIS_URL || undefined;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const redisPrefix = `orca-test-${randomBytes(6).toString('hex')}:`;
  const dataDir = databaseUrl ? undefined : await mkdtemp(join(tmpdir(), 'orca-engine-'));
  const config = engineConfig({ databaseUrl, redisUrl, schema, redisPrefix, dataDir, partitions: 4, leaseMs: 1_000 });
  const engines: Engine[] = [];
  return {
    config,
    async start(overrides, options) {
      const engine = await createEngine(engineConfig(config, overrides), options);
      engines.push(engine);
      return engine;
    },
    async flushRedis() {
      if (redisUrl) await deleteByPrefix(redisUrl, redisPrefix);
    },
    async cleanup() {
      await Promise.allSettled(engines.map((e) => e.close()));
      if (redisUrl) await deleteByPrefix(redisUrl, redisPrefix);
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
      if (databaseUrl) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      }
    },
  };
}

/** Polls `probe` until it returns a value other than undefined (a bounded wait, not a timing assertion). */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
