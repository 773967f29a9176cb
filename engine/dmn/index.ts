// DMN 1.1/1.2/1.3 decisions for the engine: compile a document once at
// deploy time (compileDmn), then evaluate any of its decisions, with their
// required decisions, as often as needed (evaluateDecision). Decision tables
// with every DMN 1.3 hit policy and literal expressions are supported; FEEL
// goes through engine/feel. Neither function throws.
export { compileDmn } from './compile-dmn.ts';
export { evaluateDecision } from './evaluate.ts';
export type { CompileDmnOptions, CompileDmnResult, CompiledDmn, DmnDecisionInfo, DmnProblem, EvaluateDecisionResult, EvaluatedDecision } from './types.ts';
