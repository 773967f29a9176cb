// One command's worth of execution over an instance document: the agenda of
// tokens on their way into elements, the token accounting that tells when a
// scope has finished, and the moves every element kind shares (complete,
// terminate). Element-specific decisions live in the processors
// (element-processor.ts, processors.ts).
//
// Token accounting: each scope (the process, or a subprocess instance)
// counts the tokens alive in it — element instances, tokens queued on the
// agenda, and tokens parked at a join. A scope whose count drops to zero has
// finished. Counting queued tokens too is what keeps a scope from finishing
// between one element completing and the next one starting.
import type { FlowNode, ProcessModel } from '../model/types.ts';
import { selectOutgoing } from './behavior/flow.ts';
import { raiseIncident } from './behavior/incident.ts';
import { applyInputs, applyOutputs } from './behavior/io-mapping.ts';
import { cancelJob } from './behavior/job.ts';
import { innerCompleted, multiInstanceBodyProcessor } from './container/multi-instance.ts';
import { subscribeBoundaries } from './behavior/boundary.ts';
import { closeSubscriptionsOf } from './behavior/messages.ts';
import { cancelTimersOf } from './behavior/timers.ts';
import type { Arrival, ElementProcessor } from './element-processor.ts';
import { processorFor } from './processors.ts';
import type { ApplyContext, Effect, ElementInstance, HistoryRecord, ProcessInstance, RecordType } from './types.ts';

const DEFAULT_STEP_BUDGET = 10_000;

type QueuedArrival = Arrival;

export class Execution {
  readonly records: HistoryRecord[] = [];
  readonly effects: Effect[] = [];
  readonly now: number;
  readonly model: ProcessModel;
  private agenda: QueuedArrival[] = [];
  private head = 0;
  private budget: number;

  constructor(
    readonly instance: ProcessInstance,
    readonly ctx: ApplyContext,
  ) {
    this.now = ctx.now();
    this.model = ctx.model;
    this.budget = ctx.stepBudget ?? DEFAULT_STEP_BUDGET;
  }

  nextKey(): string {
    return this.ctx.nextKey();
  }

  record(type: RecordType, fields?: Omit<HistoryRecord, 'type' | 'at'>): void {
    this.records.push({ type, at: this.now, ...fields });
  }

  effect(effect: Effect): void {
    this.effects.push(effect);
  }

  get ended(): boolean {
    return this.instance.state === 'COMPLETED' || this.instance.state === 'TERMINATED';
  }

  // ---- tokens -----------------------------------------------------------

  /** Queues a token to enter `elementId` in `scopeKey`. */
  enter(arrival: QueuedArrival): void {
    this.adjustTokens(arrival.scopeKey, 1);
    this.agenda.push(arrival);
  }

  /** Sends a token along a flow; `triggered` when the target event already happened (event-based gateway). */
  takeFlow(flowId: string, scopeKey: string, triggered?: boolean): void {
    const flow = this.model.flows[flowId];
    this.record('SEQUENCE_FLOW_TAKEN', { elementId: flowId, elementType: 'sequenceFlow' });
    this.enter(triggered ? { elementId: flow.targetRef, scopeKey, flowId, triggered } : { elementId: flow.targetRef, scopeKey, flowId });
  }

  /** Changes a scope's live-token count; a scope that reaches zero has finished. */
  adjustTokens(scopeKey: string, delta: number): void {
    if (delta === 0) return;
    if (scopeKey === this.instance.key) {
      this.instance.children += delta;
      if (this.instance.children === 0 && delta < 0) this.processFinished();
      return;
    }
    const scope = this.instance.elements[scopeKey];
    if (scope === undefined) return;
    scope.children = (scope.children ?? 0) + delta;
    if (scope.children === 0 && delta < 0) {
      const node = this.model.elements[scope.elementId];
      processorOf(scope, node).childrenCompleted?.(this, scope, node);
    }
  }

  private processFinished(): void {
    if (this.ended || this.instance.state === 'INCIDENT') return;
    this.endInstance('COMPLETED');
    const parent = this.instance.parent;
    if (parent !== undefined) {
      this.effect({
        type: 'sendCommand',
        instanceKey: parent.instanceKey,
        command: { type: 'childCompleted', elementInstanceKey: parent.elementInstanceKey, variables: this.instance.variables[this.instance.key] },
      });
    }
  }

  /** Final state: withdraws the process-level subscriptions (event subprocess timers). */
  endInstance(state: 'COMPLETED' | 'TERMINATED'): void {
    cancelTimersOf(this, this.instance.key);
    if (this.instance.subscriptions !== undefined) closeSubscriptionsOf(this, this.instance.key);
    this.instance.state = state;
    this.instance.endedAt = this.now;
    this.record(state === 'COMPLETED' ? 'PROCESS_INSTANCE_COMPLETED' : 'PROCESS_INSTANCE_TERMINATED', {
      elementId: this.instance.bpmnProcessId,
      elementType: 'process',
    });
  }

