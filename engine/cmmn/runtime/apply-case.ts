// The case runtime's entry point: applyCase(instance, command, ctx) →
// { instance', records, effects }, the shape of the BPMN runtime's apply()
// (engine/runtime/apply.ts). Deterministic: the clock and key source come
// from ctx, nothing here does I/O. The given document is updated in place
// and returned; a rejected command leaves it untouched.
import { valueProblem } from '../../limits.ts';
import type { RejectionCode, Variables } from '../../runtime/types.ts';
import { armRetryBackOff, caseActivationTimedOut, holdCaseJob, retryBackOffPassed } from './job-timers.ts';
import { CaseExecution, LIVE } from './case-execution.ts';
import { jobOfferOf } from './plan-item-behavior.ts';
import type { CaseApplyContext, CaseApplyResult, CaseCommand, CaseInstance, PlanItemInstance, PlanItemState } from './types.ts';

type Rejection = Extract<CaseApplyResult, { ok: false }>;

function reject(code: RejectionCode, message: string): Rejection {
  return { ok: false, code, message };
}

function isVariables(value: unknown): value is Variables {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && valueProblem(value) === undefined;
}

const BAD_VARIABLES = reject('INVALID_ARGUMENT', 'variables must be a JSON object (name → value).');

export function applyCase(instance: CaseInstance | null, command: CaseCommand, ctx: CaseApplyContext): CaseApplyResult {
  if (command.type === 'start') return start(command, ctx);
  if (instance === null) return reject('NOT_FOUND', 'The case instance does not exist.');
  if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') {
    return reject(
      command.type === 'cancel' ? 'INVALID_STATE' : 'NOT_FOUND',
      `Case instance '${instance.key}' is already ${instance.state.toLowerCase()}; nothing waits for this command.`,
    );
  }
  if (instance.state === 'INCIDENT' && command.type !== 'cancel') {
    // As for a process instance in INCIDENT (SPEC.md): it is not resumed, only cancelled.
    return reject('INVALID_STATE', `Case instance '${instance.key}' is in INCIDENT and takes no more commands but cancel.`);
  }
  switch (command.type) {
    case 'cancel':
      return run(instance, ctx, (exec) => {
        exec.unbounded = true;
        exec.terminate(instance.planItems[instance.key], 'terminate');
      });
    case 'completeJob': {
      const job = instance.jobs[command.jobKey];
      if (job === undefined) return reject('NOT_FOUND', `Job '${command.jobKey}' not found: it was completed or cancelled, or never existed.`);
      if (job.state === 'FAILED')
        return reject('INVALID_STATE', `Job '${command.jobKey}' failed with no retries left; its incident keeps the case in INCIDENT.`);
      if (command.variables !== undefined && !isVariables(command.variables)) return BAD_VARIABLES;
      return run(instance, ctx, (exec) => {
        const pi = instance.planItems[job.elementInstanceKey];
        exec.dropJobTimers(job);
        delete instance.jobs[job.key];
        pi.jobKey = undefined;
        exec.record('JOB_COMPLETED', {
          elementId: job.elementId,
          elementInstanceKey: pi.key,
          jobKey: job.key,
          detail: { variables: Object.keys(command.variables ?? {}) },
        });
        mergeVariables(exec, command.variables);
        exec.complete(pi);
      });
    }
    case 'failJob':
      return failJob(instance, command, ctx);
    case 'holdJob': {
      const job = instance.jobs[command.jobKey];
      if (job === undefined) return reject('NOT_FOUND', `Job '${command.jobKey}' not found: it was completed or cancelled, or never existed.`);
      if (job.state === 'FAILED') return reject('INVALID_STATE', `Job '${command.jobKey}' failed with no retries left.`);
      if (!(Number.isInteger(command.timeout) && command.timeout > 0)) {
        return reject('INVALID_ARGUMENT', `timeout must be a whole number of milliseconds above 0, not ${String(command.timeout)}.`);
      }
      return run(instance, ctx, (exec) => holdCaseJob(exec, job, command.worker, command.timeout));
    }
    case 'startPlanItem':
      return withItem(instance, command.planItemKey, ['ENABLED'], 'started', ctx, (exec, pi) => exec.start(pi, exec.itemOf(pi), 'manualStart'));
    case 'disablePlanItem':
      return withItem(instance, command.planItemKey, ['ENABLED'], 'disabled', ctx, (exec, pi) => exec.transition(pi, 'DISABLED', 'disable'));
    case 'reenablePlanItem':
      return withItem(instance, command.planItemKey, ['DISABLED'], 're-enabled', ctx, (exec, pi) => exec.transition(pi, 'ENABLED', 'reenable'));
    case 'occur': {
      const pi = instance.planItems[command.planItemKey];
      if (pi !== undefined && pi.type !== 'userEventListener') {
        return reject('INVALID_ARGUMENT', `Plan item '${pi.id}' is a ${pi.type}; only a user event listener can be triggered.`);
      }
      return withItem(instance, command.planItemKey, ['AVAILABLE'], 'triggered', ctx, (exec, item) => exec.transition(item, 'COMPLETED', 'occur'));
    }
    case 'completePlanItem': {
      if (command.variables !== undefined && !isVariables(command.variables)) return BAD_VARIABLES;
      const pi = instance.planItems[command.planItemKey];
      if (pi !== undefined && pi.jobKey !== undefined)
        return reject('INVALID_STATE', `Plan item '${pi.id}' waits on job '${pi.jobKey}'; complete the job instead.`);
      if (pi !== undefined && pi.childInstanceKey !== undefined)
        return reject('INVALID_STATE', `Plan item '${pi.id}' waits for its child instance '${pi.childInstanceKey}' to complete.`);
      return withItem(instance, command.planItemKey, ['ACTIVE'], 'completed', ctx, (exec, item) => {
        mergeVariables(exec, command.variables);
        if (item.type === 'stage') {
          const busy = exec.childrenOf(item.key).find((c) => c.state === 'ACTIVE');
          if (busy !== undefined)
            return exec.incident(item, 'CONDITION_ERROR', `Stage '${item.id}' was asked to complete while '${busy.id}' inside it is still ACTIVE.`);
          for (const child of exec.childrenOf(item.key)) exec.terminate(child, 'exit');
        }
        exec.complete(item);
      });
    }
    case 'terminatePlanItem':
      return withItem(instance, command.planItemKey, ['AVAILABLE', 'ENABLED', 'DISABLED', 'ACTIVE'], 'terminated', ctx, (exec, pi) =>
        exec.terminate(pi, 'terminate'),
      );
    case 'setVariables':
      if (!isVariables(command.variables)) return BAD_VARIABLES;
      return run(instance, ctx, (exec) => mergeVariables(exec, command.variables));
    case 'fireTimer': {
      const timer = instance.timers[command.timerKey];
      if (timer === undefined) return reject('NOT_FOUND', `Timer '${command.timerKey}' not found: it already fired or was cancelled.`);
      if (ctx.now() < timer.dueAt) return reject('INVALID_STATE', `Timer '${command.timerKey}' is not due until ${new Date(timer.dueAt).toISOString()}.`);
      if (timer.activationTimeout) return run(instance, ctx, (exec) => caseActivationTimedOut(exec, timer));
      if (timer.jobKey !== undefined) return run(instance, ctx, (exec) => retryBackOffPassed(exec, timer));
      return run(instance, ctx, (exec) => {
        delete instance.timers[timer.key];
        const pi = instance.planItems[timer.ownerKey];
        pi.timerKey = undefined;
        exec.record('TIMER_TRIGGERED', { elementId: timer.elementId, elementInstanceKey: pi.key, detail: { timerKey: timer.key, dueAt: timer.dueAt } });
        if (pi.state === 'AVAILABLE') exec.transition(pi, 'COMPLETED', 'occur');
      });
    }
    case 'childCompleted': {
      const pi = instance.planItems[command.elementInstanceKey];
      if (pi?.childInstanceKey === undefined || pi.state !== 'ACTIVE')
        return reject('NOT_FOUND', `Plan item instance '${command.elementInstanceKey}' is no longer waiting for a child.`);
      return run(instance, ctx, (exec) => {
        pi.childInstanceKey = undefined;
        mergeVariables(exec, command.variables);
        exec.complete(pi);
      });
    }
  }
}

