// A single-process driver around apply(): holds instances, job queues,
// timers and deployments in memory and plays the part the partition leader
// and the Redis queues play in production (route effects, resolve called
// processes and decisions, fire due timers). It backs `orca simulate`, the
// core benchmark and the runtime tests; the durable engine replaces it, not
// the state machine.
import type { CompiledDmn } from '../dmn/index.ts';
import { evaluateDecision } from '../dmn/index.ts';
import { SIGNAL_START_GENERATIONS } from '../limits.ts';
import type { ProcessModel } from '../model/types.ts';
import { apply } from './apply.ts';
import { bookEffect, keepHistory, type InMemoryBooks } from './in-memory-books.ts';
import { visibleVariables } from './behavior/variables.ts';
import { childStartCommand, type StartChild } from './child-start.ts';
import { MessageBuffer, SubscriptionIndex, type PublishedMessage } from './message-buffer.ts';
import { MessageStartGate, type EndedStart, type StartedByMessage } from './message-start-gate.ts';
import { messageStartsOf, signalStartsOf } from './message-starts.ts';
import { startTimersOf } from './start-timers.ts';
import { nextDue, type TimerSchedule } from '../timer/index.ts';
import type { AdHocJobResult, ApplyContext, ApplyResult, Command, DecisionEvaluator, HistoryRecord, JobOffer, ProcessInstance, Variables } from './types.ts';

export interface ActivatedJob extends JobOffer {
  variables: Variables;
}

export interface InMemoryEngineOptions {
  /** Clock; defaults to Date.now. Tests pass a fake one. */
  now?: () => number;
  stepBudget?: number;
  /** Keep every history record per instance (tests, simulate); off for benchmarks. */
  keepHistory?: boolean;
  /** Forget instances once they complete or terminate (benchmarks), so memory stays flat. */
  forgetEnded?: boolean;
  /** See ApplyContext.maxCallDepth. */
  maxCallDepth?: number;
  /**
   * Where a command for an instance this engine does not hold goes (a case
   * instance above a process task's child, engine/cmmn); without it, such a
   * command is dropped.
   */
  route?: (instanceKey: string, command: Command) => void;
}

export class CommandRejected extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface ScheduledTimer {
  dueAt: number;
  /** An instance's timer, or a timer start event of a deployed process. */
  instanceKey?: string;
  start?: { bpmnProcessId: string; elementId: string; schedule: TimerSchedule; fired: number };
}

/** Signals thrown in answer to one call, at most (a model that throws in a loop stops there). */
const MAX_THROWN_SIGNALS = 10_000;

export class InMemoryEngine {
  private readonly models = new Map<string, { model: ProcessModel; version: number }>();
  private readonly decisions = new Map<string, CompiledDmn>();
  private readonly instances = new Map<string, ProcessInstance>();
  /** Jobs offered and owned, timers armed, histories kept (in-memory-books.ts). */
  private readonly books: InMemoryBooks & { timers: Map<string, ScheduledTimer> } = {
    jobOwners: new Map(),
    queues: new Map(),
    timers: new Map(),
    histories: new Map(),
  };
  /** Commands for other instances, applied after the one that produced them. */
  private readonly outbox: { instanceKey: string; command: Command }[] = [];
  /** Signals thrown by throw and end events (extension), broadcast once the command that threw them is done; with the thrower's signal generation. */
  private readonly thrown: { name: string; variables: Variables; generation: number }[] = [];
  private readonly buffer = new MessageBuffer();
  private readonly subscriptions = new SubscriptionIndex();
  /** Which message-started instance holds each process and correlation key (message-start-gate.ts). */
  private readonly gate = new MessageStartGate();
  /** Message-started instances that ended: a buffered message published after theirs may start the next. */
  private readonly ended: EndedStart[] = [];
  private counter = 2251799813685248; // 2^51, so keys look like the durable engine's 64-bit keys
  private readonly now: () => number;
  private readonly evaluate: DecisionEvaluator = (decisionId, variables) => {
    const model = this.decisions.get(decisionId);
    if (model === undefined) return { ok: false, error: `no decision '${decisionId}' is deployed` };
    const result = evaluateDecision(model, decisionId, variables);
    return result.ok ? { ok: true, result: result.result } : { ok: false, error: result.error };
  };
  private readonly hasProcess = (id: string) => this.models.has(id);

