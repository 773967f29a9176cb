// Decision table → compiled table: every input expression, input entry,
// output entry and outputValues list is compiled once here, trivial entries
// (`-`, empty) are dropped from the rule so matching never visits them, and
// literal entries keep their constant so evaluation compares instead of
// calling FEEL. All problems are collected, each with the element id and the
// rule index / column it concerns.
import { compileExpression, compileUnaryTests } from '../feel/index.ts';
import { parseAggregation, parseHitPolicy } from './hit-policy.ts';
import { compileOutputValues, literalValue } from './output-values.ts';
import type { RawDecisionTable, RawExpression } from './parse-dmn.ts';
import type { Aggregation, CompiledDecisionTable, CompiledInput, CompiledOutput, CompiledRule, DmnProblem, OutputEntry, RuleCheck } from './types.ts';

/** FEEL names that are not variables, so a bare one of these is not a variable read. */
const NOT_VARIABLES = new Set(['true', 'false', 'null']);
const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isFeelLanguage(language: string | undefined): boolean {
  // DMN 1.1–1.3 each name FEEL by a different URI; Camunda writes plain "feel".
  return language === undefined || language.trim() === '' || /feel/i.test(language);
}

export function languageProblem(expression: RawExpression, where: string, fallbackId: string): DmnProblem | undefined {
  if (isFeelLanguage(expression.language)) return undefined;
  return {
    elementId: expression.id ?? fallbackId,
    message: `${where}: expression language '${expression.language}' is not supported (only FEEL)`,
  };
}

