// CMMN 1.1 cases for the engine: compile a document once at deploy time
// (compileCmmn), then run case instances through the case runtime's
// applyCase (runtime/), the same apply(instance, command, ctx) shape as the
// BPMN runtime. Neither throws.
export { compileCmmn } from './compile-cmmn.ts';
export type { CompileCmmnOptions } from './compile-cmmn.ts';
export { applyCase } from './runtime/apply-case.ts';
export type { CaseModel, CompileCmmnResult, CompiledCmmn, PlanItem, PlanItemType, Sentry } from './types.ts';
export type { CaseApplyContext, CaseApplyResult, CaseCommand, CaseInstance, PlanItemInstance, PlanItemState } from './runtime/types.ts';
