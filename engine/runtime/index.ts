// The engine core: a deterministic state machine over process instance
// documents (DESIGN.md §3). See apply.ts.
export { apply } from './apply.ts';
export { visibleVariables } from './behavior/variables.ts';
export type * from './types.ts';
