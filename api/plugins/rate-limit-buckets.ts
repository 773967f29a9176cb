// Token buckets for the per-account rate limit, in two stores with the same
// arithmetic: Redis (one script call per request, shared by every API pod;
// script and key layout in rate-limit.lua) and in-process (the embedded
// default, and a pod's own fallback when there is no Redis). A bucket holds
// up to `burst` tokens and refills at `perSecond`; each request takes one.
import { readFileSync } from 'node:fs';
import type { Redis, Result } from 'ioredis';
import { QueueKeys } from '../../engine/index.ts';

export interface BucketLimits {
  /** Tokens added per second. */
  perSecond: number;
  /** Capacity: how many requests may come at once after a quiet spell. */
  burst: number;
}

export interface Take {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When denied: how long until the request would be allowed. */
  retryAfterMs: number;
}

export interface TokenBuckets {
  take(account: string, cost?: number): Promise<Take>;
  close(): Promise<void>;
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    orcaRateLimit(bucketKey: string, perSecond: number, burst: number, cost: number): Result<[number, number, number], Context>;
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets in this process's memory; forgotten once full again, so idle accounts cost nothing. */
export class LocalTokenBuckets implements TokenBuckets {
  readonly #limits: BucketLimits;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(limits: BucketLimits, now: () => number = () => performance.now()) {
    this.#limits = limits;
    this.#now = now;
    this.#sweeper = setInterval(() => this.#sweep(), 60_000);
    // A sweeper must never keep the process alive on its own.
    this.#sweeper.unref();
  }

  #refilled(bucket: Bucket, now: number): number {
    return Math.min(this.#limits.burst, bucket.tokens + (Math.max(0, now - bucket.at) * this.#limits.perSecond) / 1000);
  }

  async take(account: string, cost = 1): Promise<Take> {
    const now = this.#now();
    const bucket = this.#buckets.get(account) ?? { tokens: this.#limits.burst, at: now };
    bucket.tokens = this.#refilled(bucket, now);
    bucket.at = now;
    this.#buckets.set(account, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterMs: 0 };
    }
    return { allowed: false, remaining: Math.floor(bucket.tokens), retryAfterMs: Math.ceil(((cost - bucket.tokens) * 1000) / this.#limits.perSecond) };
  }

  #sweep(): void {
    const now = this.#now();
    for (const [account, bucket] of this.#buckets) {
      if (this.#refilled(bucket, now) >= this.#limits.burst) this.#buckets.delete(account);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#buckets.clear();
  }
}

const SCRIPT = readFileSync(new URL('./rate-limit.lua', import.meta.url), 'utf8');

/** Buckets in Redis, shared by every API pod; the key carries the account's hash tag (Redis Cluster). */
export class RedisTokenBuckets implements TokenBuckets {
  readonly #redis: Redis;
  readonly #keys: QueueKeys;
  readonly #limits: BucketLimits;

  constructor(redis: Redis, prefix: string, limits: BucketLimits) {
    redis.defineCommand('orcaRateLimit', { lua: SCRIPT, numberOfKeys: 1 });
    this.#redis = redis;
    this.#keys = new QueueKeys(prefix);
    this.#limits = limits;
  }

  async take(account: string, cost = 1): Promise<Take> {
    const [allowed, remaining, retryAfterMs] = await this.#redis.orcaRateLimit(
      `${this.#keys.account(account)}rate`,
      this.#limits.perSecond,
      this.#limits.burst,
      cost,
    );
    return { allowed: allowed === 1, remaining, retryAfterMs };
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
