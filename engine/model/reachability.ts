// Upstream sets for inclusive joins: the nodes in the gateway's scope from
// which a token can still arrive at it without passing through it. The
// runtime fires the join once no active token sits on any of them, so the set
// must be complete; a token on an activity can also leave through any of its
// boundary events, so an activity counts as a predecessor of its boundary
// events. Nested subprocesses need no special case: a token inside one means
// the subprocess itself is active in this scope.
import type { NodeInfo, ProcessRead } from './read-process.ts';

/** Fills `upstream` on every inclusive gateway with more than one incoming flow. */
export function fillUpstream(process: ProcessRead): void {
  const { nodes, flows } = process;
  for (const gateway of nodes.values()) {
    if (gateway.kind !== 'inclusiveGateway' || gateway.node.incoming.length < 2) continue;
    const seen = new Set<string>([gateway.node.id]);
    const found: NodeInfo[] = [];
    const stack: NodeInfo[] = [gateway];
    while (stack.length > 0) {
      const current = stack.pop() as NodeInfo;
      const visit = (id: string | undefined): void => {
        if (id === undefined || seen.has(id)) return;
        const pred = nodes.get(id);
        if (!pred) return;
        seen.add(id);
        found.push(pred);
        stack.push(pred);
      };
      // incoming only holds flows that link/validation accepted: same scope, known ends.
      for (const flowId of current.node.incoming) visit(flows.get(flowId)?.flow.sourceRef);
      if (current.kind === 'boundaryEvent') {
        const host = current.node.attachedTo !== undefined ? nodes.get(current.node.attachedTo) : undefined;
        // Only a host that link() accepted (same scope, an activity).
        if (host && host.node.boundaryEvents.includes(current.node.id)) visit(host.node.id);
      }
    }
    found.sort((a, b) => a.order - b.order);
    gateway.node.upstream = found.map((n) => n.node.id);
  }
}
