// The pace of thrown-signal starts (start-pace.ts): a burst goes at once,
// then each start waits its turn at the rate, per account; nothing is
// refused, and an account that was quiet long enough starts at once again.
import { describe, expect, it } from 'vitest';
import { StartPace } from './start-pace.ts';

describe('StartPace', () => {
  it('lets a burst through, then spaces starts at the rate, per account', () => {
    let now = 0;
    const pace = new StartPace({ perSecond: 10, burst: 5 }, () => now);
    expect(pace.reserve('a', 5)).toBe(0);
    // In debt by 1 start: its turn comes after a tenth of a second; the next two after two and three tenths.
    expect(pace.reserve('a', 1)).toBe(100);
    expect(pace.reserve('a', 2)).toBe(300);
    // Another account has its own bucket.
    expect(pace.reserve('b', 5)).toBe(0);
    now = 300;
    // The debt was paid off at the rate: a new start waits for nothing more than what is still owed.
    expect(pace.reserve('a', 1)).toBe(100);
    now = 10_000;
    expect(pace.reserve('a', 5)).toBe(0);
  });

  it('paces a fan-out larger than the burst as a whole', () => {
    const pace = new StartPace({ perSecond: 100, burst: 200 }, () => 0);
    expect(pace.reserve('a', 1_200)).toBe(10_000);
  });
});