function start(command: Extract<CaseCommand, { type: 'start' }>, ctx: CaseApplyContext): CaseApplyResult {
  const variables = command.variables ?? {};
  if (!isVariables(variables)) return BAD_VARIABLES;
  const key = command.caseInstanceKey ?? ctx.nextKey();
  const model = ctx.model;
  const instance: CaseInstance = {
    key,
    caseDefinitionId: model.id,
    version: command.version ?? 1,
    state: 'ACTIVE',
    planItems: {},
    variables: { ...variables },
    jobs: {},
    incidents: {},
    timers: {},
    startedAt: ctx.now(),
  };
  if (command.parent !== undefined) instance.parent = command.parent;
  if (command.depth !== undefined && command.depth > 0) instance.depth = command.depth;
  return run(instance, ctx, (exec) => {
    exec.record('CASE_INSTANCE_STARTED', { elementId: model.id, elementType: 'case', detail: { version: instance.version } });
    // The case plan model is the root plan item; its instance has the case's key, as a process's root scope does.
    exec.create(model.planItems[model.rootId], undefined, key);
  });
}

function failJob(instance: CaseInstance, command: Extract<CaseCommand, { type: 'failJob' }>, ctx: CaseApplyContext): CaseApplyResult {
  const job = instance.jobs[command.jobKey];
  if (job === undefined) return reject('NOT_FOUND', `Job '${command.jobKey}' not found: it was completed or cancelled, or never existed.`);
  if (job.state === 'FAILED') return reject('INVALID_STATE', `Job '${command.jobKey}' already failed with no retries left.`);
  if (!Number.isInteger(command.retries) || command.retries < 0) {
    return reject('INVALID_ARGUMENT', `retries must be a whole number of at least 0, not ${String(command.retries)}.`);
  }
  return run(instance, ctx, (exec) => {
    // The worker gave the job back: its activation deadline goes.
    exec.dropJobTimers(job);
    job.retries = command.retries;
    job.errorMessage = command.errorMessage;
    exec.record('JOB_FAILED', {
      elementId: job.elementId,
      elementInstanceKey: job.elementInstanceKey,
      jobKey: job.key,
      detail: { retries: job.retries, errorMessage: job.errorMessage },
    });
    if (command.retries > 0 && command.retryBackOff !== undefined && command.retryBackOff > 0) return armRetryBackOff(exec, job, command.retryBackOff);
    if (command.retries > 0) return exec.effect({ type: 'enqueueJob', job: jobOfferOf(instance, job) });
    job.state = 'FAILED';
    const pi = instance.planItems[job.elementInstanceKey];
    exec.incident(pi, 'JOB_NO_RETRIES', command.errorMessage ? `No more retries left: ${command.errorMessage}` : 'No more retries left.');
    // The incident names its job, as a process's does: whoever stores the case keeps the job, FAILED, while it is open.
    instance.incidents[pi.incidentKey!].jobKey = job.key;
  });
}

