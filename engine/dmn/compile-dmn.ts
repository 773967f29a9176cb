// DMN XML → CompiledDmn, or every problem found, each with the id of the
// element it concerns. This is the deploy-time step: all FEEL is compiled
// here and the requirement graph is checked (unknown targets, cycles), so
// evaluation neither parses nor validates. Never throws.
import { compileExpression } from '../feel/index.ts';
import { compileDecisionTable, languageProblem } from './compile-table.ts';
import { parseDmn } from './parse-dmn.ts';
import type { RawDecision } from './parse-dmn.ts';
import { DEFAULT_MAX_BYTES, parseXml } from './parse-xml.ts';
import { findCycles, resolveRequirements } from './requirement-graph.ts';
import type { CompileDmnOptions, CompileDmnResult, CompiledDecision, CompiledDmn, CompiledLiteralExpression, DmnProblem } from './types.ts';

export function compileDmn(xml: string, options: CompileDmnOptions = {}): CompileDmnResult {
  try {
    return compile(xml, options ?? {});
  } catch (err) {
    // Defensive: a bug here must surface as a deploy problem, not a crashed request.
    return { ok: false, problems: [{ message: `internal error while compiling the DMN document: ${err instanceof Error ? err.message : String(err)}` }] };
  }
}

function compile(xml: string, options: CompileDmnOptions): CompileDmnResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (typeof maxBytes !== 'number' || !(maxBytes > 0)) {
    return { ok: false, problems: [{ message: `maxBytes must be a positive number, got ${String(maxBytes)}` }] };
  }
  const xmlResult = parseXml(xml, maxBytes);
  if (!xmlResult.ok) return { ok: false, problems: [{ message: xmlResult.message }] };
  const parsed = parseDmn(xmlResult.root);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  const definitions = parsed.definitions;

  const problems: DmnProblem[] = [];
  if (definitions.decisions.length === 0) {
    problems.push({ elementId: definitions.id, message: 'the DMN document contains no decision' });
  }
  const identified: (RawDecision & { id: string })[] = [];
  const seen = new Set<string>();
  for (const decision of definitions.decisions) {
    if (decision.id === undefined || decision.id.trim() === '') {
      problems.push({ message: `decision '${decision.name ?? '(unnamed)'}' has no id` });
    } else if (seen.has(decision.id)) {
      problems.push({ elementId: decision.id, message: `decision id '${decision.id}' is used by more than one decision` });
    } else {
      seen.add(decision.id);
      identified.push(decision as RawDecision & { id: string });
    }
  }

  const graph = resolveRequirements(identified, definitions.inputData, problems);
  for (const cycle of findCycles(graph)) {
    problems.push({ elementId: cycle[0], message: `decision requirements form a cycle: ${cycle.join(' → ')}` });
  }

  const compiled = new Map<string, CompiledDecision & { requires: CompiledDecision[] }>();
  for (const decision of identified) {
    const logic = compileLogic(decision, problems);
    if (logic !== undefined) compiled.set(decision.id, { id: decision.id, name: decision.name ?? decision.id, logic, requires: [] });
  }
  if (problems.length > 0) return { ok: false, problems };

  for (const decision of compiled.values()) {
    for (const required of graph.get(decision.id) ?? []) decision.requires.push(compiled.get(required) as CompiledDecision);
  }
  const decisions = [...compiled.values()];
  const model: CompiledDmn = {
    id: definitions.id,
    name: definitions.name,
    namespace: definitions.namespace,
    dmnVersion: definitions.version,
    decisions: decisions.map((d) => ({ id: d.id, name: d.name })),
    decisionsById: compiled,
    plans: new Map(),
  };
  return { ok: true, model };
}

function compileLogic(decision: RawDecision & { id: string }, problems: DmnProblem[]): CompiledDecision['logic'] | undefined {
  const logic = decision.logic;
  const where = `decision '${decision.id}'`;
  switch (logic.kind) {
    case 'missing':
      problems.push({ elementId: decision.id, message: `${where} has no decision logic (expected a decisionTable or a literalExpression)` });
      return undefined;
    case 'unsupported':
      problems.push({
        elementId: decision.id,
        message: `${where}: decision logic <${logic.element}> is not supported (only decisionTable and literalExpression)`,
      });
      return undefined;
    case 'literalExpression': {
      const expression = logic.expression;
      const text = expression.text?.trim() ?? '';
      if (text === '') {
        problems.push({ elementId: expression.id ?? decision.id, message: `${where}: the literalExpression has no text` });
        return undefined;
      }
      const language = languageProblem(expression, `${where}, literalExpression`, decision.id);
      if (language) {
        problems.push(language);
        return undefined;
      }
      const compiled = compileExpression(text);
      if (!compiled.ok) {
        problems.push({ elementId: expression.id ?? decision.id, message: `${where}, literalExpression: ${compiled.error}` });
        return undefined;
      }
      const result: CompiledLiteralExpression = { kind: 'literalExpression', expression: compiled.value, variableName: logic.variableName };
      return result;
    }
    case 'decisionTable':
      return compileDecisionTable(decision.id, logic, problems);
  }
}
