import { describe, expect, it } from 'vitest';
import { createTestRedis } from './testing/redis.ts';
import { createQueues } from './create-queues.ts';

describe('createQueues', () => {
  it('runs in-process without a Redis URL', async () => {
    const queues = await createQueues();
    expect(queues.kind).toBe('local');
    await queues.close();
  });

  it.skipIf(!process.env.REDIS_URL)('uses Redis with a URL (REDIS_URL set)', async () => {
    const test = createTestRedis();
    const queues = await createQueues({ redisUrl: test.url, prefix: test.prefix });
    try {
      expect(queues.kind).toBe('redis');
    } finally {
      await queues.close();
      await test.cleanup();
    }
  });

  it('refuses a prefix with a hash tag in it', async () => {
    await expect(createQueues({ redisUrl: 'redis://127.0.0.1:1', prefix: 'a{b}' })).rejects.toThrow(/must not contain/);
  });
});
