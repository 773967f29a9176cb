import { describe, expect, it } from 'vitest';
import { firstDue, nextDue } from './index.ts';
import { parseError, schedule } from './test-helpers.ts';

const EARLY = Date.UTC(2025, 11, 1);
const due = (text: string, now = EARLY) => firstDue(schedule('date', text), now);

describe('timeDate', () => {
  it('reads UTC with Z', () => {
    expect(due('2026-01-01T10:00:00Z')).toBe(Date.UTC(2026, 0, 1, 10, 0, 0));
  });

  it('reads fixed offsets', () => {
    expect(due('2026-01-01T10:00:00+02:00')).toBe(Date.UTC(2026, 0, 1, 8, 0, 0));
    expect(due('2026-01-01T10:00:00-05:30')).toBe(Date.UTC(2026, 0, 1, 15, 30, 0));
    expect(due('2026-01-01T10:00:00+0200')).toBe(Date.UTC(2026, 0, 1, 8, 0, 0));
  });

  it('keeps milliseconds and allows leaving out the seconds', () => {
    expect(due('2026-01-01T10:00:00.250Z')).toBe(Date.UTC(2026, 0, 1, 10, 0, 0, 250));
    expect(due('2026-01-01T10:30Z')).toBe(Date.UTC(2026, 0, 1, 10, 30, 0));
  });

  it('reads a zone id with @ using the zone offset of that date', () => {
    expect(due('2026-01-01T10:00:00@Europe/Berlin')).toBe(Date.UTC(2026, 0, 1, 9, 0, 0));
    expect(due('2026-07-01T10:00:00@Europe/Berlin')).toBe(Date.UTC(2026, 6, 1, 8, 0, 0));
    expect(due('2026-01-01T10:00:00@America/New_York')).toBe(Date.UTC(2026, 0, 1, 15, 0, 0));
    expect(due('2026-01-01T10:00:00@Asia/Kolkata')).toBe(Date.UTC(2026, 0, 1, 4, 30, 0));
  });

  it('reads Java-style offset plus [zone]', () => {
    expect(due('2026-01-01T10:00:00+01:00[Europe/Berlin]')).toBe(Date.UTC(2026, 0, 1, 9, 0, 0));
  });

  it('accepts zone ids in any case and stores them canonically', () => {
    const s = schedule('date', '2026-01-01T10:00:00@europe/berlin');
    expect(s).toEqual({ kind: 'date', text: '2026-01-01T10:00:00@europe/berlin', at: Date.UTC(2026, 0, 1, 9), zone: 'Europe/Berlin' });
  });

  it('moves a wall-clock time skipped by DST forward by the gap, as Java does', () => {
    // Berlin skips 02:00-03:00 on 29 March 2026; 02:30 becomes 03:30 CEST.
    expect(due('2026-03-29T02:30:00@Europe/Berlin')).toBe(Date.UTC(2026, 2, 29, 1, 30, 0));
  });

  it('takes the earlier instant for a wall-clock time repeated by DST, as Java does', () => {
    // Berlin repeats 02:00-03:00 on 25 October 2026; Java picks CEST (+02:00).
    expect(due('2026-10-25T02:30:00@Europe/Berlin')).toBe(Date.UTC(2026, 9, 25, 0, 30, 0));
  });

  it('knows leap days', () => {
    expect(due('2024-02-29T00:00:00Z', Date.UTC(2024, 0, 1))).toBe(Date.UTC(2024, 1, 29));
  });

  it('fires at once when the date is already past', () => {
    const now = Date.UTC(2026, 5, 1, 12, 0, 0);
    expect(due('2026-01-01T10:00:00Z', now)).toBe(now);
  });

  it('fires at the date itself when now is exactly that date', () => {
    expect(due('2026-01-01T10:00:00Z', Date.UTC(2026, 0, 1, 10))).toBe(Date.UTC(2026, 0, 1, 10));
  });

  it('fires only once', () => {
    expect(nextDue(schedule('date', '2026-01-01T10:00:00Z'), Date.UTC(2026, 0, 1, 10), 1)).toBeNull();
  });

  it('stores the instant and zone as plain JSON', () => {
    expect(schedule('date', '2026-01-01T10:00:00+02:00')).toEqual({
      kind: 'date',
      text: '2026-01-01T10:00:00+02:00',
      at: Date.UTC(2026, 0, 1, 8),
      zone: 'UTC+2',
    });
  });

  describe('rejects', () => {
    const EXAMPLE = 'e.g. 2026-01-01T10:00:00Z, 2026-01-01T10:00:00+02:00 or 2026-01-01T10:00:00@Europe/Berlin';

    it('an unknown zone', () => {
      expect(parseError('date', '2026-01-01T10:00:00@Mars/Olympus')).toBe(
        "'2026-01-01T10:00:00@Mars/Olympus' is not a valid ISO 8601 date-time: 'Mars/Olympus' is not a known time zone (use an IANA zone id such as Europe/Berlin).",
      );
    });

    it('a date-time without offset or zone', () => {
      expect(parseError('date', '2026-01-01T10:00:00')).toBe(
        "'2026-01-01T10:00:00' is not a valid ISO 8601 date-time: it has no time zone; add Z for UTC, an offset such as +02:00, or a zone such as @Europe/Berlin.",
      );
    });

    it('a date without a time', () => {
      expect(parseError('date', '2026-01-01')).toBe(`'2026-01-01' is not a valid ISO 8601 date-time: it has a date but no time of day; ${EXAMPLE}.`);
    });

    it('garbage', () => {
      expect(parseError('date', 'next tuesday')).toBe(
        `'next tuesday' is not a valid ISO 8601 date-time: expected a date and time with an offset or zone, ${EXAMPLE}.`,
      );
    });

    it('days and months that do not exist', () => {
      expect(parseError('date', '2026-02-29T10:00:00Z')).toBe(
        "'2026-02-29T10:00:00Z' is not a valid ISO 8601 date-time: you specified 29 (of type number) as a day, which is invalid.",
      );
      expect(parseError('date', '2026-13-01T10:00:00@Europe/Berlin')).toBe(
        "'2026-13-01T10:00:00@Europe/Berlin' is not a valid ISO 8601 date-time: you specified 13 (of type number) as a month, which is invalid.",
      );
    });

    it('an empty text', () => {
      expect(parseError('date', '')).toBe('The timer date is empty: expected an ISO 8601 date-time such as 2026-01-01T10:00:00Z.');
    });
  });
});
