// Message subscriptions (extension, Zeebe's semantics): a message wait opens
// one when it begins, with its name and correlation key evaluated then, and
// closes it when its owner leaves. Correlating a published message to one is
// the correlateMessage command; whoever holds the buffered messages (the
// in-memory engine, the partition leader) hears of openings and closings
// through the openSubscription / closeSubscription effects. A wait whose
// name or key does not evaluate to a string (or a number, for the key) opens
// none: SPEC.md's behaviour (a job, or nothing) stays what it was.
import type { FlowNode, ValueExpr } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance, MessageSubscription } from '../types.ts';
import { evaluateSource, evaluateValue } from './expression.ts';

/** A correlation key as Zeebe compares it: a string, or a finite number as its decimal text. */
export function correlationKeyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Opens a subscription for `elementId` held by `ownerKey`, with a name and key already evaluated. */
export function openSubscription(exec: Execution, elementId: string, ownerKey: string, name: string, correlationKey: string): void {
  const subscription: MessageSubscription = { key: exec.nextKey(), name, correlationKey, elementId, ownerKey };
  (exec.instance.subscriptions ??= {})[subscription.key] = subscription;
  exec.effect({ type: 'openSubscription', subscription });
}

/** Evaluates the message of `event` (boundary, event subprocess start) in `ei`'s view and opens its subscription. */
export function subscribeMessageEvent(exec: Execution, event: FlowNode, ownerKey: string, ei: ElementInstance): void {
  const definition = event.eventDefinition;
  if (definition?.messageName === undefined || definition.correlationKey === undefined) return;
  const name = evaluateName(exec, ei, definition.messageName);
  if (name === undefined) return;
  const key = evaluateSource(exec, ei, definition.correlationKey);
  const text = key.ok ? correlationKeyText(key.value) : undefined;
  if (text !== undefined) openSubscription(exec, event.id, ownerKey, name, text);
}

function evaluateName(exec: Execution, ei: ElementInstance, expr: ValueExpr): string | undefined {
  const name = evaluateValue(exec, ei, expr);
  return name.ok && typeof name.value === 'string' && name.value !== '' ? name.value : undefined;
}

export function closeSubscription(exec: Execution, key: string): void {
  const subscriptions = exec.instance.subscriptions;
  const subscription = subscriptions?.[key];
  if (subscription === undefined) return;
  delete subscriptions![key];
  exec.effect({ type: 'closeSubscription', subscription });
}

/** Closes every subscription `ownerKey` holds. */
export function closeSubscriptionsOf(exec: Execution, ownerKey: string): void {
  const subscriptions = exec.instance.subscriptions;
  if (subscriptions === undefined) return;
  for (const key in subscriptions) if (subscriptions[key].ownerKey === ownerKey) closeSubscription(exec, key);
}

/** The subscription a message reaches: the one named, else the first opened that matches name and key. */
export function findSubscription(
  subscriptions: Record<string, MessageSubscription> | undefined,
  name: string,
  correlationKey: string,
  key?: string,
): MessageSubscription | undefined {
  if (subscriptions === undefined) return undefined;
  if (key !== undefined) {
    const named = subscriptions[key];
    return named !== undefined && named.signal !== true && named.name === name && named.correlationKey === correlationKey ? named : undefined;
  }
  for (const k in subscriptions) {
    const s = subscriptions[k];
    if (s.signal !== true && s.name === name && s.correlationKey === correlationKey) return s;
  }
  return undefined;
}
