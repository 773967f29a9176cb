// Runs cases beside processes in one process: holds case instances, their
// jobs and timers, and an InMemoryEngine for the BPMN processes their process
// tasks start, and routes effects between the two the way the partition
// leader will (a process task's child is a process instance whose parent is
// the case; cancelling the case cancels it; its completion completes the
// task). It backs `orca simulate` for .cmmn files, the core benchmark's case
// scenario and the case runtime tests; it does no I/O.
import { CommandRejected, InMemoryEngine, type InMemoryEngineOptions } from '../../runtime/in-memory-engine.ts';
import type { Command, Effect, HistoryRecord, JobOffer, Variables } from '../../runtime/types.ts';
import type { CaseModel } from '../types.ts';
import { bookEffect, keepHistory, type InMemoryBooks } from '../../runtime/in-memory-books.ts';
import { applyCase } from './apply-case.ts';
import type { CaseApplyContext, CaseApplyResult, CaseCommand, CaseInstance } from './types.ts';

export { CommandRejected } from '../../runtime/in-memory-engine.ts';

export class InMemoryCaseEngine {
  /** The processes' engine; deploy BPMN processes (and decisions) on it directly. */
  readonly processes: InMemoryEngine;
  private readonly cases = new Map<string, { model: CaseModel; version: number }>();
  private readonly instances = new Map<string, CaseInstance>();
  /** Jobs offered and owned, timers armed, histories kept (in-memory-books.ts). */
  private readonly books: InMemoryBooks & { timers: Map<string, { dueAt: number; instanceKey: string }> } = {
    jobOwners: new Map(),
    queues: new Map(),
    timers: new Map(),
    histories: new Map(),
  };
  /** Commands for case instances, applied after the step that produced them. */
  private readonly outbox: { instanceKey: string; command: CaseCommand }[] = [];
  private draining = false;
  private readonly now: () => number;

  constructor(private readonly options: InMemoryEngineOptions = {}) {
    this.now = options.now ?? Date.now;
    this.processes = new InMemoryEngine({ ...options, route: (key, command) => this.fromProcess(key, command) });
  }

  /** Deploys a case; returns its version. */
  deployCase(model: CaseModel): number {
    const version = (this.cases.get(model.id)?.version ?? 0) + 1;
    this.cases.set(model.id, { model, version });
    return version;
  }

  startCase(caseId: string, variables: Variables = {}): string {
    const ctx = this.context(caseId);
    const key = this.settle(
      applyCase(null, { type: 'start', variables, version: this.cases.get(caseId)!.version, caseInstanceKey: this.processes.newKey() }, ctx),
    ).key;
    this.drain();
    return key;
  }

  caseInstance(key: string): CaseInstance | undefined {
    return this.instances.get(key);
  }

  /** Case instances started by case tasks of `key`. */
  childCases(key: string): CaseInstance[] {
    return [...this.instances.values()].filter((i) => i.parent?.instanceKey === key);
  }

  history(key: string): HistoryRecord[] {
    return this.books.histories.get(key) ?? this.processes.history(key);
  }

  /** Applies a command to a case instance, then whatever it sets off. */
  command(instanceKey: string, command: CaseCommand): void {
    const instance = this.instances.get(instanceKey);
    if (instance === undefined) throw new CommandRejected('NOT_FOUND', `Case instance '${instanceKey}' not found.`);
    this.settle(applyCase(instance, command, this.context(instance.caseDefinitionId)));
    this.drain();
  }

  /** Completes a job of a case or of a process (a process task's child). */
  completeJob(jobKey: string, variables?: Variables): void {
    const owner = this.books.jobOwners.get(jobKey);
    if (owner === undefined) this.processes.completeJob(jobKey, variables);
    else this.command(owner, { type: 'completeJob', jobKey, variables });
    this.drain();
  }

  failJob(jobKey: string, retries: number, errorMessage?: string): void {
    const owner = this.books.jobOwners.get(jobKey);
    if (owner === undefined) this.processes.failJob(jobKey, retries, errorMessage);
    else this.command(owner, { type: 'failJob', jobKey, retries, errorMessage });
    this.drain();
  }

  /** Pops up to `max` case jobs of `type` (stale offers dropped), with the case file as their variables. */
  activate(type: string, max: number): (JobOffer & { variables: Variables })[] {
    const queue = this.books.queues.get(type);
    const jobs: (JobOffer & { variables: Variables })[] = [];
    while (queue !== undefined && queue.length > 0 && jobs.length < max) {
      const offer = queue.shift()!;
      const instance = this.instances.get(offer.processInstanceKey);
      if (instance?.jobs[offer.key] === undefined) continue;
      jobs.push({ ...offer, variables: { ...instance.variables } });
    }
    return jobs;
  }

