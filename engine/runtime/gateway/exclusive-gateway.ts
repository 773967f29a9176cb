// Exclusive gateway: the first outgoing flow whose condition is true, else
// the default flow; neither → incident. Several incoming flows merge without
// waiting.
import type { ElementBehavior } from '../behavior/element-behavior.ts';
import { selectOutgoing } from '../behavior/flow.ts';

export const exclusiveGateway: ElementBehavior = {
  activate(exec, ei, node) {
    const flows = selectOutgoing(exec, ei, node, 'exclusive');
    if (flows !== undefined) exec.completeElement(ei, node, flows);
  },
};
