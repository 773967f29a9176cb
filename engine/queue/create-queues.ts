// Picks the implementation of the fast path (DESIGN.md §1): Redis when a
// URL is given, the in-process one otherwise (the embedded default). The
// Redis client is imported only when used, so `npm start` never loads it.
import { createLocalQueues } from './local/local-queues.ts';
import type { Queues, QueuesOptions } from './types.ts';

export async function createQueues(options: QueuesOptions = {}): Promise<Queues> {
  const { redisUrl, ...rest } = options;
  if (redisUrl) {
    const { createRedisQueues } = await import('./redis/redis-queues.ts');
    return createRedisQueues({ ...rest, redisUrl });
  }
  return createLocalQueues(rest);
}
