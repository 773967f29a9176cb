/**
 * Timer schedules for BPMN timer events (Camunda 8 semantics): parse the
 * text of a timeDuration, timeDate or timeCycle once into JSON data, then
 * compute due times from it with an injected clock. Neutral ground: the
 * model checks timer text at deploy time and the runtime schedules with it,
 * so it depends on neither.
 */
export { parseTimer } from './parse-timer.ts';
export { firstDue, nextDue } from './due.ts';
export type {
  CronSchedule,
  DateSchedule,
  DurationParts,
  DurationSchedule,
  IntervalCycleSchedule,
  ParseTimerResult,
  TimerSchedule,
  TimerType,
} from './schedule-types.ts';
