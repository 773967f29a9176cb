// How long a key waits before it is tried again, as controller-runtime's
// default controller rate limiter decides: the larger of a per-key
// exponential backoff (5 ms doubling up to 1000 s, forgotten on success) and
// a token bucket shared by all keys (10 per second, burst 100), so one
// failing resource backs off alone and many failing at once cannot flood
// the Kubernetes API or Orca.
export interface RateLimiter {
  /** The delay before `key` is tried again, counting this failure. */
  when(key: string): number;
  /** `key` succeeded: its backoff starts from the base again. */
  forget(key: string): void;
  /** Failures of `key` since it last succeeded. */
  retries(key: string): number;
}

export interface RateLimiterOptions {
  baseMs?: number;
  maxMs?: number;
  qps?: number;
  burst?: number;
  /** Milliseconds, monotonic enough for a bucket (default performance.now). */
  now?: () => number;
}

export function itemExponentialLimiter(baseMs = 5, maxMs = 1_000_000): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(maxMs, baseMs * 2 ** n);
    },
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}

/** A token bucket: each call takes a token, waiting (as a returned delay) for one when the bucket is empty. */
export function bucketLimiter(qps = 10, burst = 100, now: () => number = () => performance.now()): RateLimiter {
  let tokens = burst;
  let last = now();
  return {
    when() {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - last) / 1000) * qps);
      last = t;
      tokens -= 1;
      // A negative balance is a reservation: the wait until it is paid back.
      return tokens >= 0 ? 0 : Math.ceil((-tokens / qps) * 1000);
    },
    forget() {},
    retries: () => 0,
  };
}

export function defaultRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const perKey = itemExponentialLimiter(options.baseMs, options.maxMs);
  const bucket = bucketLimiter(options.qps, options.burst, options.now);
  return {
    when: (key) => Math.max(perKey.when(key), bucket.when(key)),
    forget: (key) => perKey.forget(key),
    retries: (key) => perKey.retries(key),
  };
}
