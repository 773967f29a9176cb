// Case instances (CMMN) on the partition leader: the commands that start
// and act on cases, a case's jobs (a human task's or a blocking generic
// task's `userTask` job) and timers, and the messages its child processes
// send it, all applied with the case runtime's applyCase and settled into
// the same batch as the process instances' — the case document into
// case_instances, its jobs, timers, incidents and history into the process
// tables under the case key. A process task's child is an ordinary process
// instance whose parent is the case (started and cancelled through the
// internal work, like a call activity's); its completion comes back here.
import { applyCase } from '../../cmmn/index.ts';
import type { CaseApplyContext, CaseApplyResult, CaseCommand, CaseInstance } from '../../cmmn/index.ts';
import type { CaseEffect, CaseTimer } from '../../cmmn/runtime/types.ts';
import type { Command, Incident, Job } from '../../runtime/types.ts';
import { caseEndedEvent, incidentCreatedEvent, userTaskEvent, type IncidentWrite, type JobWrite, type TimerWrite } from '../../store/index.ts';
import { instanceVariablesProblem } from '../../limits.ts';
import { kindIndex } from '../../metrics.ts';
import type { CaseModels } from '../case-models.ts';
import type { CommandReply, EngineCommand } from '../commands.ts';
import type { KeyGenerator } from '../keys.ts';
import type { ModelCache } from '../model-cache.ts';
import type { BatchWork } from './batch-work.ts';
import type { HotCase, HotInstances } from './hot-instances.ts';
import type { Internal } from './internal-work.ts';
import { applySharedEffect, type EffectTarget } from './shared-effects.ts';

type Applied = Extract<CaseApplyResult, { ok: true }>;
export type StartChildCase = Extract<CaseEffect, { type: 'startChildCase' }>;
/** The commands a case answers: its own, and the job commands of its jobs. */
export type CaseEngineCommand = Extract<EngineCommand, { kind: 'startCase' | 'caseCommand' | 'completeJob' | 'failJob' | 'throwJobError' | 'holdJob' }>;

const DONE: CommandReply = { ok: true, value: { done: true } };
const USER = kindIndex('user');

export class CaseCommands {
  constructor(
    private readonly partition: number,
    private readonly models: ModelCache,
    private readonly cases: CaseModels,
    private readonly keys: KeyGenerator,
    private readonly hot: HotInstances,
    /** Work for process instances this batch causes (a process task's child, a cancel). */
    private readonly internal: Internal[],
  ) {}

  /** Whether a job command's job is a case's (every live case of the partition is in memory). */
  ownsJob(jobKey: string): boolean {
    const owner = this.hot.ownerOf(jobKey);
    return owner !== undefined && this.hot.getCase(owner) !== undefined;
  }

  async execute(command: CaseEngineCommand, work: BatchWork): Promise<CommandReply> {
    if (command.kind === 'startCase') return this.start(command, work);
    const key = command.kind === 'caseCommand' ? command.caseInstanceKey : this.hot.ownerOf(command.jobKey)!;
    const hot = this.hot.getCase(key);
    if (hot === undefined || hot.account !== command.account) {
      return { ok: false, code: 'NOT_FOUND', message: `Case instance '${key}' not found, or it has ended.` };
    }
    switch (command.kind) {
      case 'caseCommand':
        return this.apply(hot, caseCommandOf(command), work);
      case 'completeJob':
        if (command.result !== undefined) {
          return { ok: false, code: 'INVALID_ARGUMENT', message: 'result is for the job of an ad-hoc subprocess; this job belongs to a case.' };
        }
        return this.apply(hot, { type: 'completeJob', jobKey: command.jobKey, variables: command.variables }, work);
      case 'failJob': {
        const { jobKey, retries, errorMessage, retryBackOff } = command;
        return this.apply(hot, { type: 'failJob', jobKey, retries, errorMessage, retryBackOff }, work);
      }
      case 'throwJobError':
        return {
          ok: false,
          code: 'INVALID_STATE',
          message: `Job '${command.jobKey}' belongs to case instance '${key}': a case catches no BPMN errors. Fail the job instead.`,
        };
      case 'holdJob':
        return this.apply(hot, { type: 'holdJob', jobKey: command.jobKey, worker: command.worker, timeout: command.timeout }, work);
    }
  }

