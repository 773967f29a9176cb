// Boundary events: entered when their trigger caught (timer fired, error or
// escalation thrown inside the host); the token leaves along their flows.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const boundaryEvent: ElementBehavior = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
