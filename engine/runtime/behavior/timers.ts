// Timer subscriptions: arming a timer for a timer event (catch, boundary,
// event subprocess start, event-based gateway branch), and withdrawing it
// when its owner leaves. Firing is a command (fireTimer) that apply.ts
// hands to the processor of the timer's event or of its owner.
import { FeelDateTime, FeelDuration } from 'feelin';
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import { firstDue, parseTimer } from '../../timer/index.ts';
import type { ElementInstance } from '../types.ts';
import { describe, evaluateValue } from './expression.ts';
import { raiseIncident } from './incident.ts';

/**
 * The timer text of an evaluated timer expression: a string as is, and a FEEL
 * duration or date and time (`=duration(timeout)`, `=now() + duration("PT1M")`)
 * as its ISO 8601 form, as Camunda 8 accepts both. Undefined for anything else.
 */
export function timerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof FeelDuration || value instanceof FeelDateTime) return value.toString();
  return undefined;
}

/**
 * Arms the timer of `event` for `owner` (an element instance, or the scope
 * key for event subprocesses via `ownerKey`). Returns false after raising an
 * incident on `incidentOn` when the timer expression is unusable.
 */
export function armTimer(exec: Execution, event: FlowNode, ownerKey: string, incidentOn: ElementInstance): boolean {
  const definition = event.eventDefinition?.timer;
  if (definition === undefined) return true;
  const evaluated = evaluateValue(exec, incidentOn, definition.expr);
  const text = evaluated.ok ? timerText(evaluated.value) : undefined;
  if (text === undefined) {
    const why = evaluated.ok ? `it gave ${describe(evaluated.value)}, not a string, duration or date and time` : evaluated.error;
    raiseIncident(exec, incidentOn, 'EXTRACT_VALUE_ERROR', `The timer of '${event.id}' could not be determined: ${why}.`);
    return false;
  }
  const parsed = parseTimer(definition.type, text);
  if (!parsed.ok) {
    raiseIncident(exec, incidentOn, 'EXTRACT_VALUE_ERROR', `The timer of '${event.id}' is invalid: ${parsed.error}`);
    return false;
  }
  const key = exec.nextKey();
  const dueAt = firstDue(parsed.schedule, exec.now);
  exec.instance.timers[key] = { key, elementId: event.id, ownerKey, dueAt, schedule: parsed.schedule, firedCount: 0 };
  exec.record('TIMER_CREATED', { elementId: event.id, detail: { timerKey: key, dueAt } });
  exec.effect({ type: 'scheduleTimer', timerKey: key, dueAt, elementId: event.id });
  return true;
}

export function cancelTimer(exec: Execution, timerKey: string): void {
  const timer = exec.instance.timers[timerKey];
  if (timer === undefined) return;
  delete exec.instance.timers[timerKey];
  exec.record('TIMER_CANCELED', { elementId: timer.elementId, detail: { timerKey } });
  exec.effect({ type: 'cancelTimer', timerKey });
}

/** Withdraws every timer `ownerKey` holds. */
export function cancelTimersOf(exec: Execution, ownerKey: string): void {
  for (const key in exec.instance.timers) if (exec.instance.timers[key].ownerKey === ownerKey) cancelTimer(exec, key);
}
