// The decision requirement graph: resolving requiredDecision / requiredInput
// references, finding cycles, and turning a decision's transitive
// requirements into an evaluation plan (requirements first, each once), so
// evaluation just walks an array.
import type { RawDecision } from './parse-dmn.ts';
import type { CompiledDecision, DmnProblem, EvaluationPlan, PlanStep } from './types.ts';

/** `#id` → id; anything else points into another document (imports are not supported). */
function localTarget(href: string): string | undefined {
  return href.startsWith('#') && href.length > 1 ? href.slice(1) : undefined;
}

/** Decision id → ids of the decisions it requires directly (deduplicated, in document order). */
export function resolveRequirements(
  decisions: readonly (RawDecision & { id: string })[],
  inputData: ReadonlyMap<string, string>,
  problems: DmnProblem[],
): Map<string, string[]> {
  const known = new Set(decisions.map((d) => d.id));
  const graph = new Map<string, string[]>();
  for (const decision of decisions) {
    const required: string[] = [];
    for (const href of decision.requiredDecisions) {
      const target = localTarget(href);
      if (target === undefined || !known.has(target)) {
        problems.push({
          elementId: decision.id,
          message:
            target === undefined
              ? `decision '${decision.id}': requiredDecision href '${href}' does not point to a decision in this document (expected '#<id>'; imports are not supported)`
              : `decision '${decision.id}': requires unknown decision '${target}'`,
        });
      } else if (!required.includes(target)) {
        required.push(target);
      }
    }
    for (const href of decision.requiredInputs) {
      const target = localTarget(href);
      if (target === undefined || !inputData.has(target)) {
        problems.push({
          elementId: decision.id,
          message: `decision '${decision.id}': requiredInput href '${href}' does not point to an inputData element in this document`,
        });
      }
    }
    graph.set(decision.id, required);
  }
  return graph;
}

/**
 * Cycles found by depth-first search, each as a path a → … → a. Iterative,
 * because a hostile document may chain many thousands of decisions.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const done = new Set<string>();
  const onPath = new Map<string, number>();
  const cycles: string[][] = [];
  for (const root of graph.keys()) {
    if (done.has(root)) continue;
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
    onPath.set(root, 0);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const edges = graph.get(top.id) ?? [];
      if (top.next < edges.length) {
        const target = edges[top.next++];
        const at = onPath.get(target);
        if (at !== undefined) cycles.push([...stack.slice(at).map((frame) => frame.id), target]);
        else if (!done.has(target)) {
          onPath.set(target, stack.length);
          stack.push({ id: target, next: 0 });
        }
      } else {
        stack.pop();
        onPath.delete(top.id);
        done.add(top.id);
      }
    }
  }
  return cycles;
}

/**
 * The plan for `target`: its transitive requirements in post-order, each once.
 * Built on first use and cached on the model, because building every plan up
 * front costs quadratic time on long requirement chains.
 */
export function planFor(plans: Map<CompiledDecision, EvaluationPlan>, target: CompiledDecision): EvaluationPlan {
  const cached = plans.get(target);
  if (cached !== undefined) return cached;
  const steps: PlanStep[] = [];
  const position = new Map<CompiledDecision, number>();
  const stack: { decision: CompiledDecision; next: number }[] = [{ decision: target, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next < top.decision.requires.length) {
      const required = top.decision.requires[top.next++];
      // The graph is acyclic (checked at compile time), so "not placed yet" means "not visited yet" or "on the stack below".
      if (!position.has(required)) stack.push({ decision: required, next: 0 });
    } else {
      stack.pop();
      if (position.has(top.decision)) continue;
      position.set(top.decision, steps.length);
      steps.push({ decision: top.decision, requires: top.decision.requires.map((r) => position.get(r) as number) });
    }
  }
  const plan = { steps };
  plans.set(target, plan);
  return plan;
}
