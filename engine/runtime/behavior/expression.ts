// Evaluating model expressions (FEEL or literal) against the variables an
// element instance sees. Results are FeelResults so a caller can turn a
// failure (a FEEL limit hit included) into an incident that names the
// element and the expression. All evaluations of one command share the
// command's FEEL time allowance: the Execution is their scope.
import { compileExpression, type FeelResult } from '../../feel/index.ts';
import type { ValueExpr } from '../../model/types.ts';
import type { Execution } from '../execution.ts';
import type { ElementInstance } from '../types.ts';
import { visibleVariables } from './variables.ts';

/** The scope an element's expressions read from: its own local scope if it has one, else its flow scope. */
export function readScope(exec: Execution, ei: ElementInstance): string {
  return exec.instance.variables[ei.key] !== undefined ? ei.key : ei.scopeKey;
}

export function evaluateSource(exec: Execution, ei: ElementInstance, source: string): FeelResult {
  const compiled = compileExpression(source);
  if (!compiled.ok) return compiled;
  return compiled.value.evaluate(visibleVariables(exec.instance, readScope(exec, ei)), exec);
}

export function evaluateValue(exec: Execution, ei: ElementInstance, expr: ValueExpr): FeelResult {
  return expr.kind === 'literal' ? { ok: true, value: expr.value } : evaluateSource(exec, ei, expr.source);
}

export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return `the string "${value}"`;
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a context' : `${typeof value} ${String(value)}`;
}