  private scopeExists(scopeKey: string): boolean {
    return scopeKey === this.instance.key || this.instance.elements[scopeKey] !== undefined;
  }

  // ---- the agenda ---------------------------------------------------------

  /** Runs queued tokens until every one has reached a wait state or ended. */
  run(): void {
    for (;;) {
      while (this.head < this.agenda.length && !this.ended) {
        const arrival = this.agenda[this.head++];
        if (!this.scopeExists(arrival.scopeKey)) continue;
        if (this.budget-- <= 0) {
          this.stopOverBudget(arrival);
          return;
        }
        this.arrive(arrival);
      }
      this.agenda = [];
      this.head = 0;
      if (this.ended || !this.fireReadyJoins()) return;
    }
  }

  private arrive(arrival: QueuedArrival): void {
    const node = this.model.elements[arrival.elementId];
    const processor = processorFor(node);
    if (!arrival.joined && processor.arrive !== undefined && !processor.arrive(this, arrival, node)) return;
    this.activate(node, arrival);
  }

  private activate(node: FlowNode, arrival: QueuedArrival): void {
    const ei: ElementInstance = { key: this.nextKey(), elementId: node.id, scopeKey: arrival.scopeKey };
    this.recordActivated(node, ei);
    if (node.loop !== undefined && arrival.loopIndex === undefined) {
      // The multi-instance body: boundary events belong to it, io mappings to each inner instance.
      if (node.boundaryEvents.length > 0 && !subscribeBoundaries(this, ei, node)) return;
      multiInstanceBodyProcessor.activate(this, ei, node, arrival);
      return;
    }
    if (arrival.loopIndex !== undefined) {
      ei.loopIndex = arrival.loopIndex;
      const body = this.instance.elements[arrival.scopeKey];
      const local = (this.instance.variables[ei.key] = { loopCounter: arrival.loopIndex + 1 } as Record<string, unknown>);
      if (node.loop?.inputElement && body.loop?.items) local[node.loop.inputElement] = body.loop.items[arrival.loopIndex] ?? null;
    }
    // An element with a local scope must be in the document before anything
    // reads or writes through it: the scope chain is walked via `elements`.
    if (arrival.loopIndex !== undefined || node.inputs.length > 0) this.persist(ei);
    if (node.inputs.length > 0 && !applyInputs(this, ei, node)) return;
    if (arrival.loopIndex === undefined && node.boundaryEvents.length > 0 && !subscribeBoundaries(this, ei, node)) return;
    processorFor(node).activate(this, ei, node, arrival);
  }

  /**
   * The element history (GET …/history) needs each element instance's flow
   * scope; only scopes other than the process are written, so the records
   * of a flat process carry nothing extra.
   */
  private recordActivated(node: FlowNode, ei: ElementInstance): void {
    this.record(
      'ELEMENT_ACTIVATED',
      ei.scopeKey === this.instance.key
        ? { elementId: node.id, elementType: node.type, elementInstanceKey: ei.key }
        : { elementId: node.id, elementType: node.type, elementInstanceKey: ei.key, detail: { flowScopeKey: ei.scopeKey } },
    );
  }

  /** Gateways that join inclusively fire once no token can still reach them; checked when the agenda is empty. */
  private fireReadyJoins(): boolean {
    let fired = false;
    for (const joinKey of Object.keys(this.instance.joins)) {
      const slash = joinKey.indexOf('/');
      const scopeKey = joinKey.slice(0, slash);
      const node = this.model.elements[joinKey.slice(slash + 1)];
      const processor = processorFor(node);
      if (processor.readyToJoin === undefined || !processor.readyToJoin(this, scopeKey, node)) continue;
      this.consumeJoin(scopeKey, node);
      fired = true;
    }
    return fired;
  }

  /** Records a token parked at a join. */
  parkAtJoin(scopeKey: string, gatewayId: string, flowId: string): Record<string, number> {
    const arrivals = (this.instance.joins[`${scopeKey}/${gatewayId}`] ??= {});
    arrivals[flowId] = (arrivals[flowId] ?? 0) + 1;
    return arrivals;
  }

