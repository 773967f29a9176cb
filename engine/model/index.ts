// engine/model: BPMN 2.0 XML → a compiled, validated model for engine/runtime.
// compileBpmn is the only entry point; the types describe what it produces.
export { compileBpmn, type CompileOptions } from './compile.ts';
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_ELEMENTS } from './guards.ts';
export { withInlineScripts } from './inline-scripts.ts';
export { SUPPORT, type SupportEntry, type SupportStatus } from './support.ts';
export type * from './types.ts';
