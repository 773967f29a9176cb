import { describe, expect, it } from 'vitest';
import { firstDue, nextDue } from './index.ts';
import { parseError, schedule } from './test-helpers.ts';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const due = (text: string, now = NOW) => firstDue(schedule('duration', text), now);

describe('timeDuration', () => {
  it('adds exact time units to now', () => {
    expect(due('PT10S')).toBe(Date.UTC(2026, 0, 15, 12, 0, 10));
    expect(due('PT1H')).toBe(Date.UTC(2026, 0, 15, 13, 0, 0));
    expect(due('P1DT2H30M')).toBe(Date.UTC(2026, 0, 16, 14, 30, 0));
  });

  it('reads fractional seconds with a dot or a comma', () => {
    expect(due('PT0.5S')).toBe(NOW + 500);
    expect(due('PT1,25S')).toBe(NOW + 1250);
  });

  it('drops digits finer than a millisecond', () => {
    expect(due('PT0.0009S')).toBe(NOW);
    expect(due('PT2.1239S')).toBe(NOW + 2123);
  });

  it('fires at once for a zero duration', () => {
    expect(due('PT0S')).toBe(NOW);
    expect(due('P0D')).toBe(NOW);
  });

  it('counts weeks as seven days', () => {
    expect(due('P2W')).toBe(Date.UTC(2026, 0, 29, 12, 0, 0));
  });

  it('adds years and months on the calendar', () => {
    expect(due('P1Y2M')).toBe(Date.UTC(2027, 2, 15, 12, 0, 0));
    expect(due('P1D')).toBe(Date.UTC(2026, 0, 16, 12, 0, 0));
  });

  it('clamps a month added to the 31st to the last day of a shorter month', () => {
    expect(due('P1M', Date.UTC(2026, 0, 31, 8, 0))).toBe(Date.UTC(2026, 1, 28, 8, 0));
    expect(due('P1M', Date.UTC(2026, 2, 31, 8, 0))).toBe(Date.UTC(2026, 3, 30, 8, 0));
    expect(due('P1M1D', Date.UTC(2026, 0, 31, 8, 0))).toBe(Date.UTC(2026, 2, 1, 8, 0));
  });

  it('knows leap years', () => {
    expect(due('P1M', Date.UTC(2024, 0, 31))).toBe(Date.UTC(2024, 1, 29));
    expect(due('P1D', Date.UTC(2024, 1, 28))).toBe(Date.UTC(2024, 1, 29));
    expect(due('P1D', Date.UTC(2026, 1, 28))).toBe(Date.UTC(2026, 2, 1));
    expect(due('P1Y', Date.UTC(2024, 1, 29))).toBe(Date.UTC(2025, 1, 28));
    expect(due('P4Y', Date.UTC(2024, 1, 29))).toBe(Date.UTC(2028, 1, 29));
  });

  it('accepts lower-case designators and surrounding spaces', () => {
    expect(due('pt10s')).toBe(NOW + 10_000);
    expect(due('  PT10S \n')).toBe(NOW + 10_000);
  });

  it('fires only once', () => {
    const s = schedule('duration', 'PT10S');
    expect(nextDue(s, NOW + 10_000, 1)).toBeNull();
  });

  it('stores plain JSON that computes the same due time after a round trip', () => {
    const s = schedule('duration', 'P1M');
    const copy = JSON.parse(JSON.stringify(s));
    expect(copy).toEqual(s);
    expect(firstDue(copy, Date.UTC(2026, 0, 31))).toBe(Date.UTC(2026, 1, 28));
  });

  describe('rejects', () => {
    it('negative durations', () => {
      expect(parseError('duration', 'PT-5S')).toBe("'PT-5S' is not a valid ISO 8601 duration: negative durations are not allowed.");
      expect(parseError('duration', '-PT5S')).toBe("'-PT5S' is not a valid ISO 8601 duration: negative durations are not allowed.");
    });

    it('an empty text', () => {
      expect(parseError('duration', '')).toBe('The timer duration is empty: expected an ISO 8601 duration such as PT10S or P1D.');
    });

    it('garbage', () => {
      expect(parseError('duration', 'ten seconds')).toBe(
        "'ten seconds' is not a valid ISO 8601 duration: a duration starts with P; expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M.",
      );
      expect(parseError('duration', 'P1H')).toBe("'P1H' is not a valid ISO 8601 duration: expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M.");
      expect(parseError('duration', '10S')).toBe(
        "'10S' is not a valid ISO 8601 duration: a duration starts with P; expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M.",
      );
    });

    it('a P or T with no amount', () => {
      expect(parseError('duration', 'P')).toBe(
        "'P' is not a valid ISO 8601 duration: it names no amount of time (write PT0S for zero); expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M.",
      );
      expect(parseError('duration', 'P1DT')).toBe(
        "'P1DT' is not a valid ISO 8601 duration: a T must be followed by hours, minutes or seconds; expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M.",
      );
    });

    it('fractions anywhere but the seconds', () => {
      const why = 'only the seconds may have a fraction (e.g. PT0.5S), not years, months, weeks, days, hours or minutes.';
      expect(parseError('duration', 'P1.5D')).toBe(`'P1.5D' is not a valid ISO 8601 duration: ${why}`);
      expect(parseError('duration', 'PT1.5H')).toBe(`'PT1.5H' is not a valid ISO 8601 duration: ${why}`);
      expect(parseError('duration', 'PT0,5M')).toBe(`'PT0,5M' is not a valid ISO 8601 duration: ${why}`);
    });

    it('durations too long to schedule', () => {
      expect(parseError('duration', 'P99999Y')).toBe("'P99999Y' is not a valid ISO 8601 duration: it is longer than 10000 years.");
      expect(parseError('duration', 'PT99999999999999999999S')).toBe(
        "'PT99999999999999999999S' is not a valid ISO 8601 duration: it is longer than 10000 years.",
      );
    });
  });
});
