// The lifecycle every element kind implements, in the manner of Zeebe's
// BpmnElementProcessor. One file per kind under event/, task/, gateway/ and
// container/ implements it; behaviors.ts maps element types to them.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance, Job, Timer } from '../types.ts';

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

export interface ElementBehavior {
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
  /** The element's job was completed (variables are already merged). Default: the element completes. */
  jobCompleted?(exec: Execution, ei: ElementInstance, node: FlowNode, job: Job): void;
  /** A timer the element instance owns fired (catch events, event-based gateways). */
  timerFired?(exec: Execution, ei: ElementInstance, node: FlowNode, timer: Timer): void;
  /** Containers: every child token of this element instance has ended. */
  childrenCompleted?(exec: Execution, ei: ElementInstance, node: FlowNode): void;
}
