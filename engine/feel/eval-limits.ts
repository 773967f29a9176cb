// The bounds every FEEL evaluation runs under, in time and in the size of
// what it builds, and the error that says which one an evaluation hit. A
// model's expressions (and a DMN's entries) are code a tenant chose: without
// these, one `for` over a range of a hundred million numbers, a nested `for`
// over two long lists or a backtracking regular expression exhausts the heap
// or holds the event loop for minutes, stalling every partition of the
// process. How the numbers were chosen and what they cost: docs/feel-limits.md.
// Request limits (what a variable may hold) are engine/limits.ts's; these are
// limits of evaluation, and the string one is derived from them.
import { LIMITS } from '../limits.ts';

export const FEEL_LIMITS = {
  /**
   * Wall-clock deadline of one evaluation that can loop (for, some/every,
   * filters, function definitions, context entries naming earlier entries,
   * regular expressions and the quadratic builtins; see risk.ts). Expressions
   * that cannot loop run in time linear in their source and their input.
   */
  evaluationMs: 250,
  /**
   * Time all feelin evaluations sharing one scope may take together: one
   * engine command (every condition, mapping and decision it evaluates), or
   * one decision evaluated over REST.
   */
  scopeMs: 2_000,
  /**
   * The most a context may hold (written out, counting only the variables
   * the source can read; shared out among the source's names plus one) for
   * an expression that cannot loop to run without a watchdog:
   * feelin copies the context before it starts, and the top level of a
   * value again for every name that reads it while it parses, and copying
   * 40,000 list items once takes tens of milliseconds.
   */
  unwatchedInputItems: 10_000,
  unwatchedInputChars: 1_000_000,
  /** List items one evaluation may build: range elements enumerated plus the items of lists builtins return. */
  maxItems: 1_000_000,
  /**
   * Characters one evaluation may build in strings builtins return (and the
   * result may hold, written out): four times what all of an instance's
   * variables may hold, room for intermediate strings; a result that size
   * could not be stored anyway.
   */
  maxChars: 4 * LIMITS.maxVariablesBytesPerInstance,
} as const;

export type FeelLimits = typeof FEEL_LIMITS;

export type FeelLimitKind = 'time' | 'scope-time' | 'items' | 'chars';

/** Thrown inside an evaluation when a bound is hit; compile.ts turns it into a FeelResult error. */
export class FeelLimitError extends Error {
  constructor(
    readonly kind: FeelLimitKind,
    message: string,
  ) {
    super(`FEEL limit exceeded: ${message}`);
    this.name = 'FeelLimitError';
  }
}

export function timeLimitError(ms: number): FeelLimitError {
  return new FeelLimitError('time', `the evaluation ran longer than ${ms} ms (the time limit of one evaluation)`);
}

export function scopeTimeLimitError(ms: number): FeelLimitError {
  return new FeelLimitError('scope-time', `the FEEL evaluations of this command or decision took more than ${ms} ms together (the time limit they share)`);
}

export function itemLimitError(max: number, what = 'it would build'): FeelLimitError {
  return new FeelLimitError('items', `${what} more than ${max} list items (the item limit of one evaluation)`);
}

export function charLimitError(max: number, what = 'it would build'): FeelLimitError {
  return new FeelLimitError('chars', `${what} more than ${max} characters of strings (the string limit of one evaluation)`);
}
