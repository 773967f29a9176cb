// The real services `bench:engine` runs against: which PostgreSQL and Redis
// (DATABASE_URL / REDIS_URL, else the local ones), a reachability check that
// refuses to run with a message naming what is missing (a benchmark that
// silently fell back to PGlite and in-process queues would measure something
// else), and the scratch space each run gets: its own Postgres schema and
// Redis key prefixes, removed afterwards whatever happened.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteByPrefix } from '../engine/queue/testing/redis.ts';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface Services {
  databaseUrl: string;
  redisUrl: string;
}

/** What one run may create, and nothing else: dropped and deleted by `removeScratch`. */
export interface Scratch {
  /** Postgres schema for Orca's tables. */
  schema: string;
  /** Key prefix of Orca's queues, streams and replies. */
  orcaPrefix: string;
  /** BullMQ's `prefix` option (BullMQ adds the `:` itself). */
  bullmqPrefix: string;
}

export class ServicesUnavailable extends Error {}

export function servicesFromEnv(env: NodeJS.ProcessEnv = process.env): Services {
  return { databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL, redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL };
}

/** host:port/path only: a URL may carry a password, which must not reach the output. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** Throws ServicesUnavailable naming every service that does not answer within a few seconds. */
export async function checkServices(services: Services, timeoutMs = 3_000): Promise<void> {
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: services.databaseUrl, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    problems.push(`PostgreSQL at ${describeUrl(services.databaseUrl)} (DATABASE_URL): ${messageOf(err)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  // No retries and no offline queue: an absent Redis must fail now, not reconnect forever.
  const redis = new Redis(services.redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The socket's own error (ECONNREFUSED …) says more than the "Connection is closed" connect() rejects with.
  let socketError: unknown;
  redis.on('error', (err: unknown) => (socketError ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    problems.push(`Redis at ${describeUrl(services.redisUrl)} (REDIS_URL): ${messageOf(socketError ?? err)}`);
  } finally {
    redis.disconnect();
  }
  if (problems.length > 0) {
    throw new ServicesUnavailable(`bench:engine needs real PostgreSQL and Redis; not reachable:\n  ${problems.join('\n  ')}`);
  }
}

export function newScratch(): Scratch {
  const id = randomBytes(6).toString('hex');
  return { schema: `bench_${id}`, orcaPrefix: `orca-bench-${id}:`, bullmqPrefix: `orca-bench-bullmq-${id}` };
}

/** Drops the schema and deletes both prefixes' keys; every step is tried even when one fails. */
export async function removeScratch(services: Services, scratch: Scratch): Promise<void> {
  const results = await Promise.allSettled([
    dropSchema(services.databaseUrl, scratch.schema),
    deleteByPrefix(services.redisUrl, scratch.orcaPrefix),
    deleteByPrefix(services.redisUrl, `${scratch.bullmqPrefix}:`),
  ]);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) throw new Error(`cleanup incomplete: ${failed.map((f) => messageOf(f.reason)).join('; ')}`);
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

export function messageOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.map(messageOf).join('; ');
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
