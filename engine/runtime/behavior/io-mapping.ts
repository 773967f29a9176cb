// zeebe:ioMapping. Inputs create local variables on the element instance;
// outputs read the element's view and write to its flow scope with
// propagation. A failing mapping is an incident on the element.
import type { FlowNode, IoMapping } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance } from '../types.ts';
import { evaluateSource } from './expression.ts';
import { raiseIncident } from './incident.ts';
import { setLocalVariable, setPropagatedVariable } from './variables.ts';

function evaluateAll(exec: Execution, ei: ElementInstance, mappings: IoMapping[], kind: string): unknown[] | undefined {
  const values: unknown[] = [];
  for (const mapping of mappings) {
    const result = evaluateSource(exec, ei, mapping.source);
    if (!result.ok) {
      raiseIncident(exec, ei, 'IO_MAPPING_ERROR', `${kind} mapping '${mapping.source}' → '${mapping.target}' of '${ei.elementId}' failed: ${result.error}`);
      return undefined;
    }
    values.push(result.value ?? null);
  }
  return values;
}

/** Applies input mappings; false when an incident was raised. */
export function applyInputs(exec: Execution, ei: ElementInstance, node: FlowNode): boolean {
  // Inputs are evaluated before the local scope exists, so they read the flow scope.
  const values = evaluateAll(exec, ei, node.inputs, 'Input');
  if (values === undefined) return false;
  exec.instance.variables[ei.key] ??= {};
  node.inputs.forEach((mapping, i) => setLocalVariable(exec.instance, ei.key, mapping.target, values[i]));
  return true;
}

/** Applies output mappings into the flow scope; false when an incident was raised. */
export function applyOutputs(exec: Execution, ei: ElementInstance, node: FlowNode): boolean {
  const values = evaluateAll(exec, ei, node.outputs, 'Output');
  if (values === undefined) return false;
  node.outputs.forEach((mapping, i) => setPropagatedVariable(exec.instance, ei.scopeKey, mapping.target, values[i]));
  return true;
}
