/**
 * The one entry point from BPMN timer text to a stored schedule. It picks the
 * format for the timer definition (timeDuration, timeDate, timeCycle) and
 * turns a format's failure into one sentence that names the text and says
 * what is wrong, fit to show a modeller at deploy time.
 */
import { parseCron } from './cron.ts';
import { looksLikeRepeatingInterval, parseRepeatingInterval } from './cycle.ts';
import { parseIsoDateTime } from './date.ts';
import { parseIsoDuration } from './duration.ts';
import type { ParseTimerResult, TimerType } from './schedule-types.ts';

const EMPTY: Record<TimerType, string> = {
  duration: 'The timer duration is empty: expected an ISO 8601 duration such as PT10S or P1D.',
  date: 'The timer date is empty: expected an ISO 8601 date-time such as 2026-01-01T10:00:00Z.',
  cycle: 'The timer cycle is empty: expected a repeating interval such as R5/PT10S or a cron expression such as 0 0 9 * * MON-FRI.',
};

export function parseTimer(type: TimerType, text: string): ParseTimerResult {
  // Callers may hand over unchecked values from XML or JSON.
  if (typeof text !== 'string') return { ok: false, error: `The timer ${type} must be text.` };
  const trimmed = text.trim();
  if (!(type in EMPTY)) return { ok: false, error: `'${String(type)}' is not a timer type; expected duration, date or cycle.` };
  if (trimmed === '') return { ok: false, error: EMPTY[type] };
  if (trimmed.startsWith('=')) {
    return { ok: false, error: `'${trimmed}' is a FEEL expression; evaluate it first and parse the resulting text.` };
  }

  switch (type) {
    case 'duration': {
      const r = parseIsoDuration(trimmed);
      if (!r.ok) return fail(trimmed, 'ISO 8601 duration', r.reason);
      return { ok: true, schedule: { kind: 'duration', text: trimmed, duration: r.value } };
    }
    case 'date': {
      const r = parseIsoDateTime(trimmed);
      if (!r.ok) return fail(trimmed, 'ISO 8601 date-time', r.reason);
      return { ok: true, schedule: { kind: 'date', text: trimmed, at: r.value.at, zone: r.value.zone } };
    }
    case 'cycle': {
      if (looksLikeRepeatingInterval(trimmed)) {
        const r = parseRepeatingInterval(trimmed);
        if (!r.ok) return fail(trimmed, 'ISO 8601 repeating interval', r.reason);
        return { ok: true, schedule: { kind: 'cycle', text: trimmed, ...r.value } };
      }
      if (/^[-+]?P/i.test(trimmed)) {
        return fail(trimmed, 'timer cycle', `a cycle needs a repetition prefix, e.g. R/${trimmed} for unbounded or R5/${trimmed} for five firings`);
      }
      const r = parseCron(trimmed);
      if (!r.ok) return fail(trimmed, 'cron expression', r.reason);
      return { ok: true, schedule: { kind: 'cron', text: trimmed, expression: r.value, zone: 'UTC' } };
    }
  }
}

function fail(text: string, what: string, reason: string): { ok: false; error: string } {
  return { ok: false, error: `'${text}' is not a valid ${what}: ${reason}.` };
}
