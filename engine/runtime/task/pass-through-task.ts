// Plain and manual tasks: nothing for the engine to do, the token passes on.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const passThroughTask: ElementBehavior = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