  cancelCase(key: string): void {
    this.command(key, { type: 'cancel' });
  }

  /** Fires every case and process timer due at or before now(). Returns how many fired. */
  fireDueTimers(): number {
    let fired = 0;
    for (;;) {
      fired += this.processes.fireDueTimers();
      this.drain();
      const now = this.now();
      let next: [string, { dueAt: number; instanceKey: string }] | undefined;
      for (const entry of this.books.timers) if (entry[1].dueAt <= now && (next === undefined || entry[1].dueAt < next[1].dueAt)) next = entry;
      if (next === undefined) return fired;
      fired++;
      this.books.timers.delete(next[0]);
      try {
        this.command(next[1].instanceKey, { type: 'fireTimer', timerKey: next[0] });
      } catch (err) {
        // A timer whose case ended meanwhile is simply gone.
        if (!(err instanceof CommandRejected)) throw err;
      }
    }
  }

  nextTimerDue(): number | undefined {
    let due = this.processes.nextTimerDue();
    for (const timer of this.books.timers.values()) if (due === undefined || timer.dueAt < due) due = timer.dueAt;
    return due;
  }

  private context(caseId: string): CaseApplyContext {
    const deployed = this.cases.get(caseId);
    if (deployed === undefined) throw new CommandRejected('NOT_FOUND', `No case '${caseId}' is deployed.`);
    return {
      model: deployed.model,
      nextKey: () => this.processes.newKey(),
      now: this.now,
      stepBudget: this.options.stepBudget,
      maxCallDepth: this.options.maxCallDepth,
      hasProcess: (id) => this.processes.hasProcessDeployed(id),
      hasCase: (id) => this.cases.has(id),
    };
  }

  /** A process instance's command for an instance the process engine does not hold: one of our cases. */
  private fromProcess(instanceKey: string, command: Command): void {
    if (!this.instances.has(instanceKey)) return;
    if (command.type === 'childCompleted')
      this.outbox.push({ instanceKey, command: { type: 'childCompleted', elementInstanceKey: command.elementInstanceKey, variables: command.variables } });
    else if (command.type === 'childError') {
      // A case catches no BPMN errors: the child raises the incident where the error was thrown.
      this.toProcess(command.childInstanceKey, { type: 'errorUnhandled', elementInstanceKey: command.throwingElementInstanceKey });
    }
    // An escalation nobody above catches changes nothing (as in BPMN).
  }

  private toProcess(instanceKey: string, command: Command): void {
    try {
      this.processes.command(instanceKey, command);
    } catch (err) {
      // A child that already ended takes no more commands (a cancel that crossed its completion).
      if (!(err instanceof CommandRejected)) throw err;
    }
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.outbox.length > 0) {
        const { instanceKey, command } = this.outbox.shift()!;
        const instance = this.instances.get(instanceKey);
        if (instance === undefined) continue;
        const result = applyCase(instance, command, this.context(instance.caseDefinitionId));
        // A message for a case that already moved on changes nothing.
        if (result.ok) this.settle(result);
      }
    } finally {
      this.draining = false;
    }
  }

  private settle(result: CaseApplyResult): CaseInstance {
    if (!result.ok) throw new CommandRejected(result.code, result.message);
    const instance = result.instance;
    this.instances.set(instance.key, instance);
    if (this.options.keepHistory) keepHistory(this.books, instance.key, result.records);
    for (const effect of result.effects) {
      // A case's effects are the BPMN runtime's, plus startChildCase, which bookEffect leaves alone.
      if (bookEffect(this.books, effect as Effect, instance.key)) continue;
      switch (effect.type) {
        case 'startChild':
          this.processes.startChild(instance.key, effect);
          break;
        case 'startChildCase': {
          const child = applyCase(
            null,
            {
              type: 'start',
              caseInstanceKey: effect.childInstanceKey,
              variables: effect.variables,
              version: this.cases.get(effect.caseId)?.version,
              parent: { instanceKey: instance.key, elementInstanceKey: effect.parentElementInstanceKey },
              depth: effect.depth,
            },
            this.context(effect.caseId),
          );
          this.settle(child);
          break;
        }
        case 'sendCommand':
          if (this.instances.has(effect.instanceKey)) this.outbox.push({ instanceKey: effect.instanceKey, command: effect.command as CaseCommand });
          else this.toProcess(effect.instanceKey, effect.command);
          break;
      }
    }
    for (const record of result.records) if (record.type === 'JOB_COMPLETED' && record.jobKey) this.books.jobOwners.delete(record.jobKey);
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') {
      for (const jobKey of Object.keys(instance.jobs)) this.books.jobOwners.delete(jobKey);
      if (this.options.forgetEnded) this.instances.delete(instance.key);
    }
    return instance;
  }
}
