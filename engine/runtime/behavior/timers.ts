// Timer subscriptions: arming a timer for a timer event (catch, boundary,
// event subprocess start, event-based gateway branch), and withdrawing it
// when its owner leaves. Firing is a command (fireTimer) that
// behavior/fire-timer.ts routes.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import { firstDue, parseTimer } from '../timer/index.ts';
import type { ElementInstance } from '../types.ts';
import { describe, evaluateValue } from './expression.ts';
import { raiseIncident } from './incident.ts';

/**
 * Arms the timer of `event` for `owner` (an element instance, or the scope
 * key for event subprocesses via `ownerKey`). Returns false after raising an
 * incident on `incidentOn` when the timer expression is unusable.
 */
export function armTimer(exec: Execution, event: FlowNode, ownerKey: string, incidentOn: ElementInstance): boolean {
  const definition = event.eventDefinition?.timer;
  if (definition === undefined) return true;
  const text = evaluateValue(exec, incidentOn, definition.expr);
  if (!text.ok || typeof text.value !== 'string') {
    const why = text.ok ? `it gave ${describe(text.value)}, not a string` : text.error;
    raiseIncident(exec, incidentOn, 'EXTRACT_VALUE_ERROR', `The timer of '${event.id}' could not be determined: ${why}.`);
    return false;
  }
  const parsed = parseTimer(definition.type, text.value);
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
