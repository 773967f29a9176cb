// The work queue's controller-runtime semantics and its rate limits, with
// no Kubernetes: dedupe by key, never one key twice at once (a key added
// while in process comes back once after), per-key exponential backoff that
// success forgets, and the shared token bucket.
import { describe, expect, it } from 'vitest';
import { bucketLimiter, defaultRateLimiter, itemExponentialLimiter } from '../../operator/workqueue/rate-limiter.ts';
import { createWorkQueue } from '../../operator/workqueue/work-queue.ts';

describe('work queue', () => {
  it('dedupes keys that wait, in order of first add', async () => {
    const queue = createWorkQueue(itemExponentialLimiter());
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.length).toBe(0);
  });

  it('never hands out a key in process; one added meanwhile comes back once after done()', async () => {
    const queue = createWorkQueue(itemExponentialLimiter());
    queue.add('a');
    const key = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done(key!);
    await Promise.resolve();
    expect(second).toBe('a');
    queue.done('a');
    expect(queue.length).toBe(0);
  });

  it('keeps the earliest of several delayed adds, and answers undefined after shutDown', async () => {
    const queue = createWorkQueue(itemExponentialLimiter());
    queue.addAfter('x', 60_000);
    queue.addAfter('x', 1);
    expect(await queue.get()).toBe('x');
    queue.shutDown();
    expect(await queue.get()).toBeUndefined();
  });
});

describe('rate limiters', () => {
  it('per key: 5 ms doubling to the cap, forgotten on success, keys independent', () => {
    const limiter = itemExponentialLimiter(5, 1_000_000);
    expect([1, 2, 3, 4].map(() => limiter.when('a'))).toEqual([5, 10, 20, 40]);
    expect(limiter.when('b')).toBe(5);
    expect(limiter.retries('a')).toBe(4);
    limiter.forget('a');
    expect(limiter.when('a')).toBe(5);
    const capped = itemExponentialLimiter(5, 1_000_000);
    for (let i = 0; i < 40; i++) capped.when('c');
    expect(capped.when('c')).toBe(1_000_000);
  });

  it('bucket: a burst of 100 at once, then 10 per second', () => {
    let now = 0;
    const bucket = bucketLimiter(10, 100, () => now);
    const delays = Array.from({ length: 102 }, (_, i) => bucket.when(`k${i}`));
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays.slice(100)).toEqual([100, 200]);
    now = 10_000;
    expect(bucket.when('later')).toBe(0);
  });

  it('default: the larger of the two', () => {
    let now = 0;
    const limiter = defaultRateLimiter({ baseMs: 5, maxMs: 1_000, qps: 10, burst: 1, now: () => now });
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('b')).toBe(100);
    now = 100_000;
    for (let i = 0; i < 10; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1_000);
  });
});
