// Variable scopes of an instance, with Camunda 8 semantics: each element
// instance may own a local scope (io mappings, containers); reads see the
// chain from the element up to the process; a propagated write lands on the
// nearest scope that already has the name, otherwise on the process scope.
import type { ElementInstance, ProcessInstance, Variables } from '../types.ts';

/** The scope key above `scopeKey`, or undefined at the process scope. */
function parentScope(instance: ProcessInstance, scopeKey: string): string | undefined {
  if (scopeKey === instance.key) return undefined;
  return instance.elements[scopeKey]?.scopeKey;
}

/**
 * Everything visible from `scopeKey`, nearer scopes shadowing farther ones.
 * When only the process scope has variables this is that object itself (no
 * copy): callers must treat the result as read-only.
 */
export function visibleVariables(instance: ProcessInstance, scopeKey: string): Variables {
  const root = instance.variables[instance.key];
  let chain: Variables[] | undefined;
  for (let key: string | undefined = scopeKey; key !== undefined && key !== instance.key; key = parentScope(instance, key)) {
    const scope = instance.variables[key];
    if (scope !== undefined) (chain ??= []).push(scope);
  }
  if (chain === undefined) return root;
  const merged: Variables = Object.assign({}, root);
  for (let i = chain.length - 1; i >= 0; i--) Object.assign(merged, chain[i]);
  return merged;
}

export function setLocalVariable(instance: ProcessInstance, scopeKey: string, target: string, value: unknown): void {
  const scope = (instance.variables[scopeKey] ??= {});
  assignPath(scope, target, value);
}

/** Sets `name` on the nearest scope from `scopeKey` upwards that has it, else on the process scope. */
export function setPropagatedVariable(instance: ProcessInstance, scopeKey: string, target: string, value: unknown): void {
  const dot = target.indexOf('.');
  const name = dot < 0 ? target : target.slice(0, dot);
  for (let key: string | undefined = scopeKey; key !== undefined; key = parentScope(instance, key)) {
    const scope = instance.variables[key];
    if (scope !== undefined && Object.prototype.hasOwnProperty.call(scope, name)) {
      assignPath(scope, target, value);
      return;
    }
  }
  setLocalVariable(instance, instance.key, target, value);
}

/**
 * Merges what a job or a called instance returned into the element's view,
 * as Camunda 8 does: with output mappings the variables are local to the
 * element and only the mappings reach the flow scope; without, they propagate.
 */
export function mergeResultVariables(instance: ProcessInstance, ei: ElementInstance, hasOutputs: boolean, variables: Variables): void {
  const from = instance.variables[ei.key] !== undefined ? ei.key : ei.scopeKey;
  for (const name of Object.keys(variables)) {
    if (hasOutputs) setLocalVariable(instance, ei.key, name, variables[name]);
    else setPropagatedVariable(instance, from, name, variables[name]);
  }
}

/**
 * Writes `value` at a dotted path (`order.total`), copying intermediate
 * objects so values shared with earlier snapshots are never mutated.
 */
function assignPath(scope: Variables, target: string, value: unknown): void {
  if (target.indexOf('.') < 0) {
    scope[target] = value;
    return;
  }
  const parts = target.split('.');
  let holder: Record<string, unknown> = scope;
  for (let i = 0; i < parts.length - 1; i++) {
    const current = holder[parts[i]];
    const copy: Record<string, unknown> =
      current !== null && typeof current === 'object' && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
    holder[parts[i]] = copy;
    holder = copy;
  }
  holder[parts[parts.length - 1]] = value;
}
