// Which behavior runs each element type. The compiler rejects element kinds
// the runtime does not support yet, so every type that reaches here is one
// with a behavior.
import type { ElementType, FlowNode } from '../model/types.ts';
import type { ElementBehavior } from './behavior/element-behavior.ts';
import { subProcess } from './container/sub-process.ts';
import { boundaryEvent } from './event/boundary-event.ts';
import { eventBasedGateway } from './gateway/event-based-gateway.ts';
import { businessRuleTask } from './task/business-rule-task.ts';
import { callActivity } from './task/call-activity.ts';
import { endEvent } from './event/end-event.ts';
import { intermediateCatchEvent } from './event/intermediate-catch-event.ts';
import { intermediateThrowEvent } from './event/intermediate-throw-event.ts';
import { startEvent } from './event/start-event.ts';
import { exclusiveGateway } from './gateway/exclusive-gateway.ts';
import { inclusiveGateway } from './gateway/inclusive-gateway.ts';
import { parallelGateway } from './gateway/parallel-gateway.ts';
import { jobTask } from './task/job-task.ts';
import { passThroughTask } from './task/pass-through-task.ts';

const behaviors: Partial<Record<ElementType, ElementBehavior>> = {
  startEvent,
  endEvent,
  intermediateThrowEvent,
  intermediateCatchEvent,
  task: passThroughTask,
  manualTask: passThroughTask,
  serviceTask: jobTask,
  sendTask: jobTask,
  scriptTask: jobTask,
  userTask: jobTask,
  receiveTask: jobTask,
  businessRuleTask,
  callActivity,
  boundaryEvent,
  exclusiveGateway,
  eventBasedGateway,
  parallelGateway,
  inclusiveGateway,
  subProcess,
};

export function behaviorFor(node: FlowNode): ElementBehavior {
  const behavior = behaviors[node.type];
  if (behavior === undefined) throw new Error(`no runtime behavior for ${node.type} '${node.id}'; the compiler should have rejected it`);
  return behavior;
}
