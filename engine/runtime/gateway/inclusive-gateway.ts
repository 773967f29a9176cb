// Inclusive gateway. Forks to every flow whose condition is true (else the
// default; neither → incident). Joins by waiting only for tokens that can
// still arrive: it fires once no live token in its scope sits on an element
// upstream of it (the compiler lists those in `upstream`).
import type { FlowNode } from '../../model/types.ts';
import type { ElementProcessor } from '../element-processor.ts';
import { selectOutgoing } from '../behavior/flow.ts';

const upstreamSets = new WeakMap<FlowNode, Set<string>>();

function upstreamOf(node: FlowNode): Set<string> {
  let set = upstreamSets.get(node);
  if (set === undefined) upstreamSets.set(node, (set = new Set(node.upstream ?? [])));
  return set;
}

export const inclusiveGatewayProcessor: ElementProcessor = {
  arrive(exec, arrival, node) {
    if (node.incoming.length < 2 || arrival.flowId === undefined) return true;
    exec.parkAtJoin(arrival.scopeKey, node.id, arrival.flowId);
    return false;
  },
  readyToJoin(exec, scopeKey, node) {
    const upstream = upstreamOf(node);
    for (const ei of exec.elementsIn(scopeKey)) if (upstream.has(ei.elementId)) return false;
    const prefix = `${scopeKey}/`;
    for (const joinKey of Object.keys(exec.instance.joins)) {
      if (joinKey.startsWith(prefix) && upstream.has(joinKey.slice(prefix.length))) return false;
    }
    return true;
  },
  activate(exec, ei, node) {
    const flows = selectOutgoing(exec, ei, node, 'inclusive');
    if (flows !== undefined) exec.completeElement(ei, node, flows);
  },
};
