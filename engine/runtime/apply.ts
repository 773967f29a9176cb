// The engine core's entry point: apply(instance, command, ctx) →
// { instance', records, effects } (DESIGN.md §3). Deterministic: the clock
// and key source come from ctx, nothing here does I/O.
//
// For speed the given instance document is updated in place and returned;
// a caller that must keep the state before the command passes a copy
// (structuredClone). A rejected command leaves the document untouched.
import { subscribeEventSubProcesses } from './behavior/event-subprocess.ts';
import { correlate, receiveSignal } from './behavior/correlate.ts';
import { raiseIncident, setAside } from './behavior/incident.ts';
import { activationTimedOut, holdJob, releaseHold } from './behavior/activation-timeout.ts';
import { findSubscription } from './behavior/messages.ts';
import { signalSubscriptions } from './behavior/signals.ts';
import { jobOffer } from './behavior/job.ts';
import { armRetryBackOff, retryBackOffPassed } from './behavior/retry-back-off.ts';
import { raiseUnhandledError, throwChildError, throwChildEscalation, throwJobError } from './behavior/throw.ts';
import { mergeResultVariables } from './behavior/variables.ts';
import { activateFromOutside, activationProblem, jobResultProblem } from './container/ad-hoc-sub-process.ts';
import { Execution } from './execution.ts';
import { processorFor } from './processors.ts';
import { nextDue } from '../timer/index.ts';
import type { ApplyContext, ApplyResult, Command, ElementInstance, ProcessInstance, Variables } from './types.ts';

type Rejection = Extract<ApplyResult, { ok: false }>;

export function apply(instance: ProcessInstance | null, command: Command, ctx: ApplyContext): ApplyResult {
  if (command.type === 'start') return start(command, ctx);
  if (instance === null) return { ok: false, code: 'NOT_FOUND', message: 'The process instance does not exist.' };
  if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') return ended(instance, command);
  if (instance.setAside !== undefined && command.type !== 'cancel') {
    return {
      ok: false,
      code: 'INVALID_STATE',
      message: `Process instance '${instance.key}' was set aside and takes no more commands but cancel: ${instance.setAside}`,
    };
  }
  switch (command.type) {
    case 'completeJob':
      return completeJob(instance, command, ctx);
    case 'failJob':
      return failJob(instance, command, ctx);
    case 'throwJobError':
      return jobError(instance, command, ctx);
    case 'holdJob':
      return hold(instance, command, ctx);
    case 'cancel':
      return run(instance, ctx, (exec) => {
        exec.terminateChildren(instance.key);
        exec.endInstance('TERMINATED');
      });
    case 'activateAdHocElements':
      return activateAdHoc(instance, command, ctx);
    case 'fireTimer':
      return fireTimer(instance, command.timerKey, ctx);
    case 'childCompleted':
      return withCallActivity(instance, command.elementInstanceKey, ctx, (exec, ei) => {
        const node = ctx.model.elements[ei.elementId];
        processorFor(node).calledInstanceCompleted?.(exec, ei, node, command.variables);
      });
    case 'childError':
      return withCallActivity(instance, command.elementInstanceKey, ctx, (exec, ei) => {
        if (!throwChildError(exec, ei, command.errorCode, command.errorMessage, command.variables)) {
          // Nobody here catches it either: the child raises the incident where it was thrown.
          exec.effect({
            type: 'sendCommand',
            instanceKey: command.childInstanceKey,
            command: { type: 'errorUnhandled', elementInstanceKey: command.throwingElementInstanceKey },
          });
        }
      });
    case 'childEscalation':
      return withCallActivity(instance, command.elementInstanceKey, ctx, (exec, ei) => throwChildEscalation(exec, ei, command.escalationCode));
    case 'correlateMessage':
      return correlateMessage(instance, command, ctx);
    case 'receiveSignal':
      return signal(instance, command, ctx);
    case 'setAside':
      return run(instance, ctx, (exec) => setAside(exec, command.message, command.elementInstanceKey));
    case 'errorUnhandled': {
      const thrower = instance.elements[command.elementInstanceKey];
      if (thrower?.pendingError === undefined) return notFound(`No error is pending at element instance '${command.elementInstanceKey}'.`);
      return run(instance, ctx, (exec) => raiseUnhandledError(exec, thrower));
    }
  }
}

function notFound(message: string): Rejection {
  return { ok: false, code: 'NOT_FOUND', message };
}

