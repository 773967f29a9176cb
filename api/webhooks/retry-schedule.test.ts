// The retry schedule: Svix's steps with ±10 % jitter, exhausted after the
// eighth attempt; Retry-After in seconds or as a date lengthens a wait but
// never beyond the cap, and never shortens one.
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, nextDelayMs, retryAfterMs, SVIX_SCHEDULE_MS } from './retry-schedule.ts';

describe('nextDelayMs', () => {
  it('follows at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const middle = () => 0.5;
    const waits = [1, 2, 3, 4, 5, 6, 7].map((attempts) => nextDelayMs(attempts, { random: middle }));
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(nextDelayMs(8, { random: middle })).toBeUndefined();
    expect(SVIX_SCHEDULE_MS).toHaveLength(7);
  });

  it('spreads each wait by ±10 %', () => {
    expect(nextDelayMs(2, { random: () => 0 })).toBe(270_000);
    expect(nextDelayMs(2, { random: () => 0.999_999 })).toBe(330_000);
  });

  it('waits at least Retry-After, up to the cap, and never less than the schedule', () => {
    expect(nextDelayMs(1, { random: () => 0.5, retryAfterMs: 60_000 })).toBe(60_000);
    expect(nextDelayMs(1, { random: () => 0.5, retryAfterMs: 1_000 })).toBe(5_000);
    expect(nextDelayMs(1, { random: () => 0.5, retryAfterMs: 30 * 86_400_000 })).toBe(MAX_RETRY_AFTER_MS);
    expect(nextDelayMs(8, { retryAfterMs: 1_000 })).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  it('reads seconds and HTTP dates, and ignores what it cannot read', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Tue, 24 Nov 2026 12:01:30 GMT', now)).toBe(90_000);
    expect(retryAfterMs('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
