// End events. A none end event ends its token; a terminate end event first
// ends every other token of its scope (the process, or the subprocess it sits
// in), so the scope completes at once.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const endEvent: ElementBehavior = {
  activate(exec, ei, node) {
    if (node.eventDefinition?.kind === 'terminate') {
      exec.terminateChildren(ei.scopeKey);
      // The end event's own token is the last one alive in the scope.
      exec.adjustTokens(ei.scopeKey, 1);
    }
    exec.completeElement(ei, node, []);
  },
};
