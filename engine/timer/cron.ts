/**
 * Cron cycles as Camunda 8 accepts them (Spring's CronExpression): six
 * fields `second minute hour day-of-month month day-of-week`, names such as
 * MON-FRI and JAN, `?` for "any" in the day fields, `L` and `#`, and the
 * macros @yearly … @hourly. A five-field Unix expression is read with
 * second 0. Matching uses cron-parser, always in UTC with an explicit
 * reference time so the result never depends on the host clock or zone.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import type { Parsed } from './schedule-types.ts';

const DAY_MS = 86_400_000;

// Spring's macro set; cron-parser knows others (@weekdays …) that Camunda would reject.
const MACROS: Record<string, string> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week'];

/**
 * When both day fields are restricted, Spring requires both to match while
 * cron-parser (like Unix cron) accepts either, so matches are filtered. This
 * bounds the days tried; every satisfiable pair recurs well within it.
 */
const MAX_CANDIDATE_DAYS = 50_000;

/** A fixed reference for checking, at parse time, that an expression ever fires. */
const REFERENCE = Date.UTC(2000, 0, 1);

/** Parses and normalises a cron expression to six fields; the reason on failure is a clause for a modeller. */
export function parseCron(text: string): Parsed<string> {
  const macro = text.startsWith('@') ? MACROS[text.toLowerCase()] : undefined;
  if (text.startsWith('@') && macro === undefined) {
    return { ok: false, reason: `unknown macro; use one of ${Object.keys(MACROS).join(', ')}` };
  }
  const fields = (macro ?? text).split(/\s+/);
  if (fields.length === 5) fields.unshift('0');
  if (fields.length !== 6) {
    return {
      ok: false,
      reason: `expected 6 fields (second minute hour day-of-month month day-of-week) or 5 without the seconds, but found ${fields.length}`,
    };
  }
  for (const [i, field] of fields.entries()) {
    // cron-parser's H picks a random value; Spring has no such thing and timers must be deterministic.
    if (/(^|[^A-Z])H($|[^A-Z])/i.test(field)) {
      return { ok: false, reason: `the ${FIELD_NAMES[i]} field '${field}' uses H, which is not supported` };
    }
    if (field.includes('?') && i !== 3 && i !== 5) {
      return { ok: false, reason: `the ${FIELD_NAMES[i]} field '${field}' uses ?, which is only allowed for day-of-month and day-of-week` };
    }
  }
  const expression = fields.join(' ');
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: REFERENCE });
  } catch (err) {
    return { ok: false, reason: explain(err instanceof Error ? err.message : String(err)) };
  }
  if (cronNextAfter(expression, REFERENCE) === null) {
    return { ok: false, reason: 'it never matches a real date' };
  }
  return { ok: true, value: expression };
}

/** The first match strictly after `after` (epoch ms), or null if there is none. */
export function cronNextAfter(expression: string, after: number): number | null {
  try {
    const expr = parse(expression, after);
    if (expr.fields.dayOfMonth.isWildcard || expr.fields.dayOfWeek.isWildcard) return expr.next().getTime();

    const fields = expression.split(' ');
    const domOnly = parse([...fields.slice(0, 5), '*'].join(' '), after);
    const dowOnly = parse([...fields.slice(0, 3), '*', ...fields.slice(4)].join(' '), after);
    for (let i = 0; i < MAX_CANDIDATE_DAYS; i++) {
      const candidate = expr.next().getTime();
      const date = new Date(candidate);
      if (domOnly.includesDate(date) && dowOnly.includesDate(date)) return candidate;
      // The day fields are whole-day properties: skip the rest of this day.
      expr.reset(new Date(Math.floor(candidate / DAY_MS) * DAY_MS + DAY_MS - 1));
    }
    return null;
  } catch {
    // cron-parser throws when it runs past its search limit or the date range.
    return null;
  }
}

function parse(expression: string, after: number): CronExpression {
  return CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: after });
}

/** cron-parser's messages, reworded where they would puzzle a modeller. */
function explain(message: string): string {
  if (/explicit day of month/i.test(message)) {
    return 'its day-of-month never occurs in its months (such as 30 February), so it would never fire';
  }
  const chars = /^Invalid characters, got value: (.*)$/i.exec(message);
  if (chars) {
    const hint = /W/i.test(chars[1]) ? ' (W, the nearest weekday, is not supported)' : '';
    return `'${chars[1]}' is not a valid value for its field${hint}`;
  }
  const alias = /cannot resolve alias "(.*)"/i.exec(message);
  if (alias) return `it contains '${alias[1]}', which is not a month or day name (JAN-DEC, SUN-SAT)`;
  return message.charAt(0).toLowerCase() + message.slice(1);
}
