// Per-account rate limits over real HTTP (an operator sets them with
// ORCA_RATE_LIMIT_*, read by cli/config.ts): a tiny bucket lets a burst
// through, then answers 429 problem+json with Retry-After; other accounts
// and unauthenticated routes are not affected; the bucket refills. With
// REDIS_URL set the buckets live in Redis (rate-limit.lua), otherwise in
// this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalTokenBuckets, RedisTokenBuckets, type TokenBuckets } from '../../api/plugins/rate-limit-buckets.ts';
import { loadConfig } from '../../cli/config.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

const redisUrl = process.env.REDIS_URL || undefined;
const BURST = 3;

let api: ApiFixture;

beforeAll(async () => {
  // One token every 2 s, three at once: the fourth request in a row is refused.
  api = await apiFixture({ config: { rateLimit: { perSecond: 0.5, burst: BURST } } });
}, 60_000);

afterAll(async () => {
  await api?.close();
}, 30_000);

describe('rate limits', () => {
  it('refuses the request after the burst with 429 problem+json and Retry-After', async () => {
    const { apiKey } = await api.newAccount();
    for (let i = 0; i < BURST; i++) {
      const ok = await api.call('GET', '/api/v1/process-instances', { apiKey });
      expect(ok.status).toBe(200);
    }
    const limited = await api.call('GET', '/api/v1/process-instances', { apiKey });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.json).toMatchObject({ status: 429, code: 'RATE_LIMITED', instance: '/api/v1/process-instances' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    // GraphQL shares the account's bucket.
    const graphql = await api.call('POST', '/api/v1/graphql', { apiKey, json: { query: '{ tasks { nextCursor } }' } });
    expect(graphql.status).toBe(429);

    // Another account has its own bucket; routes without auth are not limited.
    const other = await api.newAccount();
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey: other.apiKey })).status).toBe(200);
    for (let i = 0; i < BURST + 2; i++) expect((await api.call('GET', '/healthz')).status).toBe(200);

    // After Retry-After the bucket has a token again.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey })).status).toBe(200);
  });

  it('counts a key and the bearer tokens minted from it as one account', async () => {
    const { apiKey } = await api.newAccount();
    const token = await api.call('POST', '/api/token', { json: { api_key: apiKey } });
    expect(token.status).toBe(200);
    const bearer: string = token.json.access_token;
    for (let i = 0; i < BURST; i++) expect((await api.call('GET', '/api/v1/process-instances', { apiKey })).status).toBe(200);
    const viaToken = await api.call('GET', '/api/v1/process-instances', { headers: { authorization: `Bearer ${bearer}` } });
    expect(viaToken.status).toBe(429);
  });

  it('does not count requests that fail authentication against anyone', async () => {
    const res = await api.call('GET', '/api/v1/process-instances', { apiKey: 'not-a-key' });
    expect(res.status).toBe(401);
  });
});

describe('token buckets', () => {
  it('reads its configuration from the environment with the rest of the service, with a clear message for bad values', () => {
    expect(loadConfig({})).toMatchObject({ ok: true, config: { rateLimit: { perSecond: 1000, burst: 2000 } } });
    expect(loadConfig({ ORCA_RATE_LIMIT_PER_SECOND: '', ORCA_RATE_LIMIT_BURST: ' ' })).toMatchObject({
      ok: true,
      config: { rateLimit: { perSecond: 1000, burst: 2000 } },
    });
    expect(loadConfig({ ORCA_RATE_LIMIT_PER_SECOND: '5', ORCA_RATE_LIMIT_BURST: '10' })).toMatchObject({
      ok: true,
      config: { rateLimit: { perSecond: 5, burst: 10 } },
    });
    const bad = loadConfig({ ORCA_RATE_LIMIT_BURST: 'lots', ORCA_RATE_LIMIT_PER_SECOND: '-1' });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.errors).toEqual([expect.stringMatching(/^ORCA_RATE_LIMIT_PER_SECOND: /), expect.stringMatching(/^ORCA_RATE_LIMIT_BURST: /)]);
  });

  it('refills the in-process bucket at the configured rate', async () => {
    let now = 0;
    const buckets = new LocalTokenBuckets({ perSecond: 10, burst: 2 }, () => now);
    try {
      expect((await buckets.take('a')).allowed).toBe(true);
      expect((await buckets.take('a')).allowed).toBe(true);
      const denied = await buckets.take('a');
      expect(denied).toEqual({ allowed: false, remaining: 0, retryAfterMs: 100 });
      expect((await buckets.take('b')).allowed).toBe(true);
      now = 100;
      expect((await buckets.take('a')).allowed).toBe(true);
      expect((await buckets.take('a')).allowed).toBe(false);
      now = 10_000;
      expect(await buckets.take('a')).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    } finally {
      await buckets.close();
    }
  });

  it.skipIf(!redisUrl)('keeps the same arithmetic in Redis, under the account hash tag', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl!);
    const prefix = `orca-test-rl-${process.pid}-${Date.now()}:`;
    const buckets: TokenBuckets = new RedisTokenBuckets(redis, prefix, { perSecond: 10, burst: 2 });
    try {
      expect((await buckets.take('acct')).allowed).toBe(true);
      expect((await buckets.take('acct')).allowed).toBe(true);
      const denied = await buckets.take('acct');
      expect(denied.allowed).toBe(false);
      expect(denied.retryAfterMs).toBeGreaterThan(0);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(100);
      const key = `${prefix}{a:acct}:rate`;
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1_300);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await buckets.take('acct')).allowed).toBe(true);
      await redis.del(key);
    } finally {
      await buckets.close();
    }
  });
});
