// Evaluating a decision of a compiled model: its plan (requirements first,
// each once) is walked in order, every decision seeing the caller's variables
// plus the results of the decisions it requires directly. Never throws.
//
// How a required decision's result is visible to its dependant, later entries
// winning on a clash:
//   1. Camunda 7 style, by output name: a table's single result spreads its
//      outputs (`desiredDish`), a list result gives each output name the list
//      of its values; a literal expression is visible under its variable name.
//      Camunda 7 DMN 1.1 models rely on this.
//   2. Camunda 8 style, by decision id.
//   3. DMN style, by decision name (the spec's rule, so it wins).
import { ambientFeelScope, type FeelContext } from '../feel/index.ts';
import { planFor } from './requirement-graph.ts';
import { evaluateTable } from './evaluate-table.ts';
import type { TableOutcome } from './hit-policy.ts';
import { setKey } from './values.ts';
import type { CompiledDecision, CompiledDmn, EvaluateDecisionResult, EvaluatedDecision } from './types.ts';

/**
 * Evaluates `decisionId` and the decisions it requires. Their FEEL shares
 * one time allowance (FEEL_LIMITS.scopeMs): that of `scope` when given, else
 * that of the scope lent by inFeelScope (the engine command a business-rule
 * task runs in), else one of its own.
 */
export function evaluateDecision(model: CompiledDmn, decisionId: string, variables: Record<string, unknown>, scope?: object): EvaluateDecisionResult {
  try {
    return evaluatePlan(model, decisionId, variables, scope ?? ambientFeelScope() ?? {});
  } catch (err) {
    // Defensive: e.g. a throwing getter in the caller's variables.
    return { ok: false, error: `internal error while evaluating decision '${decisionId}': ${err instanceof Error ? err.message : String(err)}`, decisionId };
  }
}

function evaluatePlan(model: CompiledDmn, decisionId: string, variables: Record<string, unknown>, scope: object): EvaluateDecisionResult {
  const target = model?.decisionsById?.get(decisionId);
  if (target === undefined) {
    const known = model?.decisions?.map((d) => `'${d.id}'`).join(', ') ?? '';
    return { ok: false, error: `unknown decision '${decisionId}' (the model has ${known || 'none'})`, decisionId };
  }
  if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) {
    return { ok: false, error: 'variables must be an object of name → value', decisionId };
  }
  const steps = planFor(model.plans, target).steps;
  const results = new Array<unknown>(steps.length);
  const evaluated: EvaluatedDecision[] = [];
  for (let s = 0; s < steps.length; s++) {
    const { decision, requires } = steps[s];
    let context: FeelContext = variables;
    if (requires.length > 0) {
      // Spread (not Object.assign) so an own "__proto__" variable stays a key.
      context = { ...variables };
      for (const r of requires) expose(context, steps[r].decision, results[r]);
    }
    const outcome = evaluateLogic(decision, context, scope);
    if (!outcome.ok) return { ok: false, error: `decision '${decision.id}' (${decision.name}): ${outcome.error}`, decisionId: decision.id };
    results[s] = outcome.result;
    evaluated.push({ decisionId: decision.id, result: outcome.result, matchedRules: outcome.matchedRules });
  }
  return { ok: true, result: results[steps.length - 1], evaluated };
}

function evaluateLogic(decision: CompiledDecision, context: FeelContext, scope: object): TableOutcome {
  const logic = decision.logic;
  if (logic.kind === 'decisionTable') return evaluateTable(logic, context, scope);
  const evaluated = logic.expression.evaluate(context, scope);
  if (!evaluated.ok) return { ok: false, error: `literalExpression: ${evaluated.error}` };
  return { ok: true, result: evaluated.value, matchedRules: [] };
}

function expose(context: Record<string, unknown>, decision: CompiledDecision, result: unknown): void {
  const logic = decision.logic;
  if (logic.kind === 'literalExpression') {
    if (logic.variableName !== undefined) setKey(context, logic.variableName, result);
  } else if (logic.listResult) {
    const list = result as unknown[];
    if (list.length > 0) {
      if (logic.outputs.length === 1) {
        if (logic.outputs[0].name !== undefined) setKey(context, logic.outputs[0].name, list);
      } else {
        for (const output of logic.outputs) {
          const name = output.name as string;
          setKey(
            context,
            name,
            list.map((entry) => (entry as Record<string, unknown>)[name]),
          );
        }
      }
    }
  } else if (result !== null) {
    // As in Camunda 7, no match exposes nothing (absent and null read the same in FEEL).
    if (logic.outputs.length === 1) {
      if (logic.outputs[0].name !== undefined) setKey(context, logic.outputs[0].name, result);
    } else {
      for (const output of logic.outputs) setKey(context, output.name as string, (result as Record<string, unknown>)[output.name as string]);
    }
  }
  setKey(context, decision.id, result);
  setKey(context, decision.name, result);
}
