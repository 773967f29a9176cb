import { describe, expect, it } from 'vitest';
import { firstDue, nextDue } from './index.ts';
import { firings, parseError, schedule } from './test-helpers.ts';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);
const HOUR = 3_600_000;
const FORMS = 'expected R5/PT10S, R/PT1H, R3/2026-01-01T00:00:00Z/PT1H or R/PT1H/2027-01-01T00:00:00Z';

describe('timeCycle as ISO 8601 repeating interval', () => {
  it('R5/PT10S fires five times, ten seconds apart, then stops', () => {
    const s = schedule('cycle', 'R5/PT10S');
    expect(firings(s, NOW)).toEqual([NOW + 10_000, NOW + 20_000, NOW + 30_000, NOW + 40_000, NOW + 50_000]);
    expect(nextDue(s, NOW + 50_000, 5)).toBeNull();
  });

  it('R1 fires exactly once', () => {
    expect(firings(schedule('cycle', 'R1/PT1M'), NOW)).toEqual([NOW + 60_000]);
  });

  it('R/PT1H keeps going', () => {
    const s = schedule('cycle', 'R/PT1H');
    const dues = firings(s, NOW, 100);
    expect(dues).toHaveLength(100);
    expect(dues[99]).toBe(NOW + 100 * HOUR);
    expect(nextDue(s, Date.UTC(2030, 5, 1, 12), 1_000_000)).toBe(Date.UTC(2030, 5, 1, 13));
  });

  it('stores the repetitions and the interval parts as plain JSON', () => {
    expect(schedule('cycle', 'R5/PT10S')).toEqual({
      kind: 'cycle',
      text: 'R5/PT10S',
      repetitions: 5,
      interval: { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 10, milliseconds: 0 },
      intervalText: 'PT10S',
      start: null,
      end: null,
      zone: 'UTC',
    });
    expect(schedule('cycle', 'R/PT1H')).toMatchObject({ repetitions: null });
  });

  it('without a start, adds the interval to the previous firing (as Zeebe does)', () => {
    // 31 Jan + P1M = 28 Feb, and 28 Feb + P1M = 28 Mar: the day drifts, exactly like Camunda.
    expect(firings(schedule('cycle', 'R3/P1M'), Date.UTC(2026, 0, 31, 9))).toEqual([
      Date.UTC(2026, 1, 28, 9),
      Date.UTC(2026, 2, 28, 9),
      Date.UTC(2026, 3, 28, 9),
    ]);
  });

  describe('with a start date', () => {
    it('fires first at the start, then every interval, counting the start as a firing', () => {
      const s = schedule('cycle', 'R3/2026-01-01T00:00:00Z/PT1H');
      expect(firings(s, Date.UTC(2025, 11, 31, 12))).toEqual([Date.UTC(2026, 0, 1, 0), Date.UTC(2026, 0, 1, 1), Date.UTC(2026, 0, 1, 2)]);
    });

    it('fires at once when the start is past, then returns to the grid', () => {
      const s = schedule('cycle', 'R3/2026-01-01T00:00:00Z/PT1H');
      const now = Date.UTC(2026, 0, 1, 0, 30);
      expect(firings(s, now)).toEqual([now, Date.UTC(2026, 0, 1, 1), Date.UTC(2026, 0, 1, 2)]);
    });

    it('keeps a monthly cycle on the 31st wherever the month has one', () => {
      const s = schedule('cycle', 'R/2026-01-31T00:00:00Z/P1M');
      expect(firings(s, Date.UTC(2026, 0, 1), 5)).toEqual([
        Date.UTC(2026, 0, 31),
        Date.UTC(2026, 1, 28),
        Date.UTC(2026, 2, 31),
        Date.UTC(2026, 3, 30),
        Date.UTC(2026, 4, 31),
      ]);
    });

    it('keeps a yearly cycle from 29 February on leap days', () => {
      const s = schedule('cycle', 'R/2024-02-29T12:00:00Z/P1Y');
      expect(firings(s, Date.UTC(2024, 0, 1), 5)).toEqual([
        Date.UTC(2024, 1, 29, 12),
        Date.UTC(2025, 1, 28, 12),
        Date.UTC(2026, 1, 28, 12),
        Date.UTC(2027, 1, 28, 12),
        Date.UTC(2028, 1, 29, 12),
      ]);
    });

    it('keeps the wall-clock time of a daily cycle across DST in the start zone', () => {
      // Berlin moves from +01:00 to +02:00 on 29 March 2026.
      const s = schedule('cycle', 'R/2026-03-28T09:00:00@Europe/Berlin/P1D');
      expect(s).toMatchObject({ start: Date.UTC(2026, 2, 28, 8), zone: 'Europe/Berlin' });
      expect(firings(s, Date.UTC(2026, 2, 1), 3)).toEqual([Date.UTC(2026, 2, 28, 8), Date.UTC(2026, 2, 29, 7), Date.UTC(2026, 2, 30, 7)]);
    });

    it('adds exact hours across DST', () => {
      const s = schedule('cycle', 'R3/2026-03-29T01:00:00@Europe/Berlin/PT1H');
      expect(firings(s, Date.UTC(2026, 2, 1))).toEqual([Date.UTC(2026, 2, 29, 0), Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 2, 29, 2)]);
    });

    it('finds the grid point after a firing far from the start', () => {
      const s = schedule('cycle', 'R/2000-01-31T06:00:00Z/P1M');
      expect(nextDue(s, Date.UTC(2026, 0, 31, 6), 1)).toBe(Date.UTC(2026, 1, 28, 6));
      expect(nextDue(s, Date.UTC(2026, 1, 28, 6), 2)).toBe(Date.UTC(2026, 2, 31, 6));
    });
  });

  describe('with an end date', () => {
    it('fires every interval up to and including the end', () => {
      const s = schedule('cycle', 'R/PT1H/2026-01-01T03:00:00Z');
      expect(s).toMatchObject({ repetitions: null, start: null, end: Date.UTC(2026, 0, 1, 3) });
      expect(firings(s, NOW)).toEqual([NOW + HOUR, NOW + 2 * HOUR, NOW + 3 * HOUR]);
    });

    it('stops at the repetitions when they run out before the end', () => {
      expect(firings(schedule('cycle', 'R2/PT1H/2027-01-01T00:00:00Z'), NOW)).toEqual([NOW + HOUR, NOW + 2 * HOUR]);
    });

    it('reads an end date with a zone id', () => {
      const s = schedule('cycle', 'R/PT1H/2026-01-01T03:00:00@Europe/Berlin');
      expect(firings(s, NOW)).toEqual([NOW + HOUR, NOW + 2 * HOUR]);
    });

    it('still fires the first time when the end is already past; the end bounds the repeats', () => {
      const s = schedule('cycle', 'R/PT1H/2025-01-01T00:00:00Z');
      expect(firings(s, NOW)).toEqual([NOW + HOUR]);
    });
  });

  describe('catching up after downtime (now passed to nextDue)', () => {
    it('re-anchors a cycle without a start on now', () => {
      const s = schedule('cycle', 'R/PT1H');
      expect(nextDue(s, NOW, 1, NOW + 5.5 * HOUR)).toBe(NOW + 6.5 * HOUR);
      // Not late: the natural next firing stands.
      expect(nextDue(s, NOW, 1, NOW + 0.5 * HOUR)).toBe(NOW + HOUR);
    });

    it('skips to the next grid point of a cycle with a start', () => {
      const s = schedule('cycle', 'R/2026-01-01T00:00:00Z/PT1H');
      expect(nextDue(s, NOW + HOUR, 2, NOW + 5.5 * HOUR)).toBe(NOW + 6 * HOUR);
    });

    it('does not count skipped occurrences as firings', () => {
      const s = schedule('cycle', 'R2/PT1H');
      expect(nextDue(s, NOW, 1, NOW + 10 * HOUR)).toBe(NOW + 11 * HOUR);
      expect(nextDue(s, NOW + 11 * HOUR, 2, NOW + 11 * HOUR)).toBeNull();
    });
  });

  it('computes the same firings from a JSON round trip of the schedule', () => {
    const s = schedule('cycle', 'R/2026-01-31T00:00:00@Europe/Berlin/P1M');
    const copy = JSON.parse(JSON.stringify(s));
    expect(firings(copy, NOW, 3)).toEqual(firings(s, NOW, 3));
    expect(firstDue(copy, NOW)).toBe(Date.UTC(2026, 0, 30, 23));
  });

  describe('rejects', () => {
    const bad = (text: string, why: string) => expect(parseError('cycle', text)).toBe(`'${text}' is not a valid ISO 8601 repeating interval: ${why}.`);

    it('R0', () => bad('R0/PT10S', 'R0 repeats zero times, so the timer would never fire; use R1 or more, or R for unbounded'));
    it('a negative repetition count', () => bad('R-1/PT10S', 'the number of repetitions cannot be negative'));
    it('a negative interval', () => {
      bad('R/-PT1H', "the interval '-PT1H' is not valid: negative intervals are not allowed");
      bad('R3/PT-10S', "the interval 'PT-10S' is not valid: negative intervals are not allowed");
    });
    it('a zero interval', () => bad('R/PT0S', "the interval 'PT0S' must be longer than zero"));
    it('a missing interval', () => {
      bad('R5', `expected R (unbounded) or Rn (n firings), a slash, then the interval; ${FORMS}`);
      bad('R5/', `no interval follows R5/; ${FORMS}`);
    });
    it('a garbage interval', () => {
      bad('R/every hour', `'every hour' is not a duration; ${FORMS}`);
      bad('R/PTXS', "the interval 'PTXS' is not valid: expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M");
    });
    it('a start without a zone', () =>
      bad(
        'R/2026-01-01T00:00:00/PT1H',
        "the start '2026-01-01T00:00:00' is not a valid date-time: it has no time zone; add Z for UTC, an offset such as +02:00, or a zone such as @Europe/Berlin",
      ));
    it('a start in an unknown zone', () =>
      bad(
        'R/2026-01-01T00:00:00@Mars/Olympus/PT1H',
        "the start '2026-01-01T00:00:00@Mars/Olympus' is not a valid date-time: 'Mars/Olympus' is not a known time zone (use an IANA zone id such as Europe/Berlin)",
      ));
    it('an unparseable end', () =>
      bad(
        'R/PT1H/soon',
        "the end 'soon' is not a valid date-time: expected a date and time with an offset or zone, e.g. 2026-01-01T10:00:00Z, 2026-01-01T10:00:00+02:00 or 2026-01-01T10:00:00@Europe/Berlin",
      ));
    it('a start/end pair', () =>
      bad(
        'R/2026-01-01T00:00:00Z/2027-01-01T00:00:00Z',
        `the interval '2027-01-01T00:00:00Z' is not a duration (a start/end pair is not supported); ${FORMS}`,
      ));

    it('a bare duration, suggesting the R prefix', () => {
      expect(parseError('cycle', 'PT1H')).toBe(
        "'PT1H' is not a valid timer cycle: a cycle needs a repetition prefix, e.g. R/PT1H for unbounded or R5/PT1H for five firings.",
      );
    });

    it('an empty text', () => {
      expect(parseError('cycle', '')).toBe(
        'The timer cycle is empty: expected a repeating interval such as R5/PT10S or a cron expression such as 0 0 9 * * MON-FRI.',
      );
    });
  });
});
