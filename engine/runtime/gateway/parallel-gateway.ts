// Parallel gateway: joins by waiting for a token on every incoming flow,
// then forks to every outgoing flow (conditions are ignored, as BPMN says).
import type { ElementProcessor } from '../element-processor.ts';

export const parallelGatewayProcessor: ElementProcessor = {
  arrive(exec, arrival, node) {
    if (node.incoming.length < 2 || arrival.flowId === undefined) return true;
    const arrivals = exec.parkAtJoin(arrival.scopeKey, node.id, arrival.flowId);
    for (const flowId of node.incoming) if (!arrivals[flowId]) return false;
    // The arriving token becomes the one that goes on; the others are consumed.
    exec.consumeJoin(arrival.scopeKey, node);
    return false;
  },
  activate(exec, ei, node) {
    exec.completeElement(ei, node, node.outgoing);
  },
};