function ended(instance: ProcessInstance, command: Command): Rejection {
  const state = instance.state.toLowerCase();
  switch (command.type) {
    case 'cancel':
      return { ok: false, code: 'INVALID_STATE', message: `Process instance '${instance.key}' cannot be cancelled: it is already ${state}.` };
    case 'completeJob':
    case 'failJob':
    case 'throwJobError':
      return notFound(`Job '${command.jobKey}' not found: process instance '${instance.key}' is ${state}.`);
    default:
      return notFound(`Process instance '${instance.key}' is ${state}; nothing waits for this command.`);
  }
}

/** Runs `body` over the instance, then the agenda, and collects the outcome. */
function run(instance: ProcessInstance, ctx: ApplyContext, body: (exec: Execution) => void): ApplyResult {
  const exec = new Execution(instance, ctx);
  body(exec);
  exec.run();
  return { ok: true, instance, records: exec.records, effects: exec.effects };
}

function isVariables(value: unknown): value is Variables {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const BAD_VARIABLES: Rejection = { ok: false, code: 'INVALID_ARGUMENT', message: 'variables must be a JSON object (name → value).' };

function start(command: Extract<Command, { type: 'start' }>, ctx: ApplyContext): ApplyResult {
  const variables = command.variables ?? {};
  if (!isVariables(variables)) return BAD_VARIABLES;
  const model = ctx.model;
  const startEvent = command.startEventId ?? model.noneStartEvent;
  if (startEvent === undefined) {
    return { ok: false, code: 'INVALID_STATE', message: `Process '${model.id}' has no none start event, so it cannot be started by a request.` };
  }
  if (!model.startEvents.includes(startEvent))
    return { ok: false, code: 'INVALID_ARGUMENT', message: `'${startEvent}' is not a start event of process '${model.id}'.` };
  const key = command.processInstanceKey ?? ctx.nextKey();
  const instance: ProcessInstance = {
    key,
    bpmnProcessId: model.id,
    version: command.version ?? 1,
    state: 'ACTIVE',
    children: 0,
    elements: {},
    variables: { [key]: { ...variables } },
    jobs: {},
    incidents: {},
    joins: {},
    timers: {},
    startedAt: 0,
  };
  if (command.parent !== undefined) instance.parent = command.parent;
  if (command.depth !== undefined && command.depth > 0) instance.depth = command.depth;
  if (command.signalGeneration !== undefined && command.signalGeneration > 0) instance.signalGeneration = command.signalGeneration;
  if (command.message !== undefined) instance.startedByMessage = { ...command.message };
  return run(instance, ctx, (exec) => {
    instance.startedAt = exec.now;
    exec.record('PROCESS_INSTANCE_STARTED', { elementId: model.id, elementType: 'process', detail: { version: instance.version } });
    if (model.eventSubProcesses.length > 0 && !subscribeEventSubProcesses(exec, key)) return;
    exec.enter({ elementId: startEvent, scopeKey: key });
  });
}

function completeJob(instance: ProcessInstance, command: Extract<Command, { type: 'completeJob' }>, ctx: ApplyContext): ApplyResult {
  const { jobKey, variables, result } = command;
  const job = instance.jobs[jobKey];
  if (job === undefined) return notFound(`Job '${jobKey}' not found: it was completed or cancelled, or never existed.`);
  if (job.state === 'FAILED') {
    return { ok: false, code: 'INVALID_STATE', message: `Job '${jobKey}' failed with no retries left; its incident keeps the instance in INCIDENT.` };
  }
  if (variables !== undefined && !isVariables(variables)) return BAD_VARIABLES;
  if (result !== undefined) {
    const problem = jobResultProblem(ctx.model.elements[job.elementId], result);
    if (problem !== undefined) return { ok: false, code: 'INVALID_ARGUMENT', message: problem };
  }
  return run(instance, ctx, (exec) => {
    const ei = instance.elements[job.elementInstanceKey];
    const node = ctx.model.elements[ei.elementId];
    delete instance.jobs[jobKey];
    if (ei.jobKey === jobKey) ei.jobKey = undefined;
    exec.record('JOB_COMPLETED', { elementId: job.elementId, elementInstanceKey: ei.key, jobKey, detail: { variables: Object.keys(variables ?? {}) } });
    if (variables !== undefined) mergeResultVariables(instance, ei, node.outputs.length > 0, variables);
    const processor = processorFor(node);
    if (processor.jobCompleted !== undefined) processor.jobCompleted(exec, ei, node, job, result);
    else exec.completeElement(ei, node);
  });
}

function activateAdHoc(instance: ProcessInstance, command: Extract<Command, { type: 'activateAdHocElements' }>, ctx: ApplyContext): ApplyResult {
  const ei = instance.elements[command.elementInstanceKey];
  const node = ei === undefined ? undefined : ctx.model.elements[ei.elementId];
  if (ei === undefined || node?.type !== 'adHocSubProcess' || ei.adHoc?.inner === true) {
    return notFound(`No active ad-hoc subprocess '${command.elementInstanceKey}' in process instance '${instance.key}'.`);
  }
  const problem = activationProblem(node, command.elements);
  if (problem !== undefined) return { ok: false, code: 'INVALID_ARGUMENT', message: problem };
  return run(instance, ctx, (exec) => activateFromOutside(exec, ei, node, command.elements));
}

function failJob(instance: ProcessInstance, command: Extract<Command, { type: 'failJob' }>, ctx: ApplyContext): ApplyResult {
  const { jobKey, retries, errorMessage, retryBackOff } = command;
  const job = instance.jobs[jobKey];
  if (job === undefined) return notFound(`Job '${jobKey}' not found: it was completed or cancelled, or never existed.`);
  if (job.state === 'FAILED') return { ok: false, code: 'INVALID_STATE', message: `Job '${jobKey}' already failed with no retries left.` };
  if (!Number.isInteger(retries) || retries < 0) {
    return { ok: false, code: 'INVALID_ARGUMENT', message: `retries must be a whole number of at least 0, not ${String(retries)}.` };
  }
  if (retryBackOff !== undefined && !(Number.isInteger(retryBackOff) && retryBackOff >= 0)) {
    return { ok: false, code: 'INVALID_ARGUMENT', message: `retryBackOff must be a whole number of milliseconds, at least 0, not ${String(retryBackOff)}.` };
  }
  return run(instance, ctx, (exec) => {
    releaseHold(exec, job);
    job.retries = retries;
    job.errorMessage = errorMessage;
    exec.record('JOB_FAILED', { elementId: job.elementId, elementInstanceKey: job.elementInstanceKey, jobKey, detail: { retries, errorMessage } });
    if (retries > 0) {
      // SPEC.md: a failed job with retries left is offered again at once; with a retryBackOff (extension), when it has passed.
      if (retryBackOff) armRetryBackOff(exec, job, retryBackOff);
      else exec.effect({ type: 'enqueueJob', job: jobOffer(instance, job) });
      return;
    }
    job.state = 'FAILED';
    const ei = instance.elements[job.elementInstanceKey];
    raiseIncident(exec, ei, 'JOB_NO_RETRIES', errorMessage ? `No more retries left: ${errorMessage}` : 'No more retries left.', jobKey);
  });
}

/**
 * A worker threw a BPMN error for its job: the job is withdrawn and the
 * error thrown from the job's element, as an error end event there would.
 */
function jobError(instance: ProcessInstance, command: Extract<Command, { type: 'throwJobError' }>, ctx: ApplyContext): ApplyResult {
  const { jobKey } = command;
  const job = instance.jobs[jobKey];
  if (job === undefined) return notFound(`Job '${jobKey}' not found: it was completed or cancelled, or never existed.`);
  if (job.state === 'FAILED') {
    return { ok: false, code: 'INVALID_STATE', message: `Job '${jobKey}' failed with no retries left; its incident keeps the instance in INCIDENT.` };
  }
  if (command.variables !== undefined && !isVariables(command.variables)) return BAD_VARIABLES;
  return run(instance, ctx, (exec) => {
    const ei = instance.elements[job.elementInstanceKey];
    delete instance.jobs[jobKey];
    if (ei.jobKey === jobKey) ei.jobKey = undefined;
    exec.effect({ type: 'cancelJob', jobKey, jobType: job.type });
    throwJobError(exec, ei, jobKey, command.errorCode, command.errorMessage, command.variables);
  });
}

function hold(instance: ProcessInstance, command: Extract<Command, { type: 'holdJob' }>, ctx: ApplyContext): ApplyResult {
  const job = instance.jobs[command.jobKey];
  if (job === undefined) return notFound(`Job '${command.jobKey}' not found: it was completed or cancelled, or never existed.`);
  if (job.state === 'FAILED') return { ok: false, code: 'INVALID_STATE', message: `Job '${command.jobKey}' failed with no retries left.` };
  if (!(Number.isInteger(command.timeout) && command.timeout > 0)) {
    return { ok: false, code: 'INVALID_ARGUMENT', message: `timeout must be a whole number of milliseconds above 0, not ${String(command.timeout)}.` };
  }
  return run(instance, ctx, (exec) => holdJob(exec, job, command.worker, command.timeout));
}

function fireTimer(instance: ProcessInstance, timerKey: string, ctx: ApplyContext): ApplyResult {
  const timer = instance.timers[timerKey];
  if (timer === undefined) return notFound(`Timer '${timerKey}' not found: it already fired or was cancelled.`);
  // A duplicate or early fire (a repeating timer already re-armed) must not fire it ahead of time.
  if (ctx.now() < timer.dueAt)
    return { ok: false, code: 'INVALID_STATE', message: `Timer '${timerKey}' is not due until ${new Date(timer.dueAt).toISOString()}.` };
  if (timer.activationTimeout) return run(instance, ctx, (exec) => activationTimedOut(exec, timer));
  if (timer.jobKey !== undefined) return run(instance, ctx, (exec) => retryBackOffPassed(exec, timer));
  return run(instance, ctx, (exec) => {
    const event = ctx.model.elements[timer.elementId];
    exec.record('TIMER_TRIGGERED', { elementId: event.id, detail: { timerKey, dueAt: timer.dueAt } });
    // Cycles on non-interrupting events fire again while their owner lives.
    // Only boundary events (cancelActivity) and event subprocess starts
    // (isInterrupting) carry the flags: what waits on a timer fires once.
    const repeats = event.cancelActivity === false || event.isInterrupting === false;
    const next = repeats ? nextDue(timer.schedule, timer.dueAt, timer.firedCount + 1, exec.now) : null;
    if (next === null) delete instance.timers[timerKey];
    else {
      timer.firedCount++;
      timer.dueAt = next;
      exec.effect({ type: 'scheduleTimer', timerKey, dueAt: next, elementId: event.id });
    }
    const processor = processorFor(event);
    if (processor.timerTriggered !== undefined) processor.timerTriggered(exec, event, timer);
    else {
      const owner = instance.elements[timer.ownerKey];
      const node = ctx.model.elements[owner.elementId];
      processorFor(node).timerFired?.(exec, owner, node, timer);
    }
  });
}

/** Extension: a published message for one of the instance's open subscriptions; a message correlates to an instance at most once. */
function correlateMessage(instance: ProcessInstance, command: Extract<Command, { type: 'correlateMessage' }>, ctx: ApplyContext): ApplyResult {
  if (instance.correlatedMessages?.includes(command.messageKey)) {
    return { ok: false, code: 'INVALID_STATE', message: `Message '${command.messageKey}' was already correlated to process instance '${instance.key}'.` };
  }
  if (command.variables !== undefined && !isVariables(command.variables)) return BAD_VARIABLES;
  const subscription = findSubscription(instance.subscriptions, command.name, command.correlationKey, command.subscriptionKey);
  if (subscription === undefined) return notFound(`Process instance '${instance.key}' does not wait for message '${command.name}' with that correlation key.`);
  return run(instance, ctx, (exec) => correlate(exec, subscription, command.messageKey, command.variables));
}

/** Extension: a broadcast signal for every open signal subscription of its name; a signal reaches an instance at most once. */
function signal(instance: ProcessInstance, command: Extract<Command, { type: 'receiveSignal' }>, ctx: ApplyContext): ApplyResult {
  if (instance.correlatedMessages?.includes(command.signalKey)) {
    return { ok: false, code: 'INVALID_STATE', message: `Signal '${command.signalKey}' already reached process instance '${instance.key}'.` };
  }
  if (command.variables !== undefined && !isVariables(command.variables)) return BAD_VARIABLES;
  const subscriptions = signalSubscriptions(instance.subscriptions, command.name);
  if (subscriptions.length === 0) return notFound(`Process instance '${instance.key}' does not wait for signal '${command.name}'.`);
  return run(instance, ctx, (exec) => receiveSignal(exec, subscriptions, command.signalKey, command.variables));
}

function withCallActivity(instance: ProcessInstance, eiKey: string, ctx: ApplyContext, body: (exec: Execution, ei: ElementInstance) => void): ApplyResult {
  const ei = instance.elements[eiKey];
  if (ei?.childInstanceKey === undefined) return notFound(`Call activity instance '${eiKey}' is no longer waiting for its child.`);
  return run(instance, ctx, (exec) => body(exec, ei));
}