  /** A message for a case from the internal work (its timer, a child's completion, a parent's cancel); a stale one changes nothing. */
  async fromInternal(hot: HotCase, command: Command, work: BatchWork, why: string | undefined): Promise<void> {
    switch (command.type) {
      case 'fireTimer':
        // Applied or not (condemned, or its listener ended), the timer's row goes: it never fires again.
        work.batch.timersDelete!.push(command.timerKey);
        if (why === undefined) await this.apply(hot, { type: 'fireTimer', timerKey: command.timerKey }, work);
        return;
      case 'childCompleted':
        await this.apply(hot, { type: 'childCompleted', elementInstanceKey: command.elementInstanceKey, variables: command.variables }, work);
        return;
      case 'cancel':
        await this.apply(hot, { type: 'cancel' }, work);
        return;
      case 'childError':
        // A case catches no BPMN errors: the child raises the incident where the error was thrown.
        this.internal.push({
          kind: 'command',
          account: hot.account,
          instanceKey: command.childInstanceKey,
          command: { type: 'errorUnhandled', elementInstanceKey: command.throwingElementInstanceKey },
        });
        return;
      default:
      // An escalation nobody above catches changes nothing (as in BPMN).
    }
  }

  /** Starts the child case a case task asked for (the latest version of its case). */
  async startChild(account: string, parentKey: string, effect: StartChildCase, work: BatchWork): Promise<void> {
    const version = (await this.cases.latest(account)).get(effect.caseId);
    if (version === undefined) return;
    const command: CaseCommand = {
      type: 'start',
      caseInstanceKey: effect.childInstanceKey,
      variables: effect.variables,
      version,
      parent: { instanceKey: parentKey, elementInstanceKey: effect.parentElementInstanceKey },
      depth: effect.depth,
    };
    const ctx = await this.context(account, effect.caseId, version);
    const result = ctx && applyCase(null, command, ctx);
    if (result?.ok) this.settle(account, parentKey, result, work);
  }

  private async start(command: Extract<EngineCommand, { kind: 'startCase' }>, work: BatchWork): Promise<CommandReply> {
    const { account, caseDefinitionId } = command;
    const version = (await this.cases.latest(account)).get(caseDefinitionId) ?? (await this.cases.latest(account, true)).get(caseDefinitionId);
    if (version === undefined) return { ok: false, code: 'NOT_FOUND', message: `No case definition '${caseDefinitionId}' is deployed.` };
    const ctx = await this.context(account, caseDefinitionId, version);
    if (ctx === undefined) return { ok: false, code: 'NOT_FOUND', message: `Case definition '${caseDefinitionId}' has no version ${version}.` };
    const result = applyCase(null, { type: 'start', variables: command.variables, version }, ctx);
    if (!result.ok) return result;
    this.settle(account, null, result, work);
    const instance = result.instance;
    return { ok: true, value: { caseInstanceKey: instance.key, caseDefinitionId, version, state: instance.state } };
  }

  private async apply(hot: HotCase, command: CaseCommand, work: BatchWork): Promise<CommandReply> {
    const { instance } = hot;
    const problem = caseFileProblem(instance, command);
    if (problem !== undefined)
      return { ok: false, code: 'INVALID_ARGUMENT', message: `Nothing was applied: the case file would outgrow the limits (${problem}).` };
    const ctx = await this.context(hot.account, instance.caseDefinitionId, instance.version);
    if (ctx === undefined) return { ok: false, code: 'NOT_FOUND', message: `The model of case instance '${instance.key}' is gone.` };
    const result = applyCase(instance, command, ctx);
    if (!result.ok) return result;
    this.settle(hot.account, hot.parentKey, result, work);
    return DONE;
  }

