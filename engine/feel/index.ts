// FEEL for the engine: the one door through which gateway conditions, io
// mappings, timer and job-type expressions and DMN entries are evaluated.
// Compiled forms are cached by source text (bounded), simple shapes run as
// plain closures (fast-path.ts) and everything else through feelin, bounded
// in time and size (eval-limits.ts, bounded.ts). Never throws: errors, limits
// hit included, come back as FeelResult.
import { BoundedCache } from './bounded-cache.ts';
import { compileExpressionSource, compileUnaryTestsSource, type Compilation, type CompiledExpression, type CompiledTests } from './compile.ts';
import type { FeelContext, FeelResult } from './types.ts';

export type { CompiledFeel, CompiledUnaryTests, FeelContext, FeelResult } from './types.ts';
export type { CompiledExpression, CompiledTests } from './compile.ts';
export { ambientFeelScope, inFeelScope } from './deadline.ts';
export { FEEL_LIMITS } from './eval-limits.ts';

/** How many distinct sources each cache (expressions, unary tests) keeps. */
export const FEEL_CACHE_CAPACITY = 10_000;

const expressions = new BoundedCache<Compilation<CompiledExpression>>(FEEL_CACHE_CAPACITY);
const unaryTests = new BoundedCache<Compilation<CompiledTests>>(FEEL_CACHE_CAPACITY);

/** Returns a parse error for `source`, or undefined when it parses as a FEEL expression. */
export function feelSyntaxError(source: string): string | undefined {
  return expressions.getOrCreate(source, compileExpressionSource).syntaxError;
}

/** Returns a parse error for `source` as DMN unary tests, or undefined when it parses. */
export function unaryTestsSyntaxError(source: string): string | undefined {
  return unaryTests.getOrCreate(source, compileUnaryTestsSource).syntaxError;
}

/** Compiles (cached by source) a FEEL expression; the same source yields the same object. */
export function compileExpression(source: string): FeelResult<CompiledExpression> {
  return expressions.getOrCreate(source, compileExpressionSource).result;
}

/** Compiles (cached by source) DMN unary tests; the same source yields the same object. */
export function compileUnaryTests(source: string): FeelResult<CompiledTests> {
  return unaryTests.getOrCreate(source, compileUnaryTestsSource).result;
}

/** Compiles (cached) and evaluates `source` against `context`; `scope` as for CompiledFeel.evaluate. */
export function evaluateFeel(source: string, context: FeelContext, scope?: object): FeelResult {
  const compiled = compileExpression(source);
  return compiled.ok ? compiled.value.evaluate(context, scope) : compiled;
}

/** True when `source` compiles to a closure that evaluates without feelin (for ordinary contexts). */
export function isFastPath(source: string): boolean {
  const compiled = compileExpression(source);
  return compiled.ok && compiled.value.fast;
}

/** True when unary tests `source` compile to a closure that tests without feelin. */
export function isFastUnaryTests(source: string): boolean {
  const compiled = compileUnaryTests(source);
  return compiled.ok && compiled.value.fast;
}

/** Sizes of the compile caches (for metrics and tests). */
export function feelCacheSize(): { expressions: number; unaryTests: number } {
  return { expressions: expressions.size, unaryTests: unaryTests.size };
}

/** Empties the compile caches (tests, or after bulk undeploys). */
export function clearFeelCache(): void {
  expressions.clear();
  unaryTests.clear();
}
