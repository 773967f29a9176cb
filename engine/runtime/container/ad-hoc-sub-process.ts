// Ad-hoc subprocesses, with Zeebe 8.8's semantics. Each activated inner
// element starts a path in an inner instance of its own: an element instance
// of the subprocess's id marked `adHoc.inner`, whose local scope holds the
// activation's variables and whose tokens are that path (flows inside the
// subprocess lead on from the activated element). When a path ends, the
// output element is appended to the output collection.
//
// Two implementations. BPMN: the active elements collection, evaluated on
// entry, names the elements to activate; the completion condition is checked
// each time a path ends (true → complete, terminating the remaining paths
// when cancelRemainingInstances, else waiting for them); without a condition
// the subprocess completes once no path is active. Job worker (a
// zeebe:taskDefinition on the subprocess, the AI agent pattern): a job is
// created on entry and again each time no path is active; its worker answers
// with a job result (AdHocJobResult) naming the elements to activate and
// whether the subprocess is done.
import type { FlowNode } from '../../model/types.ts';
import type { ElementProcessor } from '../element-processor.ts';
import { subscribeEventSubProcesses } from '../behavior/event-subprocess.ts';
import { describe, evaluateSource } from '../behavior/expression.ts';
import { raiseIncident } from '../behavior/incident.ts';
import { cancelJob, createJob } from '../behavior/job.ts';
import { setPropagatedVariable } from '../behavior/variables.ts';
import type { Execution } from '../execution.ts';
import type { AdHocActivation, AdHocJobResult, ElementInstance, Variables } from '../types.ts';

/** How an inner instance appears in the history. */
const INNER_TYPE = 'adHocSubProcessInnerInstance';

export const adHocSubProcessProcessor: ElementProcessor = {
  activate(exec, ei, node) {
    const adHoc = node.adHoc!;
    const local = (exec.instance.variables[ei.key] ??= {});
    if (adHoc.outputCollection !== undefined) local[adHoc.outputCollection] = [];
    ei.children = 0;
    ei.adHoc = {};
    exec.persist(ei);
    if (!subscribeEventSubProcesses(exec, ei.key)) return;
    if (node.job !== undefined) {
      createJob(exec, ei, node);
      return;
    }
    const ids = activeElements(exec, ei, node);
    for (const id of ids ?? []) activateInner(exec, ei, node, id);
  },
  jobCompleted(exec, ei, node, _job, result) {
    for (const element of result?.activateElements ?? []) activateInner(exec, ei, node, element.elementId, element.variables);
    // Neither activations nor completion leaves it waiting, as in Zeebe, for what ends it from outside.
    if (result?.isCompletionConditionFulfilled === true) completeAdHoc(exec, ei, node, result.isCancelRemainingInstances === true);
  },
  childrenCompleted(exec, ei, node) {
    if (ei.adHoc?.inner) pathCompleted(exec, ei, node);
    else nothingActive(exec, ei, node);
  },
};

/** The active elements collection, checked against the elements a path may start at; undefined after an incident. */
function activeElements(exec: Execution, ei: ElementInstance, node: FlowNode): string[] | undefined {
  const adHoc = node.adHoc!;
  const source = adHoc.activeElementsCollection;
  if (source === undefined) return [];
  const result = evaluateSource(exec, ei, source);
  const fail = (why: string): undefined => {
    raiseIncident(exec, ei, 'EXTRACT_VALUE_ERROR', `The active elements collection '${source}' of '${node.id}' ${why}`);
    return undefined;
  };
  if (!result.ok) return fail(`failed: ${result.error}`);
  const ids = result.value;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) return fail(`gave ${describe(ids)}, not a list of element ids.`);
  const unknown = (ids as string[]).filter((id) => !adHoc.activatable.includes(id));
  if (unknown.length > 0) {
    return fail(`names ${unknown.map((id) => `'${id}'`).join(', ')}, not among the elements it can activate (${adHoc.activatable.join(', ')}).`);
  }
  return ids as string[];
}

/** Starts a path at `elementId` in a new inner instance holding `variables`. */
function activateInner(exec: Execution, outer: ElementInstance, node: FlowNode, elementId: string, variables?: Variables): void {
  const inner: ElementInstance = { key: exec.nextKey(), elementId: node.id, scopeKey: outer.key, children: 0, adHoc: { inner: true } };
  exec.record('ELEMENT_ACTIVATED', { elementId: node.id, elementType: INNER_TYPE, elementInstanceKey: inner.key, detail: { flowScopeKey: outer.key } });
  exec.instance.variables[inner.key] = { ...(variables ?? {}) };
  exec.persist(inner);
  exec.adjustTokens(outer.key, 1);
  exec.enter({ elementId, scopeKey: inner.key });
}

