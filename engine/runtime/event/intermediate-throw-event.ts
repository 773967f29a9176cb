// None intermediate throw events mark a milestone; the token passes on.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const intermediateThrowEvent: ElementBehavior = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
