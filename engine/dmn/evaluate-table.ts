// Evaluating one compiled decision table against a context: inputs once,
// then rule matching. FIRST and UNIQUE are resolved inside the loop (FIRST
// stops at the first match, UNIQUE needs every rule tested to catch a second
// match); the other hit policies gather all matches for hit-policy.ts. The
// loop allocates nothing for rules that do not match and calls FEEL only for
// entries that are not plain literals.
import type { FeelContext } from '../feel/index.ts';
import { combineMatches, ruleName } from './hit-policy.ts';
import type { TableOutcome } from './hit-policy.ts';
import type { CompiledDecisionTable, CompiledRule } from './types.ts';
import { setKey } from './values.ts';

/** An error travelling through the hot loop's return values (never a legitimate FEEL value). */
class Failure {
  constructor(readonly message: string) {}
}

/** `scope`: the FEEL time scope every entry evaluated here draws on (see CompiledFeel.evaluate). */
export function evaluateTable(table: CompiledDecisionTable, context: FeelContext, scope?: object): TableOutcome {
  const inputs = table.inputs;
  const values = new Array<unknown>(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    if (input.variable !== undefined) {
      // A missing input is a modelling or data error the caller must see (an
      // incident), not a silent null that quietly matches no rule.
      if (!Object.prototype.hasOwnProperty.call(context, input.variable)) {
        return { ok: false, error: `input '${input.label}' (column ${i + 1}) reads variable '${input.variable}', which is not set` };
      }
      const value = context[input.variable];
      // FEEL hands these back unchanged; objects, dates and absent names still go through FEEL.
      if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
        values[i] = value;
        continue;
      }
    }
    const evaluated = input.expression.evaluate(context, scope);
    if (!evaluated.ok) return { ok: false, error: `input '${input.label}' (column ${i + 1}): ${evaluated.error}` };
    values[i] = evaluated.value;
  }

  const rules = table.rules;
  switch (table.hitPolicy) {
    case 'FIRST':
      for (let r = 0; r < rules.length; r++) {
        const matched = matchRule(table, rules[r], values, context, scope);
        if (matched === false) continue;
        if (matched !== true) return { ok: false, error: matched.message };
        const output = ruleOutput(table, rules[r], context, scope);
        if (output instanceof Failure) return { ok: false, error: output.message };
        return { ok: true, result: output, matchedRules: [rules[r].id] };
      }
      return { ok: true, result: null, matchedRules: [] };

    case 'UNIQUE': {
      let found: CompiledRule | undefined;
      let overlapping: CompiledRule[] | undefined;
      for (let r = 0; r < rules.length; r++) {
        const matched = matchRule(table, rules[r], values, context, scope);
        if (matched === false) continue;
        if (matched !== true) return { ok: false, error: matched.message };
        if (found === undefined) found = rules[r];
        else (overlapping ??= [found]).push(rules[r]);
      }
      if (overlapping !== undefined) {
        return { ok: false, error: `hit policy UNIQUE allows one matching rule, but ${overlapping.map(ruleName).join(', ')} match` };
      }
      if (found === undefined) return { ok: true, result: null, matchedRules: [] };
      const output = ruleOutput(table, found, context, scope);
      if (output instanceof Failure) return { ok: false, error: output.message };
      return { ok: true, result: output, matchedRules: [found.id] };
    }

    default: {
      const matchedRules: CompiledRule[] = [];
      const outputs: unknown[] = [];
      // COUNT only counts, so it need not evaluate outputs.
      const needOutputs = table.aggregation !== 'COUNT';
      for (let r = 0; r < rules.length; r++) {
        const matched = matchRule(table, rules[r], values, context, scope);
        if (matched === false) continue;
        if (matched !== true) return { ok: false, error: matched.message };
        matchedRules.push(rules[r]);
        if (needOutputs) {
          const output = ruleOutput(table, rules[r], context, scope);
          if (output instanceof Failure) return { ok: false, error: output.message };
          outputs.push(output);
        }
      }
      return combineMatches(table, matchedRules, outputs);
    }
  }
}

function matchRule(table: CompiledDecisionTable, rule: CompiledRule, values: unknown[], context: FeelContext, scope: object | undefined): boolean | Failure {
  const checks = rule.checks;
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i];
    const value = values[check.input];
    // For a primitive input, a literal entry is plain equality; FEEL would
    // treat a list input differently (a singleton list equals its element).
    if (check.literal && (value === null || (typeof value !== 'object' && typeof value !== 'function'))) {
      if (value !== check.value) return false;
      continue;
    }
    const tested = check.tests.test(value, context, scope);
    if (!tested.ok) {
      const input = table.inputs[check.input];
      return new Failure(`${ruleName(rule)}, input '${input.label}' (column ${check.input + 1}): ${tested.error}`);
    }
    if (!tested.value) return false;
  }
  return true;
}

function ruleOutput(table: CompiledDecisionTable, rule: CompiledRule, context: FeelContext, scope: object | undefined): unknown {
  const entries = rule.outputs;
  if (entries.length === 1) return outputValue(table, rule, 0, context, scope);
  const result: Record<string, unknown> = {};
  for (let i = 0; i < entries.length; i++) {
    const value = outputValue(table, rule, i, context, scope);
    if (value instanceof Failure) return value;
    setKey(result, table.outputs[i].name as string, value);
  }
  return result;
}

function outputValue(table: CompiledDecisionTable, rule: CompiledRule, column: number, context: FeelContext, scope: object | undefined): unknown {
  const entry = rule.outputs[column];
  if (entry.expression === undefined) return entry.value;
  const evaluated = entry.expression.evaluate(context, scope);
  if (evaluated.ok) return evaluated.value;
  return new Failure(`${ruleName(rule)}, output '${table.outputs[column].label}' (column ${column + 1}): ${evaluated.error}`);
}
