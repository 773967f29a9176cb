/**
 * ISO 8601 repeating intervals for `timeCycle`: `R5/PT10S`, `R/PT1H`,
 * `R3/<start>/PT1H` and, beyond Camunda 8, `R/PT1H/<end>`. This module parses
 * them and computes their firings. The repetition count is the total number
 * of firings; a cycle with a start date fires on the grid start + k × interval,
 * other cycles an interval after the previous firing.
 */
import { addDuration, approxMillis, isZeroDuration, parseIsoDuration } from './duration.ts';
import { parseIsoDateTime } from './date.ts';
import type { IntervalCycleSchedule, Parsed } from './schedule-types.ts';

const FORMS = 'expected R5/PT10S, R/PT1H, R3/2026-01-01T00:00:00Z/PT1H or R/PT1H/2027-01-01T00:00:00Z';

/** Whether the text is meant as an ISO repeating interval rather than a cron expression. */
export function looksLikeRepeatingInterval(text: string): boolean {
  return /^R/i.test(text);
}

export function parseRepeatingInterval(text: string): Parsed<Omit<IntervalCycleSchedule, 'kind' | 'text'>> {
  if (/^R-/i.test(text)) return { ok: false, reason: 'the number of repetitions cannot be negative' };
  const head = /^R(\d*)\//i.exec(text);
  if (!head) return { ok: false, reason: `expected R (unbounded) or Rn (n firings), a slash, then the interval; ${FORMS}` };
  const repetitions = head[1] === '' ? null : Number(head[1]);
  if (repetitions !== null && (repetitions === 0 || !Number.isSafeInteger(repetitions))) {
    return {
      ok: false,
      reason:
        repetitions === 0
          ? 'R0 repeats zero times, so the timer would never fire; use R1 or more, or R for unbounded'
          : 'the number of repetitions is too large',
    };
  }

  const rest = text.slice(head[0].length);
  if (rest === '') return { ok: false, reason: `no interval follows ${head[0]}; ${FORMS}` };

  // Zone ids contain slashes (Europe/Berlin), so split around the duration, which never does.
  let intervalText: string;
  let startText: string | null = null;
  let endText: string | null = null;
  if (/^[-+]?P/i.test(rest)) {
    const slash = rest.indexOf('/');
    intervalText = slash === -1 ? rest : rest.slice(0, slash);
    endText = slash === -1 ? null : rest.slice(slash + 1);
  } else {
    const slash = rest.lastIndexOf('/');
    if (slash === -1) return { ok: false, reason: `'${rest}' is not a duration; ${FORMS}` };
    startText = rest.slice(0, slash);
    intervalText = rest.slice(slash + 1);
    if (!/^[-+]?P/i.test(intervalText)) {
      return { ok: false, reason: `the interval '${intervalText}' is not a duration (a start/end pair is not supported); ${FORMS}` };
    }
  }

  const interval = parseIsoDuration(intervalText);
  if (!interval.ok) {
    const reason = interval.reason.replace('negative durations are', 'negative intervals are');
    return { ok: false, reason: `the interval '${intervalText}' is not valid: ${reason}` };
  }
  if (isZeroDuration(interval.value)) {
    return { ok: false, reason: `the interval '${intervalText}' must be longer than zero` };
  }

  let start: number | null = null;
  let zone = 'UTC';
  if (startText !== null) {
    const parsed = parseIsoDateTime(startText);
    if (!parsed.ok) return { ok: false, reason: `the start '${startText}' is not a valid date-time: ${parsed.reason}` };
    start = parsed.value.at;
    zone = parsed.value.zone;
  }
  let end: number | null = null;
  if (endText !== null) {
    const parsed = parseIsoDateTime(endText);
    if (!parsed.ok) return { ok: false, reason: `the end '${endText}' is not a valid date-time: ${parsed.reason}` };
    end = parsed.value.at;
  }

  return { ok: true, value: { repetitions, interval: interval.value, intervalText, start, end, zone } };
}

/**
 * First firing: the start date (at once if it is past, as a past timeDate),
 * otherwise one interval from now. An end-bounded cycle always fires this
 * first time, even if it falls after the end: the end limits the repeats.
 */
export function cycleFirstDue(s: IntervalCycleSchedule, now: number): number {
  if (s.start !== null) return Math.max(s.start, now);
  return addDuration(now, s.interval, s.zone);
}

/**
 * The firing after one at `lastDue`, `firedCount` firings in, or null when
 * the repetitions are used up or the end is passed. With `now`, occurrences
 * already at or before now are skipped rather than fired in a burst (the
 * same re-anchoring Zeebe does after downtime).
 */
export function cycleNextDue(s: IntervalCycleSchedule, lastDue: number, firedCount: number, now?: number): number | null {
  if (s.repetitions !== null && firedCount >= s.repetitions) return null;
  let next: number;
  if (s.start !== null) {
    next = gridAfter(s, s.start, Math.max(lastDue, now ?? lastDue));
  } else {
    next = addDuration(lastDue, s.interval, s.zone);
    if (now !== undefined && next <= now) next = addDuration(now, s.interval, s.zone);
  }
  if (s.end !== null && next > s.end) return null;
  return next;
}

/** The first point start + k × interval (k ≥ 0) strictly after `after`. */
function gridAfter(s: IntervalCycleSchedule, start: number, after: number): number {
  if (start > after) return start;
  const at = (k: number) => addDuration(start, s.interval, s.zone, k);
  // Months and days vary in length, so the estimate can be off by a step either way.
  let k = Math.max(1, Math.floor((after - start) / approxMillis(s.interval)));
  while (k > 1 && at(k - 1) > after) k--;
  while (at(k) <= after) k++;
  return at(k);
}
