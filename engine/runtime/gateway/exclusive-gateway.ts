// Exclusive gateway: the first outgoing flow whose condition is true, else
// the default flow; neither → incident. Several incoming flows merge without
// waiting.
import type { ElementProcessor } from '../element-processor.ts';
import { selectOutgoing } from '../behavior/flow.ts';

export const exclusiveGatewayProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const flows = selectOutgoing(exec, ei, node, 'exclusive');
    if (flows !== undefined) exec.completeElement(ei, node, flows);
  },
};
