// Embedded subprocess: a scope of its own (local variables, its own tokens).
// It starts at its none start event and completes when its last token ends.
import type { ElementBehavior } from '../behavior/element-behavior.ts';

export const subProcess: ElementBehavior = {
  activate(exec, ei, node) {
    exec.instance.variables[ei.key] ??= {};
    ei.children = 0;
    exec.persist(ei);
    const start = node.startEvents?.find((id) => exec.model.elements[id].eventDefinition?.kind === 'none') ?? node.startEvents?.[0];
    if (start === undefined) return;
    exec.enter({ elementId: start, scopeKey: ei.key });
  },
  childrenCompleted(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
