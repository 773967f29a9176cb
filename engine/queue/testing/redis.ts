// Redis for tests: each test run gets its own key prefix so runs (and test
// files running in parallel) never see each other's keys, and cleanup
// deletes exactly that prefix's keys with SCAN. No REDIS_URL: no Redis, and
// the tests that need one are skipped.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export interface TestRedis {
  /** REDIS_URL (on logical database `db` when asked); undefined when no Redis is configured. */
  url?: string;
  /** `orca-test-<random>:` */
  prefix: string;
  /** Deletes every key under `prefix`. */
  cleanup(): Promise<void>;
}

export interface TestRedisOptions {
  /**
   * A logical database of its own, for a test that flushes Redis (FLUSHDB
   * must never wipe the keys of other runs on the shared database 0).
   */
  db?: number;
}

function withDatabase(url: string, db: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}

export async function deleteByPrefix(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { connectionName: 'orca-test-cleanup' });
  let deleted = 0;
  try {
    // Glob metacharacters in the prefix are escaped so MATCH is literal.
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
  return deleted;
}

export function createTestRedis(options: TestRedisOptions = {}): TestRedis {
  const base = process.env.REDIS_URL || undefined;
  const url = base && options.db !== undefined ? withDatabase(base, options.db) : base;
  const prefix = `orca-test-${randomBytes(6).toString('hex')}:`;
  return {
    url,
    prefix,
    async cleanup() {
      if (url) await deleteByPrefix(url, prefix);
    },
  };
}
