// Capped exponential backoff with jitter for the operator's loops (watch
// reconnects, lease retries): the n-th consecutive failure waits about
// base·2ⁿ, never more than the cap, spread by ±20 % so replicas that failed
// together do not come back together.
export interface Backoff {
  /** The wait before the next try, counting this failure. */
  next(): number;
  /** A success: the next failure starts from the base again. */
  reset(): void;
  readonly failures: number;
}

export function backoff(baseMs: number, capMs: number, random: () => number = Math.random): Backoff {
  let failures = 0;
  return {
    next() {
      const ceiling = Math.min(capMs, baseMs * 2 ** failures);
      failures++;
      return Math.round(ceiling * (0.8 + 0.4 * random()));
    },
    reset() {
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
