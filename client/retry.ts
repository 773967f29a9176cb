// When and how long to wait before repeating a request. Only requests that
// are safe to repeat are ever repeated (GET, or a request carrying an
// Idempotency-Key the server deduplicates by); the transport decides that,
// this module only computes delays: exponential backoff with full jitter,
// and the server's Retry-After when it gives one.

export interface RetryOptions {
  /** Tries in all, the first included (default 5; 1 = never repeat). */
  attempts?: number;
  /** The first backoff ceiling in ms (default 100). */
  baseMs?: number;
  /** The largest backoff in ms (default 5,000). Retry-After is honoured even when longer, up to 60 s. */
  maxMs?: number;
}

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

/** The longest Retry-After we wait; a longer one ends the retries. */
export const MAX_RETRY_AFTER_MS = 60_000;

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const attempts = Math.max(1, Math.floor(options.attempts ?? 5));
  const baseMs = Math.max(0, options.baseMs ?? 100);
  const maxMs = Math.max(baseMs, options.maxMs ?? 5_000);
  return { attempts, baseMs, maxMs };
}

/**
 * Full jitter (a random delay below an exponentially growing ceiling), so
 * clients that failed together do not come back together. `retry` counts
 * from 1 (the first repeat).
 */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling * random());
}

/** The wait before repeat number `retry`: the server's Retry-After when given (never below the backoff), else the backoff. */
export function delayBeforeRetry(policy: RetryPolicy, retry: number, retryAfter: number | undefined, random?: () => number): number {
  const backoff = backoffMs(policy, retry, random);
  return retryAfter === undefined ? backoff : Math.max(retryAfter, backoff);
}
