/**
 * Helpers shared by the timer tests: unwrap a parse that must succeed and
 * run a schedule forward the way the partition leader would.
 */
import { firstDue, nextDue } from './due.ts';
import { parseTimer } from './parse-timer.ts';
import type { TimerSchedule, TimerType } from './schedule-types.ts';

export function schedule(type: TimerType, text: string): TimerSchedule {
  const r = parseTimer(type, text);
  if (!r.ok) throw new Error(`expected '${text}' to parse: ${r.error}`);
  return r.schedule;
}

export function parseError(type: TimerType, text: string): string {
  const r = parseTimer(type, text);
  if (r.ok) throw new Error(`expected '${text}' to be rejected, got ${JSON.stringify(r.schedule)}`);
  return r.error;
}

/** Every due time from `now`, firing each on time, stopping at null or after `limit` firings. */
export function firings(s: TimerSchedule, now: number, limit = 20): number[] {
  const dues = [firstDue(s, now)];
  while (dues.length < limit) {
    const next = nextDue(s, dues[dues.length - 1], dues.length);
    if (next === null) break;
    dues.push(next);
  }
  return dues;
}
