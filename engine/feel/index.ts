// FEEL for the engine: the one door through which gateway conditions, io
// mappings, timer and job-type expressions and DMN entries are evaluated.
// Backed by feelin; never throws (errors come back as FeelResult).
import { evaluate as feelinEvaluate, unaryTest as feelinUnaryTest, parseExpression, parseUnaryTests } from 'feelin';
import type { CompiledFeel, CompiledUnaryTests, FeelContext, FeelResult } from './types.ts';

export type { CompiledFeel, CompiledUnaryTests, FeelContext, FeelResult } from './types.ts';

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Returns a parse error for `source`, or undefined when it parses as a FEEL expression. */
export function feelSyntaxError(source: string): string | undefined {
  try {
    parseExpression(source);
    return undefined;
  } catch (err) {
    return message(err);
  }
}

/** Returns a parse error for `source` as DMN unary tests, or undefined when it parses. */
export function unaryTestsSyntaxError(source: string): string | undefined {
  try {
    parseUnaryTests(source);
    return undefined;
  } catch (err) {
    return message(err);
  }
}

export function compileExpression(source: string): FeelResult<CompiledFeel> {
  const error = feelSyntaxError(source);
  if (error !== undefined) return { ok: false, error: `cannot parse FEEL expression '${source}': ${error}` };
  return {
    ok: true,
    value: {
      source,
      evaluate(context: FeelContext): FeelResult {
        try {
          return { ok: true, value: feelinEvaluate(source, context).value };
        } catch (err) {
          return { ok: false, error: `failed to evaluate '${source}': ${message(err)}` };
        }
      },
    },
  };
}

export function compileUnaryTests(source: string): FeelResult<CompiledUnaryTests> {
  const error = unaryTestsSyntaxError(source);
  if (error !== undefined) return { ok: false, error: `cannot parse unary tests '${source}': ${error}` };
  return {
    ok: true,
    value: {
      source,
      test(input: unknown, context: FeelContext): FeelResult<boolean> {
        try {
          return { ok: true, value: feelinUnaryTest(source, { ...context, '?': input }).value === true };
        } catch (err) {
          return { ok: false, error: `failed to evaluate '${source}': ${message(err)}` };
        }
      },
    },
  };
}

/** Compiles (cached) and evaluates `source` against `context`. */
export function evaluateFeel(source: string, context: FeelContext): FeelResult {
  const compiled = compileExpression(source);
  return compiled.ok ? compiled.value.evaluate(context) : compiled;
}
