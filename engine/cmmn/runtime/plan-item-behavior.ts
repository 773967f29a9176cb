// What each kind of plan item does (CMMN 1.1, Task and its kinds, and the lifecycles): when it
// is created (begin), when it becomes ACTIVE (activate) and what is withdrawn
// when it is terminated. Work is done the way Orca does work: human tasks and
// blocking generic tasks wait as `userTask` jobs carrying the case instance
// key; a process task starts a BPMN child instance and a case task a child
// case (effects, resolved by whoever hosts the case); a timer event listener
// arms a timer.
import { firstDue } from '../../timer/index.ts';
import type { Job, JobOffer } from '../../runtime/types.ts';
import type { PlanItem } from '../types.ts';
import type { CaseExecution } from './case-execution.ts';
import type { CaseInstance, PlanItemInstance } from './types.ts';

/** The job type of human tasks and blocking generic tasks: the same as BPMN user tasks, so they share the task list. */
export const CASE_TASK_JOB_TYPE = 'userTask';
const JOB_RETRIES = 3;
/** Camunda 8's default for the deepest chain of called instances, as for call activities. */
const DEFAULT_MAX_CALL_DEPTH = 1000;

/** A created plan item: without entry criteria it enters at once; event listeners wait (a timer one arms its timer). */
export function begin(exec: CaseExecution, pi: PlanItemInstance, item: PlanItem): void {
  if (item.type === 'timerEventListener') return armTimer(exec, pi, item);
  if (item.type === 'userEventListener') return;
  if (item.entry.length === 0) exec.enter(pi, item);
}

export function activate(exec: CaseExecution, pi: PlanItemInstance, item: PlanItem): void {
  switch (item.type) {
    case 'stage': {
      const children = item.children ?? [];
      for (const id of children) exec.create(exec.model.planItems[id], pi.key);
      // A stage with nothing in it is done at once.
      exec.push({ kind: 'check', key: pi.key });
      return;
    }
    case 'humanTask':
    case 'task':
      if (!item.isBlocking) return exec.complete(pi);
      return createJob(exec, pi);
    case 'processTask':
      return startProcess(exec, pi, item);
    case 'caseTask':
      return startCase(exec, pi, item);
    default:
      return;
  }
}

export function terminateWork(exec: CaseExecution, pi: PlanItemInstance): void {
  if (pi.jobKey !== undefined) {
    exec.cancelJob(pi.jobKey);
    pi.jobKey = undefined;
  }
  if (pi.timerKey !== undefined) {
    exec.cancelTimer(pi.timerKey);
    pi.timerKey = undefined;
  }
  if (pi.childInstanceKey !== undefined) {
    exec.effect({ type: 'sendCommand', instanceKey: pi.childInstanceKey, command: { type: 'cancel' } });
    pi.childInstanceKey = undefined;
  }
}

export function jobOfferOf(instance: CaseInstance, job: Job): JobOffer {
  return {
    key: job.key,
    type: job.type,
    retries: job.retries,
    processInstanceKey: instance.key,
    bpmnProcessId: instance.caseDefinitionId,
    processDefinitionVersion: instance.version,
    elementId: job.elementId,
    elementInstanceKey: job.elementInstanceKey,
    customHeaders: job.customHeaders,
  };
}

function createJob(exec: CaseExecution, pi: PlanItemInstance): void {
  const job: Job = {
    key: exec.nextKey(),
    type: CASE_TASK_JOB_TYPE,
    retries: JOB_RETRIES,
    elementId: pi.id,
    elementInstanceKey: pi.key,
    customHeaders: {},
    state: 'ACTIVATABLE',
  };
  exec.instance.jobs[job.key] = job;
  pi.jobKey = job.key;
  exec.record('JOB_CREATED', { elementId: pi.id, elementInstanceKey: pi.key, jobKey: job.key, detail: { jobType: job.type, retries: job.retries } });
  exec.effect({ type: 'enqueueJob', job: jobOfferOf(exec.instance, job) });
}

function childDepth(exec: CaseExecution, pi: PlanItemInstance, what: string): number | undefined {
  const depth = (exec.instance.depth ?? 0) + 1;
  const max = exec.ctx.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
  if (depth < max) return depth;
  exec.incident(
    pi,
    'CALLED_ELEMENT_ERROR',
    `'${pi.id}' cannot start ${what}: that would nest ${depth + 1} instances, more than the ${max} allowed (does a case start itself without end?).`,
  );
  return undefined;
}

function startProcess(exec: CaseExecution, pi: PlanItemInstance, item: PlanItem): void {
  const processId = item.processRef!;
  if (exec.ctx.hasProcess !== undefined && !exec.ctx.hasProcess(processId)) {
    return exec.incident(pi, 'CALLED_ELEMENT_ERROR', `Process task '${pi.id}' starts process '${processId}', but no process with that id is deployed.`);
  }
  const depth = childDepth(exec, pi, `process '${processId}'`);
  if (depth === undefined) return;
  const childKey = exec.nextKey();
  exec.effect({
    type: 'startChild',
    childInstanceKey: childKey,
    bpmnProcessId: processId,
    variables: { ...exec.instance.variables },
    parentElementInstanceKey: pi.key,
    depth,
  });
  // A non-blocking process task is done once the process has started (CMMN 1.1, ProcessTask isBlocking); the process runs on by itself.
  if (item.isBlocking) pi.childInstanceKey = childKey;
  else exec.complete(pi);
}

function startCase(exec: CaseExecution, pi: PlanItemInstance, item: PlanItem): void {
  const caseId = item.caseRef!;
  if (exec.ctx.hasCase !== undefined && !exec.ctx.hasCase(caseId)) {
    return exec.incident(pi, 'CALLED_ELEMENT_ERROR', `Case task '${pi.id}' starts case '${caseId}', but no case with that id is deployed.`);
  }
  const depth = childDepth(exec, pi, `case '${caseId}'`);
  if (depth === undefined) return;
  const childKey = exec.nextKey();
  exec.effect({
    type: 'startChildCase',
    childInstanceKey: childKey,
    caseId,
    variables: { ...exec.instance.variables },
    parentElementInstanceKey: pi.key,
    depth,
  });
  if (item.isBlocking) pi.childInstanceKey = childKey;
  else exec.complete(pi);
}

function armTimer(exec: CaseExecution, pi: PlanItemInstance, item: PlanItem): void {
  const schedule = item.timer!;
  const dueAt = firstDue(schedule, exec.now);
  const key = exec.nextKey();
  exec.instance.timers[key] = { key, elementId: pi.id, ownerKey: pi.key, dueAt, schedule, firedCount: 0 };
  pi.timerKey = key;
  exec.record('TIMER_CREATED', { elementId: pi.id, elementInstanceKey: pi.key, detail: { timerKey: key, dueAt } });
  exec.effect({ type: 'scheduleTimer', timerKey: key, dueAt, elementId: pi.id });
}