  /** Consumes one parked token per incoming flow and sends one token through the gateway. */
  consumeJoin(scopeKey: string, node: FlowNode): void {
    const joinKey = `${scopeKey}/${node.id}`;
    const arrivals = this.instance.joins[joinKey];
    let consumed = 0;
    for (const flowId of Object.keys(arrivals)) {
      consumed++;
      if (--arrivals[flowId] === 0) delete arrivals[flowId];
    }
    if (Object.keys(arrivals).length === 0) delete this.instance.joins[joinKey];
    this.enter({ elementId: node.id, scopeKey, joined: true });
    this.adjustTokens(scopeKey, -consumed);
  }

  /** Live element instances directly in `scopeKey`. */
  *elementsIn(scopeKey: string): Iterable<ElementInstance> {
    for (const ei of Object.values(this.instance.elements)) if (ei.scopeKey === scopeKey) yield ei;
  }

  private stopOverBudget(arrival: QueuedArrival): void {
    const node = this.model.elements[arrival.elementId];
    const ei: ElementInstance = { key: this.nextKey(), elementId: node.id, scopeKey: arrival.scopeKey };
    this.recordActivated(node, ei);
    raiseIncident(
      this,
      ei,
      'STEP_BUDGET_EXCEEDED',
      `Stopped at '${node.id}' after ${this.ctx.stepBudget ?? DEFAULT_STEP_BUDGET} steps in one command without reaching a wait state: ` +
        'the model loops without a task or event to wait on.',
    );
    this.agenda = [];
    this.head = 0;
  }

  // ---- moves shared by element kinds ---------------------------------------

  /** Keeps a waiting element instance in the document. */
  persist(ei: ElementInstance): void {
    this.instance.elements[ei.key] = ei;
  }

  /**
   * Leaves an element: output mappings, then its outgoing flows (conditions
   * and default flow as for an activity, unless the caller chose the flows).
   */
  completeElement(ei: ElementInstance, node: FlowNode, chosenFlows?: string[], options?: { skipOutputs?: boolean; triggered?: boolean }): void {
    if (node.outputs.length > 0 && !options?.skipOutputs && !applyOutputs(this, ei, node)) return;
    if (ei.loopIndex !== undefined) {
      innerCompleted(this, ei, node);
      return;
    }
    const flows = chosenFlows ?? selectOutgoing(this, ei, node, 'activity');
    if (flows === undefined) return;
    this.record('ELEMENT_COMPLETED', { elementId: node.id, elementType: node.type, elementInstanceKey: ei.key });
    this.forget(ei);
    for (const flowId of flows) this.takeFlow(flowId, ei.scopeKey, options?.triggered);
    this.adjustTokens(ei.scopeKey, -1);
  }

  /**
   * Ends an element and everything inside it, cancelling its job; its
   * processor withdraws what only its kind holds. Token accounting is the caller's.
   */
  terminateElement(ei: ElementInstance): void {
    const node = this.model.elements[ei.elementId];
    if (ei.children !== undefined) this.terminateChildren(ei.key);
    if (ei.jobKey !== undefined) cancelJob(this, ei.jobKey);
    processorOf(ei, node).terminate?.(this, ei, node);
    this.record('ELEMENT_TERMINATED', { elementId: ei.elementId, elementType: node.type, elementInstanceKey: ei.key });
    this.forget(ei);
  }

  /** Terminates every token inside a scope: element instances, queued tokens and parked join tokens. */
  terminateChildren(scopeKey: string): void {
    for (const child of [...this.elementsIn(scopeKey)]) this.terminateElement(child);
    this.agenda = this.agenda.filter((a, i) => i < this.head || a.scopeKey !== scopeKey);
    const prefix = `${scopeKey}/`;
    for (const joinKey of Object.keys(this.instance.joins)) if (joinKey.startsWith(prefix)) delete this.instance.joins[joinKey];
    cancelTimersOf(this, scopeKey);
    if (this.instance.subscriptions !== undefined) closeSubscriptionsOf(this, scopeKey);
    if (scopeKey === this.instance.key) this.instance.children = 0;
    else {
      const scope = this.instance.elements[scopeKey];
      if (scope !== undefined) scope.children = 0;
    }
  }

  /** Drops an element instance from the document, with its local variables and its timers. */
  forget(ei: ElementInstance): void {
    delete this.instance.elements[ei.key];
    if (this.instance.variables[ei.key] !== undefined) delete this.instance.variables[ei.key];
    for (const _ in this.instance.timers) {
      cancelTimersOf(this, ei.key);
      break;
    }
    if (this.instance.subscriptions !== undefined) closeSubscriptionsOf(this, ei.key);
  }
}

/** A multi-instance body (it holds the loop state) runs the body's processor, not its activity's. */
function processorOf(ei: ElementInstance, node: FlowNode): ElementProcessor {
  return ei.loop !== undefined ? multiInstanceBodyProcessor : processorFor(node);
}
