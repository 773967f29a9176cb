// When a failed delivery is tried again: Svix's schedule (at once, then 5 s,
// 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; after the last the delivery fails),
// each wait spread by ±10 % jitter so an endpoint that comes back is not hit
// by its whole backlog in the same second, and never shorter than the
// receiver's Retry-After (capped: a receiver cannot park a delivery for days).

/** Waits before the 2nd, 3rd, … attempt, in ms; the first is made at once. */
export const SVIX_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** The longest Retry-After honoured. */
export const MAX_RETRY_AFTER_MS = 36_000_000;

/**
 * The wait before the next attempt after `attempts` attempts (1 after the
 * first), or undefined when the schedule is exhausted and the delivery fails.
 */
export function nextDelayMs(
  attempts: number,
  options: { schedule?: readonly number[]; retryAfterMs?: number; random?: () => number } = {},
): number | undefined {
  const schedule = options.schedule ?? SVIX_SCHEDULE_MS;
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.9 + 0.2 * (options.random ?? Math.random)()));
  return Math.max(jittered, Math.min(options.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** A Retry-After header (delay-seconds or an HTTP date) in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** What an attempt's outcome makes of a delivery that had `attemptsBefore` attempts: its status, log entry and next attempt. */
export function attemptVerdict(
  outcome: { at: Date; durationMs: number; statusCode?: number; error?: string; retryAfterMs?: number },
  attemptsBefore: number,
  options: { schedule?: readonly number[]; random?: () => number },
) {
  const ok = outcome.error === undefined;
  // 410 Gone: the receiver says the endpoint is no more; no retry (the endpoint is disabled).
  const gone = outcome.statusCode === 410;
  const delay = ok || gone ? undefined : nextDelayMs(attemptsBefore + 1, { ...options, retryAfterMs: outcome.retryAfterMs });
  const status: 'delivered' | 'failed' | 'pending' = ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
  const entry = {
    at: outcome.at.toISOString(),
    ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
    durationMs: outcome.durationMs,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
  };
  const nextAttemptAt = delay === undefined ? null : new Date(outcome.at.getTime() + outcome.durationMs + delay).toISOString();
  return { ok, gone, status, entry, nextAttemptAt };
}
