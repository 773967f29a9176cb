// Command execution: every command of the API takes one path, prepared and
// then applied. Preparing finds what the command needs — the process
// version a start starts, the instance a job command or cancel addresses,
// and the apply context — and is synchronous when all of it is in memory
// (the common case: a start of a cached model, a job of an instance in
// memory), so such a command is applied with no promise, no async frame and
// no await; only when something must be loaded does preparing return a
// promise. Preparing changes nothing; applying is synchronous, and turns the
// outcome into the batch's rows through Effects.
import { apply } from '../../runtime/apply.ts';
import type { Command, Variables } from '../../runtime/types.ts';
import { instanceVariablesProblem } from '../../limits.ts';
import { isJobCommand, type CommandReply, type EngineCommand } from '../commands.ts';
import type { ModelCache } from '../model-cache.ts';
import type { BatchWork } from './batch-work.ts';
import type { CaseCommands } from './cases.ts';
import type { Contexts, Prepared } from './context.ts';
import type { Applied, Effects } from './effects.ts';
import type { Hot, HotInstances } from './hot-instances.ts';
import type { MessageCommands } from './messages.ts';
import type { SignalCommands } from './signals.ts';
import type { StartTimers } from './start-timers.ts';

type Rejection = Extract<CommandReply, { ok: false }>;
/** A prepared command, or why it cannot be applied. */
type Preparation = Prepared | Rejection;
/** The commands that start or address an instance. */
type InstanceCommand = Extract<EngineCommand, { kind: 'start' | 'completeJob' | 'failJob' | 'throwJobError' | 'holdJob' | 'cancel' | 'activateAdHoc' }>;

export class Executor {
  constructor(
    private readonly models: ModelCache,
    private readonly contexts: Contexts,
    private readonly hot: HotInstances,
    private readonly effects: Effects,
    private readonly startTimers: StartTimers,
    private readonly messages: MessageCommands,
    private readonly signals: SignalCommands,
    private readonly cases: CaseCommands,
  ) {}

  /** Applies a command to the batch; a promise only when something had to be loaded first. */
  execute(command: EngineCommand, work: BatchWork): CommandReply | Promise<CommandReply> {
    if (command.kind === 'scheduleStartTimers') return this.startTimers.schedule(command.account, command.bpmnProcessId, command.version, work);
    if (command.kind === 'publishMessage' || command.kind === 'deliverMessage') return this.messages.execute(command, work, this);
    if (command.kind === 'broadcastSignal' || command.kind === 'deliverSignal') return this.signals.execute(command, work, this);
    if (command.kind === 'startCase' || command.kind === 'caseCommand' || (isJobCommand(command) && this.cases.ownsJob(command.jobKey))) {
      return this.cases.execute(command, work);
    }
    const prepared = this.prepare(command);
    return prepared instanceof Promise ? prepared.then((ready) => this.applyPrepared(command, ready, work)) : this.applyPrepared(command, prepared, work);
  }

  /** Applies a runtime command to an instance (follow-ups, set-asides), loading its model when needed. */
  async applyTo(hot: Hot, command: Command, work: BatchWork): Promise<CommandReply> {
    const prepared = await this.prepareFor(hot);
    return 'ok' in prepared ? prepared : this.applyWith(hot, command, work, prepared);
  }

  /** What the command needs, from memory when it is all there (no promise), else loaded. */
  private prepare(command: InstanceCommand): Preparation | Promise<Preparation> {
    switch (command.kind) {
      case 'start': {
        const view = this.models.cachedView(command.account);
        const version = view?.latest.get(command.bpmnProcessId);
        const model = version === undefined ? undefined : this.models.cachedProcess(command.account, command.bpmnProcessId, version);
        return model ? this.contexts.of(model, view!, null, version!) : this.prepareStart(command.account, command.bpmnProcessId);
      }
      case 'completeJob':
      case 'failJob':
      case 'throwJobError':
      case 'holdJob': {
        const instanceKey = this.hot.ownerOf(command.jobKey);
        const hot = instanceKey === undefined ? undefined : this.hot.get(instanceKey);
        const ready = hot !== undefined && hot.account === command.account ? this.contexts.now(hot.account, hot.instance, hot) : undefined;
        return ready ?? this.prepareJob(command.account, command.jobKey);
      }
      case 'cancel':
      case 'activateAdHoc':
        return this.prepareInstance(command.account, command.instanceKey);
    }
  }

  private async prepareStart(account: string, bpmnProcessId: string): Promise<Preparation> {
    let view = await this.models.view(account);
    if (!view.latest.has(bpmnProcessId)) view = await this.models.view(account, true);
    const version = view.latest.get(bpmnProcessId);
    if (version === undefined) return { ok: false, code: 'NOT_FOUND', message: `No process '${bpmnProcessId}' is deployed.` };
    return (await this.contexts.load(account, { bpmnProcessId, version }, null))!;
  }