  /** The apply context; undefined when the version is not deployed (any more). */
  private async context(account: string, caseDefinitionId: string, version: number): Promise<CaseApplyContext | undefined> {
    const model = await this.cases.model(account, caseDefinitionId, version);
    if (model === undefined) return undefined;
    const processes = await this.models.view(account);
    const cases = await this.cases.latest(account);
    return {
      model,
      nextKey: this.keys.next,
      now: Date.now,
      hasProcess: (id) => processes.latest.has(id),
      hasCase: (id) => cases.has(id),
    };
  }

  /** What an applied case command did, as the batch's rows and after-commit actions. */
  private settle(account: string, parentKey: string | null, result: Applied, work: BatchWork): void {
    const { instance, records, effects } = result;
    const batch = work.batch;
    this.hot.keepCase(account, instance, parentKey);
    (batch.cases ??= []).push({ account, document: instance, parentKey });
    const tally = work.tally;
    // Webhook events name the case where they would name a process instance, its case definition id as the process id.
    const source = { key: instance.key, bpmnProcessId: instance.caseDefinitionId };
    for (const record of records) {
      batch.history!.push({ account, instanceKey: instance.key, record });
      if (record.type === 'JOB_CREATED' || record.type === 'JOB_COMPLETED') batch.events!.push(userTaskEvent(account, source, record));
      // A case's jobs are all human tasks' (userTask) for the metrics.
      if (record.type === 'JOB_CREATED') tally.jobsCreated[USER]++;
      else if (record.type === 'JOB_FAILED') tally.jobsFailed[USER]++;
      else if (record.type === 'CASE_INSTANCE_STARTED') tally.casesStarted++;
      else if (record.type === 'CASE_INSTANCE_COMPLETED' || record.type === 'CASE_INSTANCE_TERMINATED') {
        if (record.type === 'CASE_INSTANCE_COMPLETED') tally.casesCompleted++;
        else tally.casesTerminated++;
        batch.events!.push(caseEndedEvent(account, instance, record));
      }
      if (record.type === 'INCIDENT_CREATED') {
        tally.incidentsCreated++;
        const incident = instance.incidents[record.incidentKey!];
        batch.incidentsInsert!.push(incidentRow(account, instance, incident));
        batch.events!.push(incidentCreatedEvent(account, source, incident));
        const job = incident.jobKey === undefined ? undefined : instance.jobs[incident.jobKey];
        if (job !== undefined) {
          batch.jobsUpsert!.push(jobRow(account, instance, job));
          work.remove.push({ account, jobKey: job.key });
        }
      } else if (record.type === 'JOB_COMPLETED') {
        tally.jobsCompleted[USER]++;
        batch.jobsDelete!.push(record.jobKey!);
        batch.tasksCompleted!.push({
          key: record.jobKey!,
          account,
          instanceKey: instance.key,
          bpmnProcessId: instance.caseDefinitionId,
          processVersion: instance.version,
          elementId: record.elementId!,
          elementInstanceKey: record.elementInstanceKey!,
          completedAt: record.at,
        });
        work.remove.push({ account, jobKey: record.jobKey! });
        this.hot.dropJob(record.jobKey!);
      }
    }
    let target: EffectTarget | undefined;
    for (const effect of effects) {
      switch (effect.type) {
        case 'enqueueJob': {
          const existed = this.hot.ownJob(effect.job.key, instance.key);
          batch.jobsUpsert!.push(jobRow(account, instance, instance.jobs[effect.job.key]));
          const queued = { ...effect.job, account, partition: this.partition, variables: { ...instance.variables }, queuedAt: work.at, kind: 'user' as const };
          (existed ? work.requeue : work.push).push(queued);
          break;
        }
        case 'holdJob':
          // Stored as activated by its worker, so a queue rebuild keeps it with the worker until its deadline.
          batch.jobsUpsert!.push(jobRow(account, instance, instance.jobs[effect.jobKey]));
          break;
        case 'cancelJob':
        case 'scheduleTimer':
        case 'cancelTimer':
        case 'startChild':
        case 'sendCommand':
          target ??= { account, instanceKey: instance.key, timerRow: (key) => timerRow(account, instance, instance.timers[key]) };
          applySharedEffect(effect, target, work, this.hot, this.internal);
          break;
        case 'startChildCase':
          this.internal.push({ kind: 'startChildCase', account, parentKey: instance.key, effect });
          break;
      }
    }
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') work.ended.push(instance.key);
    // Its waiting tasks are offered with the case file as this batch leaves it (Effects.waitingJobVariables).
    else if (records.some((r) => r.type === 'VARIABLES_UPDATED')) work.changed.set(instance.key, account);
  }
}

