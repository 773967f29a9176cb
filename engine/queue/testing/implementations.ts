// The implementations the contract tests run against: the in-process one
// always, Redis when REDIS_URL is set (each harness on its own key prefix,
// deleted afterwards). A harness can open several handles on the same store,
// as several pods would.
import { Redis } from 'ioredis';
import { createTestRedis } from './redis.ts';
import { LocalQueues } from '../local/local-queues.ts';
import { createRedisQueues, type RedisQueues } from '../redis/redis-queues.ts';
import type { Queues } from '../types.ts';

export interface Harness {
  /** A handle on the shared store (Redis: new connections, same prefix). */
  open(): Promise<Queues>;
  /** Loses everything the store holds, as a Redis flush would. Needs `{ db }` for Redis. */
  flush(): Promise<void>;
  /** Pending long polls and reply waiters over every handle opened. */
  listeners(): number;
  /** Closes every handle and deletes the store's keys. */
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  /** Redis: a logical database of its own (for tests that flush). */
  db?: number;
  replyTtlMs?: number;
}

export interface Implementation {
  name: string;
  /** Why the implementation is skipped, or false. */
  skip: string | false;
  harness(options?: HarnessOptions): Harness;
}

const local: Implementation = {
  name: 'local',
  skip: false,
  harness(options = {}) {
    const queues = new LocalQueues({ replyTtlMs: options.replyTtlMs });
    return {
      open: async () => queues,
      flush: async () => queues.jobs.clear(),
      listeners: () => queues.jobs.waiterCount + queues.replies.waiterCount,
      cleanup: () => queues.close(),
    };
  },
};

const redis: Implementation = {
  name: 'redis',
  skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set: Redis contract tests skipped',
  harness(options = {}) {
    const test = createTestRedis({ db: options.db });
    const opened: RedisQueues[] = [];
    return {
      async open() {
        const queues = await createRedisQueues({ redisUrl: test.url!, prefix: test.prefix, replyTtlMs: options.replyTtlMs });
        opened.push(queues);
        return queues;
      },
      async flush() {
        if (options.db === undefined) throw new Error('flush needs a logical database of its own ({ db })');
        const client = new Redis(test.url!);
        try {
          await client.flushdb();
        } finally {
          await client.quit();
        }
      },
      // A handle's reply inbox stays subscribed for its life: what counts is its waiters.
      listeners: () =>
        opened.reduce((sum, queues) => sum + queues.subscriber.channelCount - (queues.replies.inboxSubscribed ? 1 : 0) + queues.replies.waiterCount, 0),
      async cleanup() {
        await Promise.all(opened.map((queues) => queues.close()));
        await test.cleanup();
      },
    };
  },
};

export const implementations: Implementation[] = [local, redis];

if (redis.skip) console.info(`[queue contract tests] ${redis.skip} (set REDIS_URL=redis://127.0.0.1:6379 to run them)`);

/** `describe` title: the implementation, and why it is skipped when it is. */
export function title(implementation: Implementation): string {
  return implementation.skip ? `${implementation.name} (${implementation.skip})` : implementation.name;
}
