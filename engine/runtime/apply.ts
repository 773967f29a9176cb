// The engine core's entry point: apply(instance, command, ctx) →
// { instance', records, effects } (DESIGN.md §3). Deterministic: the clock
// and key source come from ctx, nothing here does I/O.
//
// For speed the given instance document is updated in place and returned;
// a caller that must keep the state before the command passes a copy
// (structuredClone). A rejected command leaves the document untouched.
import { Execution } from './execution.ts';
import { jobOffer } from './behavior/job.ts';
import { raiseIncident } from './behavior/incident.ts';
import { setLocalVariable, setPropagatedVariable } from './behavior/variables.ts';
import type { ApplyContext, ApplyResult, Command, ProcessInstance, Variables } from './types.ts';

export function apply(instance: ProcessInstance | null, command: Command, ctx: ApplyContext): ApplyResult {
  if (command.type === 'start') return start(command, ctx);
  if (instance === null) return { ok: false, code: 'NOT_FOUND', message: 'The process instance does not exist.' };
  if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') {
    const what = command.type === 'cancel' ? 'cannot be cancelled' : 'has no jobs left';
    if (command.type !== 'cancel') return { ok: false, code: 'NOT_FOUND', message: `Job '${command.jobKey}' not found: process instance '${instance.key}' ${what}; it is ${instance.state.toLowerCase()}.` };
    return { ok: false, code: 'INVALID_STATE', message: `Process instance '${instance.key}' ${what}: it is already ${instance.state.toLowerCase()}.` };
  }
  switch (command.type) {
    case 'completeJob':
      return completeJob(instance, command.jobKey, command.variables, ctx);
    case 'failJob':
      return failJob(instance, command.jobKey, command.retries, command.errorMessage, ctx);
    case 'cancel':
      return cancel(instance, ctx);
  }
}

function isVariables(value: unknown): value is Variables {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function start(command: Extract<Command, { type: 'start' }>, ctx: ApplyContext): ApplyResult {
  const variables = command.variables ?? {};
  if (!isVariables(variables)) return { ok: false, code: 'INVALID_ARGUMENT', message: 'variables must be a JSON object (name → value).' };
  const model = ctx.model;
  const startEvent = model.noneStartEvent;
  if (startEvent === undefined) {
    return { ok: false, code: 'INVALID_STATE', message: `Process '${model.id}' has no none start event, so it cannot be started by a request.` };
  }
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
    startedAt: 0,
  };
  const exec = new Execution(instance, ctx);
  instance.startedAt = exec.now;
  exec.record('PROCESS_INSTANCE_STARTED', { elementId: model.id, elementType: 'process', detail: { version: instance.version } });
  exec.enter({ elementId: startEvent, scopeKey: key });
  exec.run();
  return { ok: true, instance, records: exec.records, effects: exec.effects };
}

function completeJob(instance: ProcessInstance, jobKey: string, variables: Variables | undefined, ctx: ApplyContext): ApplyResult {
  const job = instance.jobs[jobKey];
  if (job === undefined) return { ok: false, code: 'NOT_FOUND', message: `Job '${jobKey}' not found: it was completed or cancelled, or never existed.` };
  if (job.state === 'FAILED') {
    return { ok: false, code: 'INVALID_STATE', message: `Job '${jobKey}' failed with no retries left; its incident keeps the instance in INCIDENT.` };
  }
  if (variables !== undefined && !isVariables(variables)) {
    return { ok: false, code: 'INVALID_ARGUMENT', message: 'variables must be a JSON object (name → value).' };
  }
  const exec = new Execution(instance, ctx);
  const ei = instance.elements[job.elementInstanceKey];
  const node = ctx.model.elements[ei.elementId];
  delete instance.jobs[jobKey];
  ei.jobKey = undefined;
  exec.record('JOB_COMPLETED', { elementId: job.elementId, elementInstanceKey: ei.key, jobKey, detail: { variables: Object.keys(variables ?? {}) } });
  if (variables !== undefined) {
    // With output mappings the job's variables are local to the task and only
    // the mappings reach the flow scope; without, they propagate (Camunda 8).
    const local = node.outputs.length > 0;
    for (const name of Object.keys(variables)) {
      if (local) setLocalVariable(instance, ei.key, name, variables[name]);
      else setPropagatedVariable(instance, instance.variables[ei.key] !== undefined ? ei.key : ei.scopeKey, name, variables[name]);
    }
  }
  exec.completeElement(ei, node);
  exec.run();
  return { ok: true, instance, records: exec.records, effects: exec.effects };
}

function failJob(instance: ProcessInstance, jobKey: string, retries: number, errorMessage: string | undefined, ctx: ApplyContext): ApplyResult {
  const job = instance.jobs[jobKey];
  if (job === undefined) return { ok: false, code: 'NOT_FOUND', message: `Job '${jobKey}' not found: it was completed or cancelled, or never existed.` };
  if (job.state === 'FAILED') return { ok: false, code: 'INVALID_STATE', message: `Job '${jobKey}' already failed with no retries left.` };
  if (!Number.isInteger(retries) || retries < 0) {
    return { ok: false, code: 'INVALID_ARGUMENT', message: `retries must be a whole number of at least 0, not ${String(retries)}.` };
  }
  const exec = new Execution(instance, ctx);
  job.retries = retries;
  job.errorMessage = errorMessage;
  exec.record('JOB_FAILED', { elementId: job.elementId, elementInstanceKey: job.elementInstanceKey, jobKey, detail: { retries, errorMessage } });
  if (retries > 0) {
    // SPEC.md: a failed job with retries left is offered again at once.
    exec.effect({ type: 'enqueueJob', job: jobOffer(instance, job) });
  } else {
    job.state = 'FAILED';
    const ei = instance.elements[job.elementInstanceKey];
    raiseIncident(exec, ei, 'JOB_NO_RETRIES', errorMessage ? `No more retries left: ${errorMessage}` : 'No more retries left.', jobKey);
  }
  return { ok: true, instance, records: exec.records, effects: exec.effects };
}

function cancel(instance: ProcessInstance, ctx: ApplyContext): ApplyResult {
  const exec = new Execution(instance, ctx);
  exec.terminateChildren(instance.key);
  instance.state = 'TERMINATED';
  instance.endedAt = exec.now;
  exec.record('PROCESS_INSTANCE_TERMINATED', { elementId: instance.bpmnProcessId, elementType: 'process' });
  return { ok: true, instance, records: exec.records, effects: exec.effects };
}
