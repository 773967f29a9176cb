// Boundary events: a host activity subscribes its timer, message and signal
// boundaries when it starts (error and escalation boundaries are passive: the throw looks for
// them). Triggering one either interrupts the host or starts a parallel
// token beside it.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance } from '../types.ts';
import { subscribeMessageEvent } from './messages.ts';
import { subscribeSignalEvent } from './signals.ts';
import { armTimer } from './timers.ts';

/** Arms the host's timer boundaries; false after an incident. */
export function subscribeBoundaries(exec: Execution, host: ElementInstance, node: FlowNode): boolean {
  for (const id of node.boundaryEvents) {
    const boundary = exec.model.elements[id];
    const kind = boundary.eventDefinition?.kind;
    if (kind === 'timer' && !armTimer(exec, boundary, host.key, host)) return false;
    if (kind === 'message') subscribeMessageEvent(exec, boundary, host.key, host);
    if (kind === 'signal') subscribeSignalEvent(exec, boundary, host.key, host);
  }
  return true;
}

export function triggerBoundary(exec: Execution, host: ElementInstance, boundary: FlowNode): void {
  if (boundary.cancelActivity === false) {
    exec.enter({ elementId: boundary.id, scopeKey: host.scopeKey, triggered: true });
    return;
  }
  // The boundary's token replaces the host's: queue it before releasing the
  // host's so the scope never looks empty in between.
  exec.terminateElement(host);
  exec.enter({ elementId: boundary.id, scopeKey: host.scopeKey, triggered: true });
  exec.adjustTokens(host.scopeKey, -1);
}

/** The boundary of `kind` on `node` that catches `code`: an exact code first, then a catch-all. */
export function findBoundary(exec: Execution, node: FlowNode, kind: 'error' | 'escalation', code: string): FlowNode | undefined {
  let catchAll: FlowNode | undefined;
  for (const id of node.boundaryEvents) {
    const boundary = exec.model.elements[id];
    const definition = boundary.eventDefinition;
    if (definition?.kind !== kind) continue;
    const expected = kind === 'error' ? definition.errorCode : definition.escalationCode;
    if (expected === code) return boundary;
    if (expected === undefined) catchAll ??= boundary;
  }
  return catchAll;
}
