// Which processor runs each element type: a total map over ElementType, so a
// kind added to the model does not compile until it has a processor here.
// The compiler rejects element kinds engine/model/support.ts does not list as
// supported, and processors.test.ts holds that table and this map to the
// same kinds.
import type { ElementType, FlowNode } from '../model/types.ts';
import { adHocSubProcessProcessor } from './container/ad-hoc-sub-process.ts';
import { subProcessProcessor } from './container/sub-process.ts';
import type { ElementProcessor } from './element-processor.ts';
import { boundaryEventProcessor } from './event/boundary-event.ts';
import { endEventProcessor } from './event/end-event.ts';
import { intermediateCatchEventProcessor } from './event/intermediate-catch-event.ts';
import { intermediateThrowEventProcessor } from './event/intermediate-throw-event.ts';
import { startEventProcessor } from './event/start-event.ts';
import { eventBasedGatewayProcessor } from './gateway/event-based-gateway.ts';
import { exclusiveGatewayProcessor } from './gateway/exclusive-gateway.ts';
import { inclusiveGatewayProcessor } from './gateway/inclusive-gateway.ts';
import { parallelGatewayProcessor } from './gateway/parallel-gateway.ts';
import { businessRuleTaskProcessor } from './task/business-rule-task.ts';
import { scriptTaskProcessor } from './task/script-task.ts';
import { callActivityProcessor } from './task/call-activity.ts';
import { jobTaskProcessor } from './task/job-task.ts';
import { passThroughTaskProcessor } from './task/pass-through-task.ts';

export const PROCESSORS: Readonly<Record<ElementType, ElementProcessor>> = {
  startEvent: startEventProcessor,
  endEvent: endEventProcessor,
  intermediateThrowEvent: intermediateThrowEventProcessor,
  intermediateCatchEvent: intermediateCatchEventProcessor,
  boundaryEvent: boundaryEventProcessor,
  task: passThroughTaskProcessor,
  manualTask: passThroughTaskProcessor,
  serviceTask: jobTaskProcessor,
  sendTask: jobTaskProcessor,
  scriptTask: scriptTaskProcessor,
  userTask: jobTaskProcessor,
  receiveTask: jobTaskProcessor,
  businessRuleTask: businessRuleTaskProcessor,
  callActivity: callActivityProcessor,
  exclusiveGateway: exclusiveGatewayProcessor,
  eventBasedGateway: eventBasedGatewayProcessor,
  parallelGateway: parallelGatewayProcessor,
  inclusiveGateway: inclusiveGatewayProcessor,
  subProcess: subProcessProcessor,
  adHocSubProcess: adHocSubProcessProcessor,
};

export function processorFor(node: FlowNode): ElementProcessor {
  // Typed total, but a model document is data: one stored by a later
  // version could name a kind this runtime lacks.
  const processor = PROCESSORS[node.type] as ElementProcessor | undefined;
  if (processor === undefined) throw new Error(`no runtime processor for ${node.type} '${node.id}'; the compiler should have rejected it`);
  return processor;
}
