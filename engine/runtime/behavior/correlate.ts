// Correlating a published message to one of an instance's subscriptions,
// or a broadcast signal to all of its signal subscriptions (extension):
// what happens depends on who holds it. A job-based wait (receive task,
// message catch event, an event-based gateway's branch; a signal catch
// event has no job)
// completes as if its job had been completed, and the job is withdrawn;
// a boundary event triggers on its host; an event subprocess start starts
// its subprocess in the scope. Interrupting or not is the event's own flag.
// The message's variables land where Zeebe puts them: in the waiting
// element (through its output mappings, if any), or the boundary's or
// event subprocess's flow scope.
import type { Execution } from '../execution.ts';
import { win } from '../gateway/event-based-gateway.ts';
import { processorFor } from '../processors.ts';
import type { MessageSubscription, Variables } from '../types.ts';
import { triggerBoundary } from './boundary.ts';
import { triggerEventSubProcess } from './event-subprocess.ts';
import { cancelJob } from './job.ts';
import { closeSubscription } from './messages.ts';
import { mergeResultVariables, setPropagatedVariable } from './variables.ts';

export function correlate(exec: Execution, subscription: MessageSubscription, messageKey: string, variables: Variables | undefined): void {
  (exec.instance.correlatedMessages ??= []).push(messageKey);
  exec.record('MESSAGE_CORRELATED', {
    elementId: subscription.elementId,
    detail: { messageKey, name: subscription.name, correlationKey: subscription.correlationKey },
  });
  trigger(exec, subscription, variables);
}

/**
 * Extension (signals): a broadcast signal reaches every open signal
 * subscription of its name in the instance, once; one it triggered may
 * have closed a later one (an interrupting event ended its owner), which
 * it then skips.
 */
export function receiveSignal(exec: Execution, subscriptions: MessageSubscription[], signalKey: string, variables: Variables | undefined): void {
  (exec.instance.correlatedMessages ??= []).push(signalKey);
  for (const subscription of subscriptions) {
    if (exec.instance.subscriptions?.[subscription.key] === undefined) continue;
    exec.record('SIGNAL_RECEIVED', { elementId: subscription.elementId, detail: { signalKey, name: subscription.name } });
    trigger(exec, subscription, variables);
  }
}

function trigger(exec: Execution, subscription: MessageSubscription, variables: Variables | undefined): void {
  const instance = exec.instance;
  const event = exec.model.elements[subscription.elementId];
  if (event.type === 'boundaryEvent') {
    const host = instance.elements[subscription.ownerKey];
    // An interrupting boundary ends its host, and the host's end closes this subscription.
    setVariables(exec, host.scopeKey, variables);
    triggerBoundary(exec, host, event);
    return;
  }
  if (event.type === 'startEvent') {
    if (event.isInterrupting !== false) closeSubscription(exec, subscription.key);
    setVariables(exec, subscription.ownerKey, variables);
    triggerEventSubProcess(exec, subscription.ownerKey, event);
    return;
  }
  // A job-based wait: the element (or the gateway holding the branch) goes on as if its job were completed.
  closeSubscription(exec, subscription.key);
  const ei = instance.elements[subscription.ownerKey];
  const node = exec.model.elements[ei.elementId];
  let job;
  for (const key in instance.jobs) {
    const candidate = instance.jobs[key];
    if (candidate.elementInstanceKey === ei.key && candidate.elementId === event.id) job = candidate;
  }
  if (job !== undefined) {
    cancelJob(exec, job.key);
    if (ei.jobKey === job.key) ei.jobKey = undefined;
  }
  if (variables !== undefined) mergeResultVariables(instance, ei, node.outputs.length > 0, variables);
  const processor = processorFor(node);
  if (job !== undefined && processor.jobCompleted !== undefined) processor.jobCompleted(exec, ei, node, job);
  // A signal branch of an event-based gateway has no job: the gateway takes that branch.
  else if (node.type === 'eventBasedGateway') win(exec, ei, node, event.id);
  else exec.completeElement(ei, node);
}

function setVariables(exec: Execution, scopeKey: string, variables: Variables | undefined): void {
  if (variables === undefined) return;
  for (const name of Object.keys(variables)) setPropagatedVariable(exec.instance, scopeKey, name, variables[name]);
}
