// Signal subscriptions and throws (extension, docs/signals.md, Zeebe's
// semantics): a signal catch event, a signal boundary event, an event
// subprocess with a signal start and an event-based gateway's signal branch
// open a subscription by signal name when their wait begins (no
// correlation key: a signal reaches every waiting subscription of its
// name). They share the message subscriptions' document field and effects,
// marked `signal`, so whoever indexes subscriptions hears of them the same
// way. A signal throw or end event broadcasts the signal with the
// variables visible at the element (the throwSignal effect); who delivers
// it is the driver's business. Without a broadcast these waits never fire.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance, MessageSubscription } from '../types.ts';
import { evaluateSource } from './expression.ts';
import { visibleVariables } from './variables.ts';

/** The signal name of `event` in `ei`'s view: a literal, or FEEL after '='; undefined when it gives no non-empty string. */
export function signalNameOf(exec: Execution, event: FlowNode, ei: ElementInstance): string | undefined {
  const raw = event.eventDefinition?.signalName;
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  if (!trimmed.startsWith('=')) return trimmed === '' ? undefined : trimmed;
  const value = evaluateSource(exec, ei, trimmed.slice(1));
  return value.ok && typeof value.value === 'string' && value.value !== '' ? value.value : undefined;
}

/** Opens the signal subscription of `event` (catch, boundary, event subprocess start, gateway branch) held by `ownerKey`. */
export function subscribeSignalEvent(exec: Execution, event: FlowNode, ownerKey: string, ei: ElementInstance): void {
  const name = signalNameOf(exec, event, ei);
  if (name === undefined) return;
  const subscription: MessageSubscription = { key: exec.nextKey(), name, correlationKey: '', elementId: event.id, ownerKey, signal: true };
  (exec.instance.subscriptions ??= {})[subscription.key] = subscription;
  exec.effect({ type: 'openSubscription', subscription });
}

/** The open signal subscriptions named `name`, in opening order. */
export function signalSubscriptions(subscriptions: Record<string, MessageSubscription> | undefined, name: string): MessageSubscription[] {
  const out: MessageSubscription[] = [];
  if (subscriptions === undefined) return out;
  for (const key in subscriptions) {
    const s = subscriptions[key];
    if (s.signal === true && s.name === name) out.push(s);
  }
  return out;
}

/** A signal throw or end event: the signal goes out with the variables the element sees. A name that evaluates to nothing throws nothing. */
export function throwSignal(exec: Execution, ei: ElementInstance, node: FlowNode): void {
  const name = signalNameOf(exec, node, ei);
  if (name === undefined) return;
  exec.effect({ type: 'throwSignal', name, variables: { ...visibleVariables(exec.instance, ei.key) } });
}
