// The lifecycle every element kind implements, in the manner of Zeebe's
// BpmnElementProcessor: one processor per kind, one file each under event/,
// task/, gateway/ and container/, and processors.ts maps element types to
// them. What every kind shares (entering and leaving an element, token
// accounting, ending an element's job, timers, local variables and child
// tokens) is the Execution's; shared helpers are in behavior/.
import type { FlowNode } from '../model/types.ts';
import type { Execution } from './execution.ts';
import type { AdHocJobResult, ElementInstance, Job, Timer, Variables } from './types.ts';

/** A token on its way into an element, not yet an element instance. */
export interface Arrival {
  elementId: string;
  scopeKey: string;
  /** The sequence flow it came along; undefined for start events. */
  flowId?: string;
  /** Set when a join already consumed the tokens for this arrival. */
  joined?: boolean;
  /** Event subprocesses: the start event that triggered it. */
  startEventId?: string;
  /** Catch events: the event already happened (event-based gateway, link), so the element completes at once. */
  triggered?: boolean;
  /** Multi-instance: the inner instance's index. */
  loopIndex?: number;
}

export interface ElementProcessor {
  /**
   * Joining gateways absorb arriving tokens until they may fire. Returns
   * true when the element should be activated now.
   */
  arrive?(exec: Execution, arrival: Arrival, node: FlowNode): boolean;
  /**
   * Inclusive joins: whether the tokens parked in `scopeKey` may go on now.
   * Asked whenever the agenda runs dry, since a token elsewhere ending can
   * make a join ready.
   */
  readyToJoin?(exec: Execution, scopeKey: string, node: FlowNode): boolean;
  /** The token entered: the element instance exists and its inputs are applied. */
  activate(exec: Execution, ei: ElementInstance, node: FlowNode, arrival: Arrival): void;
  /** The element's job was completed (variables are already merged; `result` only for ad-hoc subprocesses). Default: the element completes. */
  jobCompleted?(exec: Execution, ei: ElementInstance, node: FlowNode, job: Job, result?: AdHocJobResult): void;
  /** A timer this element instance waits on fired (catch events; event-based gateways for their branches). */
  timerFired?(exec: Execution, ei: ElementInstance, node: FlowNode, timer: Timer): void;
  /**
   * Events their timer enters (boundary events, event subprocess starts):
   * the timer, held for this element by its host activity or its scope
   * (`timer.ownerKey`), fired. A timer of an element without this hook goes
   * to its owner's `timerFired`.
   */
  timerTriggered?(exec: Execution, node: FlowNode, timer: Timer): void;
  /** Call activities: the instance this element instance called completed with `variables`. */
  calledInstanceCompleted?(exec: Execution, ei: ElementInstance, node: FlowNode, variables: Variables): void;
  /** Containers: every child token of this element instance has ended. */
  childrenCompleted?(exec: Execution, ei: ElementInstance, node: FlowNode): void;
  /**
   * The element instance is being ended from outside (cancel, an
   * interrupting event, a terminate end event): withdraw what only this
   * kind holds. The Execution ends the element's child tokens and its own
   * job before this, and records ELEMENT_TERMINATED and drops its timers
   * and local variables after.
   */
  terminate?(exec: Execution, ei: ElementInstance, node: FlowNode): void;
}
