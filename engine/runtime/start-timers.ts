// Timer start events of a deployed process version: when each first fires.
// Their expressions are evaluated at deploy time without variables, as
// Camunda 8 does (there is no instance yet). Shared by every driver of the
// core — the in-memory engine and the partition leaders — so both schedule
// the same way.
import { evaluateFeel } from '../feel/index.ts';
import type { ProcessModel, ValueExpr } from '../model/types.ts';
import { timerText } from './behavior/timers.ts';
import { firstDue, parseTimer, type TimerSchedule } from '../timer/index.ts';

export interface StartTimer {
  elementId: string;
  schedule: TimerSchedule;
  dueAt: number;
}

function startTimerText(id: string, expr: ValueExpr): { ok: true; text: string } | { ok: false; error: string } {
  if (expr.kind === 'literal') return { ok: true, text: expr.value };
  const result = evaluateFeel(expr.source, {});
  const text = result.ok ? timerText(result.value) : undefined;
  if (text !== undefined) return { ok: true, text };
  const why = result.ok ? 'it gave no string, duration or date and time' : result.error;
  return { ok: false, error: `Timer start event '${id}': the expression '${expr.source}' could not be evaluated at deploy time: ${why}.` };
}

export function startTimersOf(process: ProcessModel, now: number): { ok: true; timers: StartTimer[] } | { ok: false; error: string } {
  const timers: StartTimer[] = [];
  for (const id of process.startEvents) {
    const timer = process.elements[id].eventDefinition?.timer;
    if (timer === undefined) continue;
    const text = startTimerText(id, timer.expr);
    if (!text.ok) return text;
    const parsed = parseTimer(timer.type, text.text);
    if (!parsed.ok) return { ok: false, error: `Timer start event '${id}': ${parsed.error}` };
    timers.push({ elementId: id, schedule: parsed.schedule, dueAt: firstDue(parsed.schedule, now) });
  }
  return { ok: true, timers };
}
