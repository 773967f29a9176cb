// Embedded subprocess and event subprocess: a scope of its own (local
// variables, its own tokens, its own event subprocesses). An embedded one
// starts at its none start event; an event subprocess at the start event
// that triggered it. Either completes when its last token ends.
import type { ElementProcessor } from '../element-processor.ts';
import { subscribeEventSubProcesses } from '../behavior/event-subprocess.ts';

export const subProcessProcessor: ElementProcessor = {
  activate(exec, ei, node, arrival) {
    exec.instance.variables[ei.key] ??= {};
    ei.children = 0;
    exec.persist(ei);
    if (!subscribeEventSubProcesses(exec, ei.key)) return;
    const start = arrival.startEventId ?? node.startEvents?.find((id) => exec.model.elements[id].eventDefinition?.kind === 'none') ?? node.startEvents?.[0];
    if (start !== undefined) exec.enter({ elementId: start, scopeKey: ei.key });
    else exec.completeElement(ei, node);
  },
  childrenCompleted(exec, ei, node) {
    exec.completeElement(ei, node);
  },
};
