// None start events (process and embedded subprocess): the token passes on.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const startEvent: ElementBehavior = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