/**
 * Why the variables a command brings would grow the case file past the
 * per-instance limits; undefined when they fit or it brings none. Refused
 * before applying, so the case is left as it was (a process instance is
 * set aside instead: its runtime has a command for that, a case's has not).
 */
function caseFileProblem(instance: CaseInstance, command: CaseCommand): string | undefined {
  // A child's completion is not refused: its case would wait for it for ever.
  const variables = command.type === 'completeJob' || command.type === 'completePlanItem' ? command.variables : undefined;
  if (variables === undefined) return undefined;
  let any = false;
  for (const _name in variables) {
    any = true;
    break;
  }
  return any ? instanceVariablesProblem({ [instance.key]: { ...instance.variables, ...variables } }, instance.key) : undefined;
}

function caseCommandOf(command: Extract<EngineCommand, { kind: 'caseCommand' }>): CaseCommand {
  if (command.action === 'cancel') return { type: 'cancel' };
  const planItemKey = command.planItemKey ?? '';
  if (command.action === 'completePlanItem') return { type: 'completePlanItem', planItemKey, variables: command.variables };
  return { type: command.action, planItemKey };
}

/** A case's job as its row: the case definition id where a process id would be. */
function jobRow(account: string, instance: CaseInstance, job: Job): JobWrite {
  return {
    key: job.key,
    account,
    instanceKey: instance.key,
    bpmnProcessId: instance.caseDefinitionId,
    processVersion: instance.version,
    elementId: job.elementId,
    elementInstanceKey: job.elementInstanceKey,
    type: job.type,
    retries: job.retries,
    state: job.state,
    customHeaders: { ...job.customHeaders },
    errorMessage: job.errorMessage ?? null,
    // Held until an activation timeout: stored as activated, as a process's job is (store/runtime-rows.ts jobRow).
    ...(job.held !== undefined && job.state === 'ACTIVATABLE'
      ? { state: 'ACTIVATED' as const, worker: job.held.worker, activatedAt: new Date(job.held.at) }
      : {}),
  };
}

function timerRow(account: string, instance: CaseInstance, timer: CaseTimer): TimerWrite {
  return {
    key: timer.key,
    account,
    instanceKey: instance.key,
    ownerKey: timer.ownerKey,
    bpmnProcessId: instance.caseDefinitionId,
    processVersion: instance.version,
    elementId: timer.elementId,
    dueAt: new Date(timer.dueAt),
    schedule: timer.schedule,
    firedCount: timer.firedCount,
  };
}

function incidentRow(account: string, instance: CaseInstance, incident: Incident): IncidentWrite {
  return {
    key: incident.key,
    account,
    instanceKey: instance.key,
    bpmnProcessId: instance.caseDefinitionId,
    elementId: incident.elementId,
    elementInstanceKey: incident.elementInstanceKey,
    jobKey: incident.jobKey ?? null,
    type: incident.type,
    message: incident.message,
    createdAt: new Date(incident.createdAt),
  };
}
