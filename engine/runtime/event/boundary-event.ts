// Boundary events: entered when their trigger caught (timer fired, error or
// escalation thrown inside the host); the token leaves along their flows.
// The host holds a boundary's timer, so a fired one names the host as owner.
import { triggerBoundary } from '../behavior/boundary.ts';
import type { ElementProcessor } from '../element-processor.ts';

export const boundaryEventProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
  timerTriggered(exec, node, timer) {
    triggerBoundary(exec, exec.instance.elements[timer.ownerKey], node);
  },
};
