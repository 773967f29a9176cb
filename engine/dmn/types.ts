// The shapes of a compiled DMN model and of evaluation outcomes. A compiled
// model holds every FEEL expression already compiled (deploy time), so that
// evaluation only walks arrays and calls compiled objects.
import type { CompiledFeel, CompiledUnaryTests } from '../feel/index.ts';

export interface DmnProblem {
  /** Id of the offending element (entry, rule, input, decision …) when it has one. */
  readonly elementId?: string;
  readonly message: string;
}

export interface CompileDmnOptions {
  /** Largest accepted document in UTF-8 bytes; default 10 MiB. */
  readonly maxBytes?: number;
}

export type CompileDmnResult = { ok: true; model: CompiledDmn } | { ok: false; problems: DmnProblem[] };

export interface EvaluatedDecision {
  readonly decisionId: string;
  readonly result: unknown;
  /** Ids of the rules whose outputs make up the result (empty for literal expressions). */
  readonly matchedRules: string[];
}

export type EvaluateDecisionResult = { ok: true; result: unknown; evaluated: EvaluatedDecision[] } | { ok: false; error: string; decisionId: string };

export type DmnVersion = '1.1' | '1.2' | '1.3';

export type HitPolicy = 'UNIQUE' | 'FIRST' | 'PRIORITY' | 'ANY' | 'COLLECT' | 'RULE ORDER' | 'OUTPUT ORDER';
export type Aggregation = 'SUM' | 'MIN' | 'MAX' | 'COUNT';

export interface DmnDecisionInfo {
  readonly id: string;
  readonly name: string;
}

export interface CompiledDmn {
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly namespace: string | undefined;
  readonly dmnVersion: DmnVersion;
  /** Every decision of the model, in document order. */
  readonly decisions: readonly DmnDecisionInfo[];
  readonly decisionsById: ReadonlyMap<string, CompiledDecision>;
  /** Evaluation plans, built on a decision's first evaluation (see requirement-graph.ts). */
  readonly plans: Map<CompiledDecision, EvaluationPlan>;
}

export interface EvaluationPlan {
  /** Topological order: each step's requirements come before it; the requested decision is last. */
  readonly steps: readonly PlanStep[];
}

export interface PlanStep {
  readonly decision: CompiledDecision;
  /** Indexes into `steps` of the decisions this one requires directly. */
  readonly requires: readonly number[];
}

export interface CompiledDecision extends DmnDecisionInfo {
  readonly logic: CompiledDecisionTable | CompiledLiteralExpression;
  /** Decisions whose results this one reads (informationRequirement), each once. */
  readonly requires: readonly CompiledDecision[];
}

export interface CompiledLiteralExpression {
  readonly kind: 'literalExpression';
  readonly expression: CompiledFeel;
  /** The `variable` name, exposed to dependants as Camunda 7 does. */
  readonly variableName: string | undefined;
}

export interface CompiledDecisionTable {
  readonly kind: 'decisionTable';
  readonly hitPolicy: HitPolicy;
  readonly aggregation: Aggregation | undefined;
  /** True when the result is a list (COLLECT without aggregation, RULE ORDER, OUTPUT ORDER). */
  readonly listResult: boolean;
  readonly inputs: readonly CompiledInput[];
  readonly outputs: readonly CompiledOutput[];
  readonly rules: readonly CompiledRule[];
}

export interface CompiledInput {
  /** How errors name the column: label, else expression text. */
  readonly label: string;
  readonly expression: CompiledFeel;
  /**
   * Set when the expression is a bare variable name: a primitive value is then
   * read straight from the context (FEEL returns primitives unchanged), and
   * anything else still goes through FEEL.
   */
  readonly variable: string | undefined;
}

export interface CompiledOutput {
  readonly name: string | undefined;
  readonly label: string;
  /** Compiled `outputValues`, best first; undefined when the output lists none. */
  readonly priorities: readonly OutputValueTest[] | undefined;
}

/** One entry of an `outputValues` list; literals also carry their constant for === on primitives. */
export interface OutputValueTest {
  readonly literal: boolean;
  readonly value: unknown;
  readonly tests: CompiledUnaryTests;
}

export interface CompiledRule {
  /** The rule's id, or `#<n>` (1-based) when the rule has none. */
  readonly id: string;
  /** 1-based position in the table. */
  readonly index: number;
  /** Only the non-trivial input entries (`-`/empty match anything and are dropped). */
  readonly checks: readonly RuleCheck[];
  readonly outputs: readonly OutputEntry[];
}

export interface RuleCheck {
  /** 0-based input column. */
  readonly input: number;
  /**
   * Literal entry (string, number, boolean, null): a primitive input matches by === against
   * `value` (what FEEL does for such literals); other inputs go through `tests`.
   */
  readonly literal: boolean;
  readonly value: unknown;
  readonly tests: CompiledUnaryTests;
}

export interface OutputEntry {
  /** Undefined for empty entries and literals; `value` holds the constant then. */
  readonly expression: CompiledFeel | undefined;
  readonly value: unknown;
}
