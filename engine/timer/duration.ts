/**
 * ISO 8601 durations as Camunda 8 reads them (Java's Period + Duration):
 * `PnYnMnWnDTnHnMnS`, a fraction only on the seconds, no negative parts.
 * This module parses the text into DurationParts and adds parts to an
 * instant with calendar rules (via luxon) in a given zone.
 */
import { DateTime } from 'luxon';
import type { DurationParts, Parsed } from './schedule-types.ts';

const DAY_MS = 86_400_000;

/** Longest duration accepted; far beyond any real timer, but keeps every due time a valid JS date. */
const MAX_YEARS = 10_000;

// Upper-cased before matching: Java accepts lower-case designators too.
const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d+))?S)?)?$/;

const EXAMPLES = 'expected the form PnYnMnWnDTnHnMnS, e.g. PT10S, P1D or P1DT2H30M';

export const ZERO_DURATION: DurationParts = {
  years: 0,
  months: 0,
  weeks: 0,
  days: 0,
  hours: 0,
  minutes: 0,
  seconds: 0,
  milliseconds: 0,
};

/** Parses an ISO 8601 duration; the reason on failure is a clause for a modeller. */
export function parseIsoDuration(text: string): Parsed<DurationParts> {
  const upper = text.toUpperCase();
  if (upper.includes('-')) return { ok: false, reason: 'negative durations are not allowed' };
  if (!upper.startsWith('P')) return { ok: false, reason: `a duration starts with P; ${EXAMPLES}` };
  if (/[.,]\d*[YMWDH]/.test(upper)) {
    return { ok: false, reason: 'only the seconds may have a fraction (e.g. PT0.5S), not years, months, weeks, days, hours or minutes' };
  }
  const m = DURATION.exec(upper);
  if (!m) return { ok: false, reason: EXAMPLES };
  const [, y, mo, w, d, h, mi, s, frac] = m;
  if ([y, mo, w, d, h, mi, s].every((g) => g === undefined)) {
    return { ok: false, reason: `it names no amount of time (write PT0S for zero); ${EXAMPLES}` };
  }
  if (upper.includes('T') && [h, mi, s].every((g) => g === undefined)) {
    return { ok: false, reason: `a T must be followed by hours, minutes or seconds; ${EXAMPLES}` };
  }
  const parts: DurationParts = {
    years: num(y),
    months: num(mo),
    weeks: num(w),
    days: num(d),
    hours: num(h),
    minutes: num(mi),
    seconds: num(s),
    // Millisecond precision is all the engine keeps; finer digits are dropped as Java's toMillis() does.
    milliseconds: frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0')),
  };
  if (approxMillis(parts) > MAX_YEARS * 365.2425 * DAY_MS) {
    return { ok: false, reason: `it is longer than ${MAX_YEARS} years` };
  }
  return { ok: true, value: parts };
}

function num(group: string | undefined): number {
  // Long digit strings lose precision, but anything that large fails the MAX_YEARS check anyway.
  return group === undefined ? 0 : Number(group);
}

export function isZeroDuration(d: DurationParts): boolean {
  return approxMillis(d) === 0;
}

/**
 * Rough length using average Gregorian months and years. Only for bounds and
 * for estimating how many intervals fit between two instants, never for a due time.
 */
export function approxMillis(d: DurationParts): number {
  return (
    d.years * 365.2425 * DAY_MS +
    d.months * 30.436875 * DAY_MS +
    d.weeks * 7 * DAY_MS +
    d.days * DAY_MS +
    d.hours * 3_600_000 +
    d.minutes * 60_000 +
    d.seconds * 1_000 +
    d.milliseconds
  );
}

/**
 * `from` plus `times` × the duration, in `zone`. Calendar parts move the wall
 * clock (31 Jan + P1M = 28/29 Feb, P1D keeps the time of day across DST) and
 * time parts are exact, the same split Java's ZonedDateTime.plus(Period).plus(Duration)
 * makes. Multiplying instead of adding repeatedly keeps a monthly cycle from
 * 31 January on the 31st wherever the month has one.
 */
export function addDuration(from: number, d: DurationParts, zone: string, times = 1): number {
  const result = DateTime.fromMillis(from, { zone }).plus({
    years: d.years * times,
    months: d.months * times,
    weeks: d.weeks * times,
    days: d.days * times,
    hours: d.hours * times,
    minutes: d.minutes * times,
    seconds: d.seconds * times,
    milliseconds: d.milliseconds * times,
  });
  return result.toMillis();
}