  constructor(private readonly options: InMemoryEngineOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Deploys a process; a new version replaces the previous one's timer start events. */
  deploy(process: ProcessModel): number {
    const version = (this.models.get(process.id)?.version ?? 0) + 1;
    this.models.set(process.id, { model: process, version });
    for (const [key, timer] of this.books.timers) if (timer.start?.bpmnProcessId === process.id) this.books.timers.delete(key);
    const starts = startTimersOf(process, this.now());
    if (!starts.ok) throw new CommandRejected('INVALID_ARGUMENT', starts.error);
    for (const { elementId, schedule, dueAt } of starts.timers) {
      this.books.timers.set(this.nextKey(), { dueAt, start: { bpmnProcessId: process.id, elementId, schedule, fired: 0 } });
    }
    return version;
  }

  /** Makes every decision of a compiled DMN model callable by business-rule tasks (latest deployment wins). */
  deployDecisions(model: CompiledDmn): void {
    for (const decision of model.decisions) this.decisions.set(decision.id, model);
  }

  private nextKey = (): string => String(++this.counter);

  /** A fresh key from the same sequence as instance, job and timer keys (for a host running cases beside processes). */
  newKey(): string {
    return this.nextKey();
  }

  /** Starts the child instance a startChild effect asks for, under `parentKey` (a case's process task). */
  startChild(parentKey: string, effect: StartChild): void {
    const deployed = this.models.get(effect.bpmnProcessId);
    if (deployed === undefined) throw new CommandRejected('NOT_FOUND', `No process '${effect.bpmnProcessId}' is deployed.`);
    this.settle(apply(null, childStartCommand(effect, parentKey, deployed.version), this.context(effect.bpmnProcessId)));
    this.drainOutbox();
  }

  /** Whether a process id is deployed. */
  hasProcessDeployed(bpmnProcessId: string): boolean {
    return this.models.has(bpmnProcessId);
  }

  private context(bpmnProcessId: string): ApplyContext {
    const deployed = this.models.get(bpmnProcessId);
    if (deployed === undefined) throw new CommandRejected('NOT_FOUND', `No process '${bpmnProcessId}' is deployed.`);
    return {
      model: deployed.model,
      nextKey: this.nextKey,
      now: this.now,
      stepBudget: this.options.stepBudget,
      evaluateDecision: this.evaluate,
      hasProcess: this.hasProcess,
      maxCallDepth: this.options.maxCallDepth,
    };
  }

  /** Starts an instance of the deployed process `bpmnProcessId`; returns the instance key. */
  start(bpmnProcessId: string, variables: Variables = {}, startEventId?: string): string {
    const key = this.launch(bpmnProcessId, variables, startEventId);
    this.drainOutbox();
    return key;
  }

  private launch(bpmnProcessId: string, variables: Variables, startEventId?: string, message?: StartedByMessage): string {
    const ctx = this.context(bpmnProcessId);
    const version = this.models.get(bpmnProcessId)!.version;
    return this.settle(apply(null, { type: 'start', variables, version, startEventId, ...(message && { message }) }, ctx)).key;
  }

  /**
   * Pops up to `max` jobs of `type`, with the variables visible to each now.
   * With a `timeout` (ms, extension) each is held by `worker` until then and
   * offered again if neither completed nor failed by the time its timer fires.
   */
  activate(type: string, max: number, options: { timeout?: number; worker?: string } = {}): ActivatedJob[] {
    const queue = this.books.queues.get(type);
    const jobs: ActivatedJob[] = [];
    while (queue !== undefined && queue.length > 0 && jobs.length < max) {
      const offer = queue.shift()!;
      const instance = this.instances.get(offer.processInstanceKey);
      // Offers of cancelled or completed jobs are dropped lazily here.
      if (instance === undefined || instance.jobs[offer.key] === undefined) continue;
      jobs.push({ ...offer, variables: { ...visibleVariables(instance, offer.elementInstanceKey) } });
    }
    if (options.timeout) {
      const { timeout, worker = 'default' } = options;
      for (const job of jobs) this.command(job.processInstanceKey, { type: 'holdJob', jobKey: job.key, worker, timeout });
    }
    return jobs;
  }

  completeJob(jobKey: string, variables?: Variables, result?: AdHocJobResult): void {
    this.jobCommand(jobKey, { type: 'completeJob', jobKey, variables, result });
  }

  failJob(jobKey: string, retries: number, errorMessage?: string, retryBackOff?: number): void {
    this.jobCommand(jobKey, { type: 'failJob', jobKey, retries, errorMessage, retryBackOff });
  }

  /** A worker's BPMN error for its job (extension): caught like an error end event's, variables set where it is caught. */
  throwJobError(jobKey: string, errorCode: string, errorMessage?: string, variables?: Variables): void {
    this.jobCommand(jobKey, { type: 'throwJobError', jobKey, errorCode, errorMessage, variables });
  }

  cancel(instanceKey: string): void {
    this.command(instanceKey, { type: 'cancel' });
  }

  /** Applies a command to an instance, then whatever it sends to other instances. */
  command(instanceKey: string, command: Command): void {
    const instance = this.instances.get(instanceKey);
    if (instance === undefined) throw new CommandRejected('NOT_FOUND', `Process instance '${instanceKey}' not found.`);
    this.settle(apply(instance, command, this.context(instance.bpmnProcessId)));
    this.drainOutbox();
  }

  /**
   * Publishes a message (extension): it correlates to the first instance of
   * each process with a matching open subscription, starts an instance of each
   * other deployed process with a message start event of that name (none while
   * an instance a message with this non-empty key started is active), and,
   * with a time to live, stays buffered for subscriptions opened later.
   * Returns the message key and the instances it started.
   */
  publishMessage(message: PublishedMessage): { messageKey: string; startedInstances: string[] } {
    const now = this.now();
    const correlationKey = message.correlationKey ?? '';
    this.buffer.expire(now);
    if (message.messageId !== undefined && this.buffer.withMessageId('', message.name, correlationKey, message.messageId, now) !== undefined) {
      throw new CommandRejected('ALREADY_EXISTS', `A message named '${message.name}' with messageId '${message.messageId}' is still buffered.`);
    }
    const messageKey = this.nextKey();
    const variables = message.variables ?? {};
    // Zeebe's cardinality: the first waiting instance of each process (by BPMN process id) gets it, and a process one got it starts none.
    const processes = new Set<string>();
    for (const instanceKey of this.subscriptions.instancesFor('', message.name, correlationKey)) {
      const bpmnProcessId = this.instances.get(instanceKey)!.bpmnProcessId;
      if (processes.has(bpmnProcessId)) continue;
      processes.add(bpmnProcessId);
      this.outbox.push({ instanceKey, command: { type: 'correlateMessage', messageKey, name: message.name, correlationKey, variables } });
    }
    this.drainOutbox();
    const startedInstances: string[] = [];
    const by = { messageKey, name: message.name, correlationKey };
    for (const { model } of [...this.models.values()]) {
      for (const start of messageStartsOf(model)) {
        if (start.name !== message.name || processes.has(model.id) || !this.gate.open('', model.id, message.name, correlationKey)) continue;
        processes.add(model.id);
        startedInstances.push(this.launch(model.id, variables, start.elementId, by));
        this.drainOutbox();
      }
    }
    const ttl = message.timeToLive ?? 0;
    const { name, messageId } = message;
    if (ttl > 0) this.buffer.add({ key: messageKey, account: '', name, correlationKey, variables, expiresAt: now + ttl, messageId, processes });
    return { messageKey, startedInstances };
  }

  /**
   * Broadcasts a signal (extension, docs/signals.md): it reaches every open
   * signal subscription of its name (catch events, boundaries, event
   * subprocess starts, event-based gateway branches) and starts an instance
   * of each deployed process with a signal start event of that name. Not
   * buffered. Returns the signal key and the instances it started.
   */
  broadcastSignal(name: string, variables: Variables = {}): { signalKey: string; startedInstances: string[] } {
    const signalKey = this.nextKey();
    this.deliverSignal(signalKey, name, variables);
    this.drainOutbox();
    const startedInstances: string[] = [];
    for (const { model } of [...this.models.values()]) {
      for (const start of signalStartsOf(model)) {
        if (start.name === name) startedInstances.push(this.start(model.id, variables, start.elementId));
      }
    }
    return { signalKey, startedInstances };
  }

  /** A thrown signal's starts: settled here, not through start(), so they are drained by the loop that threw it. */
  private startBySignal(name: string, variables: Variables, signalGeneration: number): void {
    for (const { model, version } of [...this.models.values()]) {
      const start = signalStartsOf(model).find((s) => s.name === name);
      if (start === undefined) continue;
      const result = apply(null, { type: 'start', variables, version, startEventId: start.elementId, signalGeneration }, this.context(model.id));
      if (result.ok) this.settle(result);
    }
  }

  private deliverSignal(signalKey: string, name: string, variables: Variables): void {
    for (const instanceKey of this.subscriptions.instancesForSignal('', name)) {
      this.outbox.push({ instanceKey, command: { type: 'receiveSignal', signalKey, name, variables } });
    }
  }

  /** The open message and signal subscriptions of an instance (extension), for `orca simulate --message` and `--signal`. */
  subscriptionsOf(instanceKey: string): { name: string; correlationKey: string; elementId: string; signal?: true }[] {
    return Object.values(this.instances.get(instanceKey)?.subscriptions ?? {});
  }

  /** Moves nothing but fires, in due order, every timer due at or before now(). Returns how many fired. */
  fireDueTimers(): number {
    let fired = 0;
    for (;;) {
      const now = this.now();
      let nextKey: string | undefined;
      let next: ScheduledTimer | undefined;
      for (const [key, timer] of this.books.timers) {
        if (timer.dueAt <= now && (next === undefined || timer.dueAt < next.dueAt)) [nextKey, next] = [key, timer];
      }
      if (next === undefined || nextKey === undefined) return fired;
      fired++;
      this.books.timers.delete(nextKey);
      if (next.start !== undefined) this.fireStartTimer(next.start, next.dueAt);
      else {
        try {
          this.command(next.instanceKey!, { type: 'fireTimer', timerKey: nextKey });
        } catch (err) {
          // A timer whose owner ended meanwhile is simply gone.
          if (!(err instanceof CommandRejected)) throw err;
        }
      }
    }
  }

  private fireStartTimer(start: NonNullable<ScheduledTimer['start']>, dueAt: number): void {
    const fired = start.fired + 1;
    const again = nextDue(start.schedule, dueAt, fired, this.now());
    if (again !== null) this.books.timers.set(this.nextKey(), { dueAt: again, start: { ...start, fired } });
    this.start(start.bpmnProcessId, {}, start.elementId);
  }

  /** When the next timer is due, or undefined when none is armed. */
  nextTimerDue(): number | undefined {
    let due: number | undefined;
    for (const timer of this.books.timers.values()) if (due === undefined || timer.dueAt < due) due = timer.dueAt;
    return due;
  }

  instance(key: string): ProcessInstance | undefined {
    return this.instances.get(key);
  }

  /** Instances started by call activities of `key`. */
  children(key: string): ProcessInstance[] {
    return [...this.instances.values()].filter((i) => i.parent?.instanceKey === key);
  }

  history(key: string): HistoryRecord[] {
    return this.books.histories.get(key) ?? [];
  }

  /** Number of queued offers of `type` (stale ones included). */
  queued(type: string): number {
    return this.books.queues.get(type)?.length ?? 0;
  }

  private jobCommand(jobKey: string, command: Command): void {
    const owner = this.books.jobOwners.get(jobKey);
    if (owner === undefined || !this.instances.has(owner)) throw new CommandRejected('NOT_FOUND', `Job '${jobKey}' not found.`);
    this.command(owner, command);
  }

  private drainOutbox(): void {
    for (let signals = 0; ;) {
      // A thrown signal goes out once everything before it is settled: it reaches waiting instances and, free here, starts
      // instances by signal start events, one generation past its thrower's (none past the bound, as in the durable engine).
      if (this.outbox.length === 0 && this.thrown.length > 0) {
        // A model whose signal leads back to its own throw would never let the caller return.
        if (++signals > MAX_THROWN_SIGNALS) {
          this.thrown.length = 0;
          throw new CommandRejected(
            'INVALID_STATE',
            `More than ${MAX_THROWN_SIGNALS} signals were thrown in answer to one command: the model throws signals in a loop.`,
          );
        }
        const signal = this.thrown.shift()!;
        this.deliverSignal(this.nextKey(), signal.name, signal.variables);
        if (signal.generation < SIGNAL_START_GENERATIONS) this.startBySignal(signal.name, signal.variables, signal.generation + 1);
      }
      if (this.outbox.length === 0 && this.thrown.length === 0 && this.ended.length > 0) this.startBuffered(this.ended.shift()!);
      // The instances a signal or a buffered message started may have thrown signals, or ended, in turn.
      if (this.outbox.length === 0 && this.thrown.length === 0 && this.ended.length === 0) return;
      if (this.outbox.length === 0) continue;
      const { instanceKey, command } = this.outbox.shift()!;
      const instance = this.instances.get(instanceKey);
      if (instance === undefined) {
        this.options.route?.(instanceKey, command);
        continue;
      }
      const result = apply(instance, command, this.context(instance.bpmnProcessId));
      // A message for an instance that already moved on (a child cancelled after it completed) changes nothing.
      if (result.ok) this.settle(result);
    }
  }

  /** A message-started instance ended: the first live buffered message of its name and key published after its own starts the next. */
  private startBuffered(ended: EndedStart): void {
    const { bpmnProcessId, name, correlationKey } = ended;
    const model = this.models.get(bpmnProcessId)?.model;
    const start = model && messageStartsOf(model).find((s) => s.name === name);
    const next = this.buffer.firstAfter('', bpmnProcessId, name, correlationKey, ended.messageKey, this.now());
    if (start === undefined || next === undefined || !this.gate.open('', bpmnProcessId, name, correlationKey)) return;
    this.buffer.wentTo(next.key, bpmnProcessId);
    this.launch(bpmnProcessId, next.variables, start.elementId, { messageKey: next.key, name, correlationKey });
  }

  private settle(result: ApplyResult): ProcessInstance {
    if (!result.ok) throw new CommandRejected(result.code, result.message);
    const instance = result.instance;
    this.instances.set(instance.key, instance);
    if (this.options.keepHistory) keepHistory(this.books, instance.key, result.records);
    for (const effect of result.effects) {
      if (bookEffect(this.books, effect, instance.key)) continue;
      switch (effect.type) {
        case 'startChild': {
          const ctx = this.context(effect.bpmnProcessId);
          const child = apply(null, childStartCommand(effect, instance.key, this.models.get(effect.bpmnProcessId)!.version), ctx);
          this.settle(child);
          break;
        }
        case 'sendCommand':
          this.outbox.push({ instanceKey: effect.instanceKey, command: effect.command });
          break;
        case 'openSubscription': {
          const s = effect.subscription;
          this.subscriptions.open('', instance.key, s);
          if (s.signal === true) break;
          // A buffered message neither the instance nor another of its process had yet correlates at once.
          const command = this.buffer.correlationFor('', instance.bpmnProcessId, s, this.now(), instance.correlatedMessages);
          if (command === undefined) break;
          this.buffer.wentTo(command.messageKey, instance.bpmnProcessId);
          this.outbox.push({ instanceKey: instance.key, command });
          break;
        }
        case 'closeSubscription':
          this.subscriptions.close('', effect.subscription);
          break;
        case 'throwSignal':
          this.thrown.push({ name: effect.name, variables: effect.variables, generation: instance.signalGeneration ?? 0 });
          break;
      }
    }
    // Completed jobs no longer route anywhere.
    for (const record of result.records) if (record.type === 'JOB_COMPLETED' && record.jobKey) this.books.jobOwners.delete(record.jobKey);
    const ended = this.gate.settled('', instance, result.records);
    if (ended !== undefined) this.ended.push(ended);
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') {
      for (const jobKey of Object.keys(instance.jobs)) this.books.jobOwners.delete(jobKey);
      if (this.options.forgetEnded) this.instances.delete(instance.key);
    }
    return instance;
  }
}
