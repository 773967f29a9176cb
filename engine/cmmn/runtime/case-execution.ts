// One command's worth of execution over a case instance document: the plan
// item lifecycle transitions (CMMN 1.1, the Stage and Task lifecycle), the agenda that carries each
// transition's standard event to the sentries listening for it (CMMN 1.1, Sentry), and
// stage completion (CMMN 1.1, Stage autoComplete). Deterministic: the clock and keys come from the
// context. A step budget stops a cycle of sentries that would fire forever,
// with an incident naming the element instead of a hang.
import type { HistoryRecord, IncidentType, Job, RecordType } from '../../runtime/types.ts';
import type { PlanItem, StandardEvent } from '../types.ts';
import { evaluateRule } from './conditions.ts';
import { activate, begin, terminateWork } from './plan-item-behavior.ts';
import { checkConditions, processEvent } from './sentries.ts';
import type { CaseApplyContext, CaseEffect, CaseInstance, PlanItemInstance, PlanItemState } from './types.ts';

const DEFAULT_STEP_BUDGET = 10_000;

type AgendaItem =
  /** A standard event of a plan item instance, for the sentries that listen to it. */
  | { kind: 'event'; key: string; event: StandardEvent }
  /** A plan item just created: start it if nothing guards its entry, arm its timer. */
  | { kind: 'begin'; key: string }
  /** Something inside a stage ended or changed: can the stage complete? */
  | { kind: 'check'; key: string }
  /** Criteria with an if-part only: evaluate them now (creation, or a case file change). */
  | { kind: 'conditions'; key: string };

/** States a plan item instance can still leave. */
export const LIVE: ReadonlySet<PlanItemState> = new Set(['AVAILABLE', 'ENABLED', 'DISABLED', 'ACTIVE']);

export class CaseExecution {
  readonly records: HistoryRecord[] = [];
  readonly effects: CaseEffect[] = [];
  readonly now: number;
  private agenda: AgendaItem[] = [];
  private head = 0;
  private steps = 0;
  private overBudget = false;
  /** A cancel: bounded by the plan items there are (no sentry runs once the case has ended), so no budget stops it. */
  unbounded = false;
  private readonly budget: number;
  constructor(
    readonly instance: CaseInstance,
    readonly ctx: CaseApplyContext,
  ) {
    this.now = ctx.now();
    this.budget = ctx.stepBudget ?? DEFAULT_STEP_BUDGET;
  }

  get model() {
    return this.ctx.model;
  }

  nextKey(): string {
    return this.ctx.nextKey();
  }

  get stopped(): boolean {
    return this.instance.state !== 'ACTIVE';
  }

  record(type: RecordType, fields?: Omit<HistoryRecord, 'type' | 'at'>): void {
    this.records.push({ type, at: this.now, ...fields });
  }

  effect(effect: CaseEffect): void {
    this.effects.push(effect);
  }

  itemOf(pi: PlanItemInstance): PlanItem {
    return this.model.planItems[pi.id];
  }

  /** Live plan item instances directly inside the stage instance `stageKey`. */
  childrenOf(stageKey: string): PlanItemInstance[] {
    return Object.values(this.instance.planItems).filter((pi) => pi.stageKey === stageKey);
  }

  /** Creates an AVAILABLE instance of `item` in the stage instance `stageKey`; `begin` starts it if nothing guards its entry. */
  create(item: PlanItem, stageKey: string | undefined, key: string = this.nextKey(), checkConditions = true): PlanItemInstance {
    const pi: PlanItemInstance = { key, id: item.id, definitionId: item.definitionId, type: item.type, state: 'AVAILABLE', createdAt: this.now };
    if (stageKey !== undefined) pi.stageKey = stageKey;
    this.instance.planItems[key] = pi;
    this.recordTransition(pi, 'create');
    this.push({ kind: 'event', key, event: 'create' });
    this.push({ kind: 'begin', key });
    if (checkConditions) this.push({ kind: 'conditions', key });
    return pi;
  }

