/**
 * The stored shape of a parsed BPMN timer. A schedule is plain JSON data (no
 * classes, no Dates) because it lives in the instance document and in timer
 * rows; everything needed to compute due times later is in here, so the
 * original text never has to be parsed again.
 */

/**
 * An ISO 8601 duration split into its parts. Calendar parts (years, months,
 * weeks, days) are kept apart from exact ones because "P1M" from 31 January
 * and "P1D" across a daylight-saving change only mean something against a
 * calendar; all parts are non-negative integers.
 */
export interface DurationParts {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
  milliseconds: number;
}

/** `timeDuration`: fires once, the duration after the timer is started. */
export interface DurationSchedule {
  kind: 'duration';
  text: string;
  duration: DurationParts;
}

/** `timeDate`: fires once at a fixed instant (or at once if that is past). */
export interface DateSchedule {
  kind: 'date';
  text: string;
  /** The instant, epoch milliseconds. */
  at: number;
  /** The zone the date was written in (IANA id, or `UTC` / `UTC+2` for offsets). */
  zone: string;
}

/** `timeCycle` as an ISO 8601 repeating interval: `R5/PT10S`, `R/start/P1D`, `R/PT1H/end`. */
export interface IntervalCycleSchedule {
  kind: 'cycle';
  text: string;
  /** Total number of firings; null means unbounded (`R/…`). */
  repetitions: number | null;
  interval: DurationParts;
  /** The interval as written, for display. */
  intervalText: string;
  /** First firing, epoch ms, when the cycle names a start date. */
  start: number | null;
  /** No firing after this instant, epoch ms, when the cycle names an end date. */
  end: number | null;
  /** Zone used for calendar arithmetic: the start date's zone, otherwise UTC. */
  zone: string;
}

/** `timeCycle` as a cron expression (Spring / Camunda 8 style), evaluated in UTC. */
export interface CronSchedule {
  kind: 'cron';
  text: string;
  /** Normalised six-field expression: second minute hour day-of-month month day-of-week. */
  expression: string;
  zone: 'UTC';
}

export type TimerSchedule = DurationSchedule | DateSchedule | IntervalCycleSchedule | CronSchedule;

/** The BPMN timer definition the text came from. */
export type TimerType = 'duration' | 'date' | 'cycle';

export type ParseTimerResult = { ok: true; schedule: TimerSchedule } | { ok: false; error: string };

/** Internal result of the per-format parsers: the reason is completed into a sentence by parseTimer. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };
