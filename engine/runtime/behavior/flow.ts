// Choosing outgoing sequence flows. Conditions are FEEL and must give a
// boolean: anything else (null from a missing variable, a number) is an
// incident naming the flow and the expression, as in Camunda 8, rather than
// a silent "false" that would route a token the modeller did not intend.
import type { FlowNode } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance } from '../types.ts';
import { describe, evaluateSource } from './expression.ts';
import { raiseIncident } from './incident.ts';

/**
 * - `exclusive`: the first flow (document order) whose condition holds, else the default.
 * - `inclusive`: every flow whose condition holds or that has none, else the default.
 * - `activity`: as inclusive, but an element with no outgoing flow simply ends its token.
 * Returns undefined after raising an incident.
 */
export function selectOutgoing(exec: Execution, ei: ElementInstance, node: FlowNode, mode: 'exclusive' | 'inclusive' | 'activity'): string[] | undefined {
  const outgoing = node.outgoing;
  if (outgoing.length === 0) return outgoing;
  if (outgoing.length === 1 && mode !== 'exclusive' && exec.model.flows[outgoing[0]].condition === undefined) return outgoing;
  const chosen: string[] = [];
  for (const flowId of outgoing) {
    if (flowId === node.defaultFlow) continue;
    const condition = exec.model.flows[flowId].condition;
    if (condition === undefined) {
      chosen.push(flowId);
      if (mode === 'exclusive') return chosen;
      continue;
    }
    const result = evaluateSource(exec, ei, condition);
    if (!result.ok) {
      raiseIncident(exec, ei, 'CONDITION_ERROR', `Condition '${condition}' of sequence flow '${flowId}' leaving '${node.id}' failed: ${result.error}`);
      return undefined;
    }
    if (typeof result.value !== 'boolean') {
      raiseIncident(
        exec,
        ei,
        'CONDITION_ERROR',
        `Condition '${condition}' of sequence flow '${flowId}' gave ${describe(result.value)}, but a condition must give true or false.`,
      );
      return undefined;
    }
    if (result.value) {
      chosen.push(flowId);
      if (mode === 'exclusive') return chosen;
    }
  }
  if (chosen.length > 0) return chosen;
  if (node.defaultFlow !== undefined) return [node.defaultFlow];
  raiseIncident(exec, ei, 'CONDITION_ERROR', `No outgoing sequence flow of '${node.id}' has a condition that is true, and it has no default flow.`);
  return undefined;
}