/** Variables into the case file; criteria with an if-part only look again. */
function mergeVariables(exec: CaseExecution, variables: Variables | undefined): void {
  if (variables === undefined || Object.keys(variables).length === 0) return;
  Object.assign(exec.instance.variables, variables);
  exec.record('VARIABLES_UPDATED', { elementId: exec.model.id, detail: { variables: Object.keys(variables) } });
  for (const pi of Object.values(exec.instance.planItems)) {
    if (!LIVE.has(pi.state)) continue;
    const item = exec.itemOf(pi);
    const conditional = [...item.entry, ...item.exit].some((s) => exec.model.sentries[s].onParts.length === 0);
    if (conditional) exec.push({ kind: 'conditions', key: pi.key });
  }
}

function withItem(
  instance: CaseInstance,
  key: string,
  from: PlanItemState[],
  verb: string,
  ctx: CaseApplyContext,
  body: (exec: CaseExecution, pi: PlanItemInstance) => void,
): CaseApplyResult {
  const pi = instance.planItems[key];
  if (pi === undefined) return reject('NOT_FOUND', `Plan item instance '${key}' not found in case instance '${instance.key}'.`);
  if (!from.includes(pi.state)) {
    return reject('INVALID_STATE', `Plan item '${pi.id}' (${key}) is ${pi.state}; it can be ${verb} only when ${from.join(' or ')}.`);
  }
  return run(instance, ctx, (exec) => body(exec, pi));
}

function run(instance: CaseInstance, ctx: CaseApplyContext, body: (exec: CaseExecution) => void): CaseApplyResult {
  const exec = new CaseExecution(instance, ctx);
  body(exec);
  exec.run();
  return { ok: true, instance, records: exec.records, effects: exec.effects };
}