export function compileDecisionTable(decisionId: string, raw: RawDecisionTable, problems: DmnProblem[]): CompiledDecisionTable | undefined {
  const tableId = raw.id ?? decisionId;
  const before = problems.length;
  const where = `decision '${decisionId}'`;

  const hitPolicy = parseHitPolicy(raw.hitPolicy);
  if (hitPolicy === undefined) {
    problems.push({
      elementId: tableId,
      message: `${where}: unknown hit policy '${raw.hitPolicy}' (expected UNIQUE, FIRST, PRIORITY, ANY, COLLECT, RULE ORDER or OUTPUT ORDER)`,
    });
  }
  let aggregation: Aggregation | undefined;
  if (raw.aggregation !== undefined && raw.aggregation.trim() !== '') {
    aggregation = parseAggregation(raw.aggregation);
    if (aggregation === undefined) {
      problems.push({ elementId: tableId, message: `${where}: unknown aggregation '${raw.aggregation}' (expected SUM, MIN, MAX or COUNT)` });
    } else if (hitPolicy !== undefined && hitPolicy !== 'COLLECT') {
      problems.push({ elementId: tableId, message: `${where}: aggregation ${aggregation} is only allowed with hit policy COLLECT, not ${hitPolicy}` });
    } else if (raw.outputs.length > 1) {
      problems.push({ elementId: tableId, message: `${where}: aggregation ${aggregation} needs a single output, the table has ${raw.outputs.length}` });
    }
  }

  const inputs: CompiledInput[] = [];
  raw.inputs.forEach((input, i) => {
    const column = `${where}, input '${input.label ?? input.id ?? i + 1}' (column ${i + 1})`;
    const text = input.expression?.text?.trim();
    if (input.expression === undefined || text === undefined || text === '') {
      problems.push({ elementId: input.expression?.id ?? input.id ?? tableId, message: `${column}: the input has no inputExpression text` });
      return;
    }
    const language = languageProblem(input.expression, column, input.id ?? tableId);
    if (language) return void problems.push(language);
    const compiled = compileExpression(text);
    if (!compiled.ok) {
      problems.push({ elementId: input.expression.id ?? input.id ?? tableId, message: `${column}: ${compiled.error}` });
      return;
    }
    inputs.push({
      label: input.label ?? text,
      expression: compiled.value,
      variable: BARE_NAME.test(text) && !NOT_VARIABLES.has(text) ? text : undefined,
    });
  });

  if (raw.outputs.length === 0) problems.push({ elementId: tableId, message: `${where}: the decision table has no output` });
  const outputs: CompiledOutput[] = [];
  const names = new Set<string>();
  raw.outputs.forEach((output, i) => {
    const column = `${where}, output '${output.name ?? output.label ?? output.id ?? i + 1}' (column ${i + 1})`;
    if (raw.outputs.length > 1) {
      // Several outputs make a context keyed by name, so each needs a distinct one.
      if (output.name === undefined || output.name.trim() === '') {
        problems.push({ elementId: output.id ?? tableId, message: `${column}: a table with several outputs needs a name on every output` });
      } else if (names.has(output.name)) {
        problems.push({ elementId: output.id ?? tableId, message: `${column}: the output name '${output.name}' is used twice` });
      }
      if (output.name !== undefined) names.add(output.name);
    }
    let priorities: CompiledOutput['priorities'];
    if (output.outputValues?.text !== undefined) {
      const compiled = compileOutputValues(output.outputValues.text);
      if (!compiled.ok) problems.push({ elementId: output.outputValues.id ?? output.id ?? tableId, message: `${column}: ${compiled.error}` });
      else priorities = compiled.value;
    }
    outputs.push({ name: output.name, label: output.label ?? output.name ?? output.id ?? `output ${i + 1}`, priorities });
  });
  if ((hitPolicy === 'PRIORITY' || hitPolicy === 'OUTPUT ORDER') && outputs.length > 0 && outputs.every((o) => o.priorities === undefined)) {
    problems.push({ elementId: tableId, message: `${where}: hit policy ${hitPolicy} ranks results by outputValues, but no output lists any` });
  }

  const rules: CompiledRule[] = [];
  raw.rules.forEach((rule, r) => {
    const index = r + 1;
    const ruleId = rule.id ?? `#${index}`;
    const ruleWhere = `${where}, rule '${ruleId}' (#${index})`;
    if (rule.inputEntries.length !== raw.inputs.length || rule.outputEntries.length !== raw.outputs.length) {
      problems.push({
        elementId: rule.id ?? tableId,
        message: `${ruleWhere}: has ${rule.inputEntries.length} input and ${rule.outputEntries.length} output entries, the table has ${raw.inputs.length} inputs and ${raw.outputs.length} outputs`,
      });
      return;
    }
    const checks: RuleCheck[] = [];
    rule.inputEntries.forEach((entry, c) => {
      const text = entry.text?.trim() ?? '';
      if (text === '' || text === '-') return;
      const at = `${ruleWhere}, input entry in column ${c + 1} ('${raw.inputs[c].label ?? raw.inputs[c].id ?? c + 1}')`;
      const language = languageProblem(entry, at, rule.id ?? tableId);
      if (language) return void problems.push(language);
      const tests = compileUnaryTests(text);
      if (!tests.ok) return void problems.push({ elementId: entry.id ?? rule.id ?? tableId, message: `${at}: ${tests.error}` });
      const literal = literalValue(text);
      checks.push({ input: c, literal: literal !== undefined, value: literal?.value, tests: tests.value });
    });
    const entries: OutputEntry[] = [];
    rule.outputEntries.forEach((entry, c) => {
      const text = entry.text?.trim() ?? '';
      if (text === '') return void entries.push({ expression: undefined, value: null });
      const at = `${ruleWhere}, output entry in column ${c + 1} ('${raw.outputs[c].name ?? raw.outputs[c].label ?? c + 1}')`;
      const language = languageProblem(entry, at, rule.id ?? tableId);
      if (language) return void problems.push(language);
      const compiled = compileExpression(text);
      if (!compiled.ok) return void problems.push({ elementId: entry.id ?? rule.id ?? tableId, message: `${at}: ${compiled.error}` });
      const literal = literalValue(text);
      entries.push(literal !== undefined ? { expression: undefined, value: literal.value } : { expression: compiled.value, value: undefined });
    });
    rules.push({ id: ruleId, index, checks, outputs: entries });
  });

  if (problems.length > before || hitPolicy === undefined) return undefined;
  return {
    kind: 'decisionTable',
    hitPolicy,
    aggregation,
    listResult: (hitPolicy === 'COLLECT' && aggregation === undefined) || hitPolicy === 'RULE ORDER' || hitPolicy === 'OUTPUT ORDER',
    inputs,
    outputs,
    rules,
  };
}
