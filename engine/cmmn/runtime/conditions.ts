// Conditions of a case (if-parts and item control rules), evaluated in FEEL
// against the case file. A condition that does not give a boolean is an
// error the caller turns into an incident naming the element; null (an
// unset variable) counts as false, as an unmet condition.
import { evaluateFeel } from '../../feel/index.ts';
import type { Rule } from '../types.ts';
import type { Variables } from '../../runtime/types.ts';

export type ConditionResult = { ok: true; value: boolean } | { ok: false; error: string };

export function evaluateCondition(source: string, variables: Variables, scope: object): ConditionResult {
  const result = evaluateFeel(source, variables, scope);
  if (!result.ok) return result;
  if (result.value === null || result.value === undefined) return { ok: true, value: false };
  if (typeof result.value !== 'boolean') return { ok: false, error: `'${source}' gave ${JSON.stringify(result.value)}, not true or false` };
  return { ok: true, value: result.value };
}

export function evaluateRule(rule: Rule, variables: Variables, scope: object): ConditionResult {
  return typeof rule === 'boolean' ? { ok: true, value: rule } : evaluateCondition(rule.condition, variables, scope);
}
