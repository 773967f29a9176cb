// Event subprocesses: a scope (the process or an embedded subprocess)
// subscribes the timer, message and signal starts of its event subprocesses when it starts;
// error and escalation starts are found by the throw. An interrupting one
// ends everything else in its scope first.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import { subscribeMessageEvent } from './messages.ts';
import { subscribeSignalEvent } from './signals.ts';
import { armTimer } from './timers.ts';

/** Event subprocess ids directly inside the scope `scopeKey`. */
export function eventSubProcessesOf(exec: Execution, scopeKey: string): string[] {
  if (scopeKey === exec.instance.key) return exec.model.eventSubProcesses;
  const scope = exec.instance.elements[scopeKey];
  // An ad-hoc subprocess's inner instances share its element id, not its event subprocesses.
  if (scope.adHoc?.inner) return [];
  return exec.model.elements[scope.elementId].eventSubProcesses ?? [];
}

/** Arms the timer starts of the scope's event subprocesses; false after an incident. */
export function subscribeEventSubProcesses(exec: Execution, scopeKey: string): boolean {
  for (const id of eventSubProcessesOf(exec, scopeKey)) {
    for (const startId of exec.model.elements[id].startEvents ?? []) {
      const start = exec.model.elements[startId];
      const kind = start.eventDefinition?.kind;
      if (kind !== 'timer' && kind !== 'message' && kind !== 'signal') continue;
      // Expressions read the scope; an incident lands on the start event.
      const probe = { key: exec.nextKey(), elementId: start.id, scopeKey };
      if (kind === 'message') subscribeMessageEvent(exec, start, scopeKey, probe);
      else if (kind === 'signal') subscribeSignalEvent(exec, start, scopeKey, probe);
      else if (!armTimer(exec, start, scopeKey, probe)) return false;
    }
  }
  return true;
}

export function triggerEventSubProcess(exec: Execution, scopeKey: string, start: FlowNode): void {
  const eventSubProcess = start.parent!;
  if (start.isInterrupting !== false) exec.terminateChildren(scopeKey);
  exec.enter({ elementId: eventSubProcess, scopeKey, startEventId: start.id });
}

/** The start event of an event subprocess in `scopeKey` that catches `code`: an exact code first, then a catch-all. */
export function findEventSubProcessStart(exec: Execution, scopeKey: string, kind: 'error' | 'escalation', code: string): FlowNode | undefined {
  let catchAll: FlowNode | undefined;
  for (const id of eventSubProcessesOf(exec, scopeKey)) {
    for (const startId of exec.model.elements[id].startEvents ?? []) {
      const start = exec.model.elements[startId];
      const definition = start.eventDefinition;
      if (definition?.kind !== kind) continue;
      const expected = kind === 'error' ? definition.errorCode : definition.escalationCode;
      if (expected === code) return start;
      if (expected === undefined) catchAll ??= start;
    }
  }
  return catchAll;
}
