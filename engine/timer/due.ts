/**
 * Due-time arithmetic over stored schedules: when a timer first fires and
 * when it fires again. Pure functions of the schedule and the instants passed
 * in; the clock belongs to the caller.
 */
import { cronNextAfter } from './cron.ts';
import { cycleFirstDue, cycleNextDue } from './cycle.ts';
import { addDuration } from './duration.ts';
import type { TimerSchedule } from './schedule-types.ts';

/**
 * Epoch ms of the first firing for a timer started at `now`: now + duration;
 * the date, or now when it is past; a cycle's start date (now when past) or
 * now + interval; the first cron match after now.
 */
export function firstDue(schedule: TimerSchedule, now: number): number {
  switch (schedule.kind) {
    case 'duration':
      // Durations count from now in UTC, as Camunda does on a UTC host.
      return addDuration(now, schedule.duration, 'UTC');
    case 'date':
      return Math.max(schedule.at, now);
    case 'cycle':
      return cycleFirstDue(schedule, now);
    case 'cron': {
      const due = cronNextAfter(schedule.expression, now);
      // parseTimer only accepts expressions that match; running out means a date past year 275760.
      if (due === null) throw new Error(`Cron expression '${schedule.text}' has no match after ${now}`);
      return due;
    }
  }
}

/**
 * Epoch ms of the firing after the one at `lastDue`, where `firedCount` is
 * the number of firings so far including that one; null when the timer is
 * done (durations and dates fire once, `R5/…` five times, end-bounded cycles
 * stop at the end). `now`, if given, skips occurrences that are already past
 * instead of returning them for an immediate burst of catch-up firings.
 */
export function nextDue(schedule: TimerSchedule, lastDue: number, firedCount: number, now?: number): number | null {
  switch (schedule.kind) {
    case 'duration':
    case 'date':
      return null;
    case 'cycle':
      return cycleNextDue(schedule, lastDue, firedCount, now);
    case 'cron':
      return cronNextAfter(schedule.expression, Math.max(lastDue, now ?? lastDue));
  }
}