  /** Moves `pi` to `state` by `transition` (a standard event) and tells the sentries. False once over budget. */
  transition(pi: PlanItemInstance, state: PlanItemState, transition: StandardEvent): boolean {
    // Once over budget, nothing more moves in this command (and only one incident says so).
    if (this.overBudget) return false;
    if (++this.steps > this.budget && !this.unbounded) {
      this.overBudget = true;
      this.incident(
        pi,
        'STEP_BUDGET_EXCEEDED',
        `Stopped at '${pi.id}' after ${this.budget} plan item transitions in one command: its sentries fire each other in a cycle that never waits.`,
      );
      return false;
    }
    pi.state = state;
    if (!LIVE.has(state)) pi.endedAt = this.now;
    this.recordTransition(pi, transition);
    this.push({ kind: 'event', key: pi.key, event: transition });
    // Ending, or being disabled, can let the stage complete.
    if ((!LIVE.has(state) || state === 'DISABLED') && pi.stageKey !== undefined) this.push({ kind: 'check', key: pi.stageKey });
    return true;
  }

  private recordTransition(pi: PlanItemInstance, transition: StandardEvent): void {
    this.record('PLAN_ITEM_TRANSITIONED', { elementId: pi.id, elementType: pi.type, elementInstanceKey: pi.key, detail: { transition, state: pi.state } });
  }

  push(item: AgendaItem): void {
    this.agenda.push(item);
  }

  /** Enters a plan item whose entry is open: ENABLED when manual activation applies, else ACTIVE (the Stage and Task lifecycle); a milestone occurs. */
  enter(pi: PlanItemInstance, item: PlanItem): void {
    if (item.type === 'milestone') {
      this.transition(pi, 'COMPLETED', 'occur');
      return;
    }
    const manual = evaluateRule(item.manualActivation, this.instance.variables, this);
    if (!manual.ok) return this.incident(pi, 'CONDITION_ERROR', `The manual activation rule of '${pi.id}' could not be evaluated: ${manual.error}`);
    if (manual.value) this.transition(pi, 'ENABLED', 'enable');
    else this.start(pi, item, 'start');
  }

  start(pi: PlanItemInstance, item: PlanItem, transition: 'start' | 'manualStart'): void {
    if (!this.transition(pi, 'ACTIVE', transition)) return;
    activate(this, pi, item);
  }

  /** ACTIVE → COMPLETED; a repeatable item without entry criteria repeats on completion (CMMN 1.1, RepetitionRule). */
  complete(pi: PlanItemInstance): void {
    if (!this.transition(pi, 'COMPLETED', 'complete')) return;
    if (pi.stageKey === undefined) this.endCase('COMPLETED');
    else this.repeatAfterEnd(pi);
  }

  /** Terminates `pi` and everything inside it (an exit criterion, a manual terminate, the case cancelled). */
  terminate(pi: PlanItemInstance, transition: 'exit' | 'terminate'): void {
    if (!LIVE.has(pi.state)) return;
    for (const child of this.childrenOf(pi.key)) this.terminate(child, 'exit');
    terminateWork(this, pi);
    if (!this.transition(pi, 'TERMINATED', transition)) return;
    if (pi.stageKey === undefined) this.endCase('TERMINATED');
  }

  private repeatAfterEnd(pi: PlanItemInstance): void {
    const item = this.itemOf(pi);
    if (item.entry.length > 0 || item.repetition === false) return;
    const repeat = evaluateRule(item.repetition, this.instance.variables, this);
    if (!repeat.ok) return this.incident(pi, 'CONDITION_ERROR', `The repetition rule of '${pi.id}' could not be evaluated: ${repeat.error}`);
    if (repeat.value && this.instance.planItems[pi.stageKey!]?.state === 'ACTIVE') this.create(item, pi.stageKey);
  }

  endCase(state: 'COMPLETED' | 'TERMINATED'): void {
    const instance = this.instance;
    instance.state = state;
    instance.endedAt = this.now;
    for (const jobKey of Object.keys(instance.jobs)) this.cancelJob(jobKey);
    for (const timerKey of Object.keys(instance.timers)) this.cancelTimer(timerKey);
    this.record(state === 'COMPLETED' ? 'CASE_INSTANCE_COMPLETED' : 'CASE_INSTANCE_TERMINATED', { elementId: this.model.id, elementType: 'case' });
    if (state === 'COMPLETED' && instance.parent !== undefined) {
      this.effect({
        type: 'sendCommand',
        instanceKey: instance.parent.instanceKey,
        command: { type: 'childCompleted', elementInstanceKey: instance.parent.elementInstanceKey, variables: instance.variables },
      });
    }
    this.agenda = [];
    this.head = 0;
  }