  private async prepareJob(account: string, jobKey: string): Promise<Preparation> {
    const instanceKey = await this.hot.instanceOfJob(account, jobKey);
    const hot = instanceKey === undefined ? undefined : await this.hot.load(account, instanceKey);
    if (hot === undefined) return { ok: false, code: 'NOT_FOUND', message: `Job '${jobKey}' not found: it was completed or cancelled, or never existed.` };
    return this.prepareFor(hot);
  }

  private async prepareInstance(account: string, instanceKey: string): Promise<Preparation> {
    const hot = await this.hot.load(account, instanceKey);
    if (hot === undefined) return { ok: false, code: 'NOT_FOUND', message: `Process instance '${instanceKey}' not found.` };
    return this.prepareFor(hot);
  }

  private async prepareFor(hot: Hot): Promise<Preparation> {
    const ctx = await this.contexts.load(hot.account, hot.instance, hot);
    return ctx ?? { ok: false, code: 'NOT_FOUND', message: `The model of process instance '${hot.instance.key}' is gone.` };
  }

  private applyPrepared(command: InstanceCommand, prepared: Preparation, work: BatchWork): CommandReply {
    if ('ok' in prepared) return prepared;
    if (command.kind === 'start') return this.start(command, prepared, work);
    return this.applyWith(prepared.target!, runtimeCommand(command), work, prepared);
  }

  private start(command: InstanceCommand & { kind: 'start' }, ctx: Prepared, work: BatchWork): CommandReply {
    const result = apply(null, { type: 'start', variables: command.variables, version: ctx.version }, ctx);
    if (!result.ok) return result;
    this.effects.settle(command.account, null, result, work, ctx.model);
    return {
      ok: true,
      value: { processInstanceKey: result.instance.key, bpmnProcessId: command.bpmnProcessId, version: ctx.version, state: result.instance.state },
    };
  }

  private applyWith(hot: Hot, command: Command, work: BatchWork, ctx: Prepared): CommandReply {
    const result = apply(hot.instance, command, ctx);
    if (!result.ok) return result;
    const grew = (command.type === 'completeJob' || command.type === 'throwJobError') && hasAny(command.variables);
    if (grew || (command.type === 'completeJob' && command.result?.activateElements?.length)) limitVariables(result, ctx);
    if (command.type === 'fireTimer' && result.instance.timers[command.timerKey] === undefined) work.batch.timersDelete!.push(command.timerKey);
    this.effects.settle(hot.account, hot.parentKey, result, work, ctx.model);
    return { ok: true, value: { done: true } };
  }
}

/**
 * A completion grew its instance's variables past the documented
 * per-instance limits: the instance is set aside with an incident saying
 * so (the completion stands; what it stored is within Postgres's reach).
 */
function limitVariables(result: Applied, ctx: Prepared): void {
  const instance = result.instance;
  if (instance.setAside !== undefined || instance.variables[instance.key] === undefined) return;
  const problem = instanceVariablesProblem(instance.variables, instance.key);
  if (problem === undefined) return;
  const more = apply(instance, { type: 'setAside', message: `Its variables outgrew the limits: ${problem}.` }, ctx);
  if (!more.ok) return;
  result.records.push(...more.records);
  result.effects.push(...more.effects);
}

function hasAny(variables: Variables | undefined): boolean {
  for (const _name in variables) return true;
  return false;
}

/** The runtime's command for an API command on an existing instance. */
function runtimeCommand(command: Exclude<InstanceCommand, { kind: 'start' }>): Command {
  switch (command.kind) {
    case 'completeJob':
      return command.result === undefined
        ? { type: 'completeJob', jobKey: command.jobKey, variables: command.variables }
        : { type: 'completeJob', jobKey: command.jobKey, variables: command.variables, result: command.result };
    case 'failJob':
      return { type: 'failJob', jobKey: command.jobKey, retries: command.retries, errorMessage: command.errorMessage, retryBackOff: command.retryBackOff };
    case 'throwJobError':
      return { type: 'throwJobError', jobKey: command.jobKey, errorCode: command.errorCode, errorMessage: command.errorMessage, variables: command.variables };
    case 'holdJob':
      return { type: 'holdJob', jobKey: command.jobKey, worker: command.worker, timeout: command.timeout };
    case 'cancel':
      return { type: 'cancel' };
    case 'activateAdHoc':
      return { type: 'activateAdHocElements', elementInstanceKey: command.elementInstanceKey, elements: command.elements };
  }
}
