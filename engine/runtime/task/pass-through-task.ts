// Plain and manual tasks: nothing for the engine to do, the token passes on.
import type { ElementProcessor } from '../element-processor.ts';

export const passThroughTaskProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