  cancelJob(jobKey: string): void {
    const job = this.instance.jobs[jobKey];
    if (job === undefined) return;
    this.dropJobTimers(job);
    delete this.instance.jobs[jobKey];
    this.record('JOB_CANCELED', { elementId: job.elementId, elementInstanceKey: job.elementInstanceKey, jobKey });
    this.effect({ type: 'cancelJob', jobKey, jobType: job.type });
  }

  /** A job was completed, failed, withdrawn or held anew: its activation deadline and retry back-off go. */
  dropJobTimers(job: Job): void {
    for (const timer of Object.values(this.instance.timers)) if (timer.jobKey === job.key) this.cancelTimer(timer.key);
    job.held = undefined;
  }

  cancelTimer(timerKey: string): void {
    const timer = this.instance.timers[timerKey];
    if (timer === undefined) return;
    delete this.instance.timers[timerKey];
    this.record('TIMER_CANCELED', { elementId: timer.elementId, detail: { timerKey } });
    this.effect({ type: 'cancelTimer', timerKey });
  }

  /** The plan item stays where it is and the case enters INCIDENT (as a process instance does). */
  incident(pi: PlanItemInstance, type: IncidentType, message: string): void {
    const key = this.nextKey();
    this.instance.incidents[key] = { key, type, elementId: pi.id, elementInstanceKey: pi.key, message, createdAt: this.now };
    pi.incidentKey = key;
    this.instance.state = 'INCIDENT';
    this.record('INCIDENT_CREATED', { elementId: pi.id, elementInstanceKey: pi.key, incidentKey: key, detail: { incidentType: type, message } });
    this.agenda = [];
    this.head = 0;
  }

  /** Works the agenda until nothing is left to do or the case stopped. */
  run(): void {
    while (this.head < this.agenda.length && !this.stopped) {
      const next = this.agenda[this.head++];
      const pi = this.instance.planItems[next.key];
      if (pi === undefined) continue;
      switch (next.kind) {
        case 'event':
          processEvent(this, pi, next.event);
          break;
        case 'begin':
          if (pi.state === 'AVAILABLE') begin(this, pi, this.itemOf(pi));
          break;
        case 'conditions':
          if (LIVE.has(pi.state)) checkConditions(this, pi);
          break;
        case 'check':
          if (pi.state === 'ACTIVE') this.checkStage(pi);
          break;
      }
      if (this.head > 1024 && this.head * 2 > this.agenda.length) {
        this.agenda = this.agenda.slice(this.head);
        this.head = 0;
      }
    }
  }

  /**
   * Stage completion (CMMN 1.1, Stage autoComplete, as Camunda 7 and Flowable apply it):
   * nothing inside may be ACTIVE; with autoComplete every required item must
   * be done (COMPLETED, TERMINATED or DISABLED); without it, nothing may be
   * left AVAILABLE or ENABLED either, event listeners aside (they only wait).
   * What is still waiting when it completes is terminated with it.
   */
  private checkStage(stage: PlanItemInstance): void {
    const item = this.itemOf(stage);
    const children = this.childrenOf(stage.key).filter((c) => LIVE.has(c.state));
    for (const child of children) {
      if (child.state === 'ACTIVE') return;
      if (child.incidentKey !== undefined) return;
      const childItem = this.itemOf(child);
      const listener = childItem.type === 'userEventListener' || childItem.type === 'timerEventListener';
      if (item.autoComplete) {
        if (child.state !== 'DISABLED' && this.isRequired(child, childItem)) return;
      } else if ((child.state === 'AVAILABLE' || child.state === 'ENABLED') && !listener) return;
    }
    if (this.stopped) return;
    for (const child of children) this.terminate(child, 'exit');
    this.complete(stage);
  }

  private isRequired(pi: PlanItemInstance, item: PlanItem): boolean {
    const required = evaluateRule(item.required, this.instance.variables, this);
    if (required.ok) return required.value;
    this.incident(pi, 'CONDITION_ERROR', `The required rule of '${pi.id}' could not be evaluated: ${required.error}`);
    return true;
  }
}