/** A path ended: collect its output, then the completion condition (BPMN) or what comes when nothing is active. */
function pathCompleted(exec: Execution, inner: ElementInstance, node: FlowNode): void {
  const adHoc = node.adHoc!;
  const outer = exec.instance.elements[inner.scopeKey];
  if (adHoc.outputCollection !== undefined && adHoc.outputElement !== undefined) {
    const value = evaluateSource(exec, inner, adHoc.outputElement);
    if (!value.ok) {
      raiseIncident(exec, inner, 'EXTRACT_VALUE_ERROR', `The output element '${adHoc.outputElement}' of '${node.id}' failed: ${value.error}`);
      return;
    }
    const scope = exec.instance.variables[outer.key];
    const collected = scope[adHoc.outputCollection];
    scope[adHoc.outputCollection] = [...(Array.isArray(collected) ? collected : []), value.value ?? null];
  }
  exec.record('ELEMENT_COMPLETED', { elementId: node.id, elementType: INNER_TYPE, elementInstanceKey: inner.key, detail: { flowScopeKey: outer.key } });
  exec.forget(inner);
  // Counted down by hand: the condition decides before "nothing active" does.
  outer.children = (outer.children ?? 1) - 1;
  if (node.job === undefined && adHoc.completionCondition !== undefined && !outer.adHoc?.completing) {
    const done = evaluateSource(exec, outer, adHoc.completionCondition);
    if (!done.ok || (done.value !== true && done.value !== false && done.value !== null)) {
      const why = done.ok ? `gave ${describe(done.value)}, not true or false` : `failed: ${done.error}`;
      raiseIncident(exec, outer, 'EXTRACT_VALUE_ERROR', `The completion condition '${adHoc.completionCondition}' of '${node.id}' ${why}`);
      return;
    }
    if (done.value === true) {
      completeAdHoc(exec, outer, node, adHoc.cancelRemainingInstances);
      return;
    }
  }
  if (outer.children === 0) nothingActive(exec, outer, node);
}

/** No path is active: complete (no condition, or completing), ask the worker again (job worker), or wait (a condition not met). */
function nothingActive(exec: Execution, outer: ElementInstance, node: FlowNode): void {
  if (outer.adHoc?.completing) finish(exec, outer, node);
  else if (node.job !== undefined) {
    if (outer.jobKey === undefined) createJob(exec, outer, node);
  } else if (node.adHoc!.completionCondition === undefined) finish(exec, outer, node);
}

/** The subprocess is done: now, terminating what is active when `cancelRemaining`, or once its remaining paths end. */
function completeAdHoc(exec: Execution, outer: ElementInstance, node: FlowNode, cancelRemaining: boolean): void {
  if ((outer.children ?? 0) > 0 && !cancelRemaining) {
    outer.adHoc = { ...outer.adHoc, completing: true };
    return;
  }
  if ((outer.children ?? 0) > 0) exec.terminateChildren(outer.key);
  if (outer.jobKey !== undefined) {
    cancelJob(exec, outer.jobKey);
    outer.jobKey = undefined;
  }
  finish(exec, outer, node);
}

/** The output collection goes to the flow scope, then the token leaves (output mappings applied). */
function finish(exec: Execution, outer: ElementInstance, node: FlowNode): void {
  const name = node.adHoc!.outputCollection;
  if (name !== undefined) setPropagatedVariable(exec.instance, outer.scopeKey, name, exec.instance.variables[outer.key]?.[name] ?? []);
  exec.completeElement(outer, node);
}

/**
 * What is wrong with a job result for the job of `node`, naming the field,
 * or undefined when it can be applied. Checked before anything changes.
 */
export function jobResultProblem(node: FlowNode, result: AdHocJobResult): string | undefined {
  if (node.adHoc === undefined || node.type !== 'adHocSubProcess') {
    return `result is for the job of an ad-hoc subprocess; this job belongs to '${node.id}', a ${node.type}.`;
  }
  if (result.type !== 'adHocSubProcess') return `result.type must be 'adHocSubProcess', not ${JSON.stringify(result.type)}.`;
  return activationsProblem(node, result.activateElements ?? [], 'result.activateElements');
}

/**
 * What is wrong with activating `elements` in an ad-hoc subprocess of
 * `node` from outside (Zeebe's activation API, extension), naming the field,
 * or undefined when they can be activated.
 */
export function activationProblem(node: FlowNode, elements: readonly AdHocActivation[]): string | undefined {
  if (elements.length === 0) return 'elements must name at least one element to activate.';
  return activationsProblem(node, elements, 'elements');
}

function activationsProblem(node: FlowNode, elements: readonly AdHocActivation[], field: string): string | undefined {
  const { activatable } = node.adHoc!;
  for (let i = 0; i < elements.length; i++) {
    const { elementId, variables } = elements[i];
    if (!activatable.includes(elementId)) {
      return `${field}[${i}].elementId '${elementId}' is not an element ad-hoc subprocess '${node.id}' can activate (${activatable.join(', ')}).`;
    }
    if (variables !== undefined && (variables === null || typeof variables !== 'object' || Array.isArray(variables))) {
      return `${field}[${i}].variables must be a JSON object (name → value).`;
    }
  }
  return undefined;
}

/** Activates `elements` in the running ad-hoc subprocess `outer` from outside (checked first with activationProblem): each starts a path. */
export function activateFromOutside(exec: Execution, outer: ElementInstance, node: FlowNode, elements: readonly AdHocActivation[]): void {
  for (const element of elements) activateInner(exec, outer, node, element.elementId, element.variables);
}
