// Multi-instance activities. The body is an element instance of the
// activity's id that owns the loop state and the boundary events; each inner
// instance is the activity itself with `inputElement` and `loopCounter` as
// local variables. Parallel bodies start every inner instance at once,
// sequential ones the next when the previous completes. After each inner
// instance the `outputElement` is stored at its index of the output
// collection and the completion condition is checked.
import type { FlowNode } from '../../model/types.ts';
import type { ElementProcessor } from '../element-processor.ts';
import { describe, evaluateSource } from '../behavior/expression.ts';
import { raiseIncident } from '../behavior/incident.ts';
import { setPropagatedVariable } from '../behavior/variables.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance } from '../types.ts';

function collection(exec: Execution, body: ElementInstance, node: FlowNode): { items: unknown[] | null; total: number } | undefined {
  const loop = node.loop!;
  const source = loop.inputCollection ?? loop.loopCardinality;
  if (source === undefined) {
    raiseIncident(exec, body, 'EXTRACT_VALUE_ERROR', `Multi-instance '${node.id}' has neither an input collection nor a loop cardinality.`);
    return undefined;
  }
  const result = evaluateSource(exec, body, source);
  if (!result.ok) {
    raiseIncident(exec, body, 'EXTRACT_VALUE_ERROR', `The input collection '${source}' of '${node.id}' failed: ${result.error}`);
    return undefined;
  }
  if (loop.inputCollection !== undefined) {
    if (!Array.isArray(result.value)) {
      raiseIncident(exec, body, 'EXTRACT_VALUE_ERROR', `The input collection '${source}' of '${node.id}' gave ${describe(result.value)}, not a list.`);
      return undefined;
    }
    return { items: result.value, total: result.value.length };
  }
  const n = result.value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    raiseIncident(exec, body, 'EXTRACT_VALUE_ERROR', `The loop cardinality '${source}' of '${node.id}' gave ${describe(n)}, not a whole number of at least 0.`);
    return undefined;
  }
  return { items: null, total: n };
}

function counters(body: ElementInstance, active: number): Record<string, number> {
  return { numberOfInstances: body.loop!.total, numberOfCompletedInstances: body.loop!.completed, numberOfActiveInstances: active };
}

export const multiInstanceBodyProcessor: ElementProcessor = {
  activate(exec, body, node) {
    const loop = node.loop!;
    const input = collection(exec, body, node);
    if (input === undefined) return;
    body.loop = { items: input.items, total: input.total, next: 0, completed: 0 };
    body.children = 0;
    const local = (exec.instance.variables[body.key] = {} as Record<string, unknown>);
    if (loop.outputCollection) local[loop.outputCollection] = new Array(input.total).fill(null);
    exec.persist(body);
    if (input.total === 0) {
      finish(exec, body, node);
      return;
    }
    const first = loop.sequential ? 1 : input.total;
    for (let i = 0; i < first; i++) exec.enter({ elementId: node.id, scopeKey: body.key, loopIndex: i });
    body.loop.next = first;
  },
  childrenCompleted(exec, body, node) {
    finish(exec, body, node);
  },
};

/** The body completes: its output collection goes to the flow scope, then the token leaves. */
function finish(exec: Execution, body: ElementInstance, node: FlowNode): void {
  const name = node.loop!.outputCollection;
  if (name) setPropagatedVariable(exec.instance, body.scopeKey, name, exec.instance.variables[body.key][name]);
  exec.completeElement(body, node, undefined, { skipOutputs: true });
}

/** An inner instance completed (its own output mappings are already applied). */
export function innerCompleted(exec: Execution, inner: ElementInstance, node: FlowNode): void {
  const loop = node.loop!;
  const body = exec.instance.elements[inner.scopeKey];
  const state = body.loop!;
  if (loop.outputCollection && loop.outputElement) {
    const value = evaluateSource(exec, inner, loop.outputElement);
    if (!value.ok) {
      raiseIncident(exec, inner, 'EXTRACT_VALUE_ERROR', `The output element '${loop.outputElement}' of '${node.id}' failed: ${value.error}`);
      return;
    }
    const scope = exec.instance.variables[body.key];
    const outputs = [...(scope[loop.outputCollection] as unknown[])];
    outputs[inner.loopIndex!] = value.value ?? null;
    scope[loop.outputCollection] = outputs;
  }
  exec.record('ELEMENT_COMPLETED', { elementId: node.id, elementType: node.type, elementInstanceKey: inner.key, detail: { loopIndex: inner.loopIndex } });
  exec.forget(inner);
  state.completed++;
  if (loop.completionCondition !== undefined) {
    const active = body.children! - 1;
    Object.assign(exec.instance.variables[body.key], counters(body, active));
    const done = evaluateSource(exec, body, loop.completionCondition);
    if (!done.ok || (done.value !== true && done.value !== false && done.value !== null)) {
      const why = done.ok ? `gave ${describe(done.value)}, not true or false` : `failed: ${done.error}`;
      raiseIncident(exec, body, 'EXTRACT_VALUE_ERROR', `The completion condition '${loop.completionCondition}' of '${node.id}' ${why}`);
      return;
    }
    if (done.value === true) {
      exec.terminateChildren(body.key);
      finish(exec, body, node);
      return;
    }
  }
  if (loop.sequential && state.next < state.total) exec.enter({ elementId: node.id, scopeKey: body.key, loopIndex: state.next++ });
  exec.adjustTokens(body.key, -1);
}
