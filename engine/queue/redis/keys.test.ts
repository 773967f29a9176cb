// The Redis key layout (keys.ts): every key under the prefix and in a hash
// tag, so each script stays within one slot on Redis Cluster, and tests leave
// nothing behind.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRedis, type TestRedis } from '../testing/redis.ts';
import { queuedJob } from '../testing/jobs.ts';
import { QueueKeys } from './keys.ts';
import { createRedisQueues } from './redis-queues.ts';

describe('QueueKeys', () => {
  it('puts accounts, partitions and replies in hash tags, escaping braces', () => {
    const keys = new QueueKeys('orca:');
    expect(keys.queue('acme', 'event:message:paid')).toBe('orca:{a:acme}:q:event:message:paid');
    expect(keys.job('we{ir}d%', '7')).toBe('orca:{a:we%7Bir%7Dd%25}:j:7');
    expect(keys.commands(3)).toBe('orca:{p3}:commands');
    expect(keys.reply('x}y')).toBe('orca:{r:x%7Dy}:reply');
    expect(keys.inbox('ab{c')).toBe('orca:{i:ab%7Bc}:replies');
  });

  it('refuses a prefix that would open a hash tag', () => {
    expect(() => new QueueKeys('orca{1}:')).toThrow(/must not contain/);
  });
});

const skip = process.env.REDIS_URL ? false : true;

describe.skipIf(skip)(`Redis key layout${skip ? ' (REDIS_URL is not set: skipped)' : ''}`, () => {
  let test: TestRedis | undefined;
  afterEach(async () => {
    await test?.cleanup();
  });

  it('keeps every key under the prefix, in a hash tag, and cleanup removes them all', async () => {
    test = createTestRedis();
    const queues = await createRedisQueues({ redisUrl: test.url!, prefix: test.prefix });
    const redis = new Redis(test.url!);
    try {
      await queues.jobs.push([queuedJob('1', { partition: 2 }), queuedJob('2', { account: 'globex', partition: 5 })]);
      await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      await queues.jobs.rebuild(5, [queuedJob('2', { account: 'globex', partition: 5 })]);
      await queues.commands.append(2, { key: 'c', payload: {} });
      await queues.replies.sendReplies([{ commandKey: 'c', result: 1 }]);
      const expected = await queues.replies.expectReply('d', 5000);
      expect(await queues.commands.appendIfBelow(4, { key: 'd', payload: {}, replyTo: expected.channel }, 10)).toBe('appended');
      await queues.replies.sendReplies([{ commandKey: 'd', result: 2, replyTo: expected.channel }]);
      expect(await expected.promise).toBe(2);
      // The reply inbox is a channel: it leaves no key behind.
      expect(await redis.exists(queues.replies.inbox)).toBe(0);

      const keys = await redis.keys(`${test.prefix}*`);
      expect(keys.length).toBeGreaterThan(5);
      for (const key of keys) expect(key.slice(test.prefix.length)).toMatch(/^\{(a:[^{}]+|p\d+|r:[^{}]+)\}:/);
      expect(await redis.pttl(queues.keys.reply('c'))).toBeGreaterThan(0);

      await test.cleanup();
      expect(await redis.keys(`${test.prefix}*`)).toEqual([]);
    } finally {
      await queues.close();
      await redis.quit();
    }
  });
});
