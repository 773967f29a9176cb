// DMN 1.3 hit policies: which attribute values mean what, and how the
// outputs of all matching rules become the decision's result for the
// policies that need every match (ANY, PRIORITY, COLLECT with or without an
// aggregation, RULE ORDER, OUTPUT ORDER). UNIQUE and FIRST stop early and are
// handled inside the matching loop (evaluate-table.ts).
import { priorityOf } from './output-values.ts';
import { describe, orderKey, valuesEqual } from './values.ts';
import type { Aggregation, CompiledDecisionTable, CompiledRule, HitPolicy } from './types.ts';

const HIT_POLICIES: readonly HitPolicy[] = ['UNIQUE', 'FIRST', 'PRIORITY', 'ANY', 'COLLECT', 'RULE ORDER', 'OUTPUT ORDER'];
const AGGREGATIONS: readonly Aggregation[] = ['SUM', 'MIN', 'MAX', 'COUNT'];

/** DMN 1.1–1.3 spell these identically; absent means UNIQUE. Undefined = unknown. */
export function parseHitPolicy(raw: string | undefined): HitPolicy | undefined {
  if (raw === undefined) return 'UNIQUE';
  const normalised = raw
    .trim()
    .replace(/[\s_]+/g, ' ')
    .toUpperCase();
  return HIT_POLICIES.find((p) => p === normalised);
}

export function parseAggregation(raw: string): Aggregation | undefined {
  const normalised = raw.trim().toUpperCase();
  return AGGREGATIONS.find((a) => a === normalised);
}

export type TableOutcome = { ok: true; result: unknown; matchedRules: string[] } | { ok: false; error: string };

export function ruleName(rule: CompiledRule): string {
  return `rule '${rule.id}' (#${rule.index})`;
}

/**
 * `outputs[i]` is the output of `matched[i]` (a value, or a context for
 * several outputs). For COUNT the outputs are not needed and may be empty.
 */
export function combineMatches(table: CompiledDecisionTable, matched: CompiledRule[], outputs: unknown[]): TableOutcome {
  switch (table.hitPolicy) {
    case 'ANY':
      return any(matched, outputs);
    case 'PRIORITY':
      return priority(table, matched, outputs);
    case 'OUTPUT ORDER':
      return outputOrder(table, matched, outputs);
    case 'COLLECT':
      if (table.aggregation !== undefined) return aggregate(table.aggregation, matched, outputs);
      return { ok: true, result: outputs, matchedRules: matched.map((r) => r.id) };
    case 'RULE ORDER':
      return { ok: true, result: outputs, matchedRules: matched.map((r) => r.id) };
    default:
      return { ok: false, error: `hit policy ${table.hitPolicy} is resolved while matching` };
  }
}

function any(matched: CompiledRule[], outputs: unknown[]): TableOutcome {
  if (matched.length === 0) return { ok: true, result: null, matchedRules: [] };
  for (let i = 1; i < outputs.length; i++) {
    if (!valuesEqual(outputs[0], outputs[i])) {
      return {
        ok: false,
        error: `hit policy ANY: ${ruleName(matched[0])} and ${ruleName(matched[i])} both match but give different outputs (${describe(outputs[0])} vs ${describe(outputs[i])})`,
      };
    }
  }
  return { ok: true, result: outputs[0], matchedRules: matched.map((r) => r.id) };
}

/** Priority vector of one result: its rank in each output's outputValues (outputs without a list rank equal). */
function ranks(table: CompiledDecisionTable, output: unknown): number[] {
  const single = table.outputs.length === 1;
  const result: number[] = [];
  for (const column of table.outputs) {
    if (column.priorities === undefined) continue;
    const value = single ? output : (output as Record<string, unknown> | null)?.[column.name as string];
    result.push(priorityOf(column.priorities, value));
  }
  return result;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function priority(table: CompiledDecisionTable, matched: CompiledRule[], outputs: unknown[]): TableOutcome {
  if (matched.length === 0) return { ok: true, result: null, matchedRules: [] };
  let best = 0;
  let bestRanks = ranks(table, outputs[0]);
  for (let i = 1; i < outputs.length; i++) {
    const candidate = ranks(table, outputs[i]);
    // Strictly better only: among equal priorities the earlier rule wins.
    if (compareRanks(candidate, bestRanks) < 0) {
      best = i;
      bestRanks = candidate;
    }
  }
  return { ok: true, result: outputs[best], matchedRules: [matched[best].id] };
}

function outputOrder(table: CompiledDecisionTable, matched: CompiledRule[], outputs: unknown[]): TableOutcome {
  const order = outputs.map((output, i) => ({ i, ranks: ranks(table, output) }));
  order.sort((a, b) => compareRanks(a.ranks, b.ranks) || a.i - b.i);
  return { ok: true, result: order.map((o) => outputs[o.i]), matchedRules: order.map((o) => matched[o.i].id) };
}

/** Null outputs are skipped; with nothing left SUM/MIN/MAX give null, COUNT counts matched rules. */
function aggregate(aggregation: Aggregation, matched: CompiledRule[], outputs: unknown[]): TableOutcome {
  const matchedRules = matched.map((r) => r.id);
  if (aggregation === 'COUNT') return { ok: true, result: matched.length, matchedRules };
  if (aggregation === 'SUM') {
    let sum: number | null = null;
    for (let i = 0; i < outputs.length; i++) {
      const value = outputs[i];
      if (value === null || value === undefined) continue;
      if (typeof value !== 'number') {
        return { ok: false, error: `aggregation SUM needs numbers, but ${ruleName(matched[i])} gives ${describe(value)}` };
      }
      sum = (sum ?? 0) + value;
    }
    return { ok: true, result: sum, matchedRules };
  }
  let best: unknown = null;
  let bestKey: { kind: string; key: number | string } | undefined;
  for (let i = 0; i < outputs.length; i++) {
    const value = outputs[i];
    if (value === null || value === undefined) continue;
    const key = orderKey(value);
    if (key === undefined || (bestKey !== undefined && key.kind !== bestKey.kind)) {
      return {
        ok: false,
        error: `aggregation ${aggregation} needs comparable values of one type, but ${ruleName(matched[i])} gives ${describe(value)}`,
      };
    }
    if (bestKey === undefined || (aggregation === 'MIN' ? key.key < bestKey.key : key.key > bestKey.key)) {
      best = value;
      bestKey = key;
    }
  }
  return { ok: true, result: best, matchedRules };
}
