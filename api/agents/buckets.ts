// Where the flood limits of orca.register and orca.connect keep their
// buckets: in the engine's Redis when the service has one, so every API pod
// counts against the same budget, else in this process. One Redis
// connection serves both limits; it is opened here and closed by the app.
import type { Redis } from 'ioredis';
import { LocalTokenBuckets, RedisTokenBuckets } from '../plugins/rate-limit-buckets.ts';
import { connectBucketsRedis } from '../plugins/rate-limit.ts';
import type { BucketsFactory } from './rate-limits.ts';

export interface AgentBuckets {
  factory: BucketsFactory;
  close(): Promise<void>;
}

/** How long a bucket lookup may take before the call passes unlimited (as the request limit's default). */
const REDIS_TIMEOUT_MS = 500;

export async function agentBuckets(redisUrl: string | undefined, prefix: string): Promise<AgentBuckets> {
  if (!redisUrl) return { factory: (_name, limits) => new LocalTokenBuckets(limits), close: async () => {} };
  const redis: Redis = await connectBucketsRedis(redisUrl, REDIS_TIMEOUT_MS, 'orca-agent-limits');
  return {
    // The connection is shared, so a limit closing its buckets must not close it.
    factory: (_name, limits) => {
      const buckets = new RedisTokenBuckets(redis, prefix, limits);
      return { take: (subject, cost) => buckets.take(subject, cost), close: async () => {} };
    },
    close: () =>
      redis.quit().then(
        () => undefined,
        () => redis.disconnect(),
      ),
  };
}
