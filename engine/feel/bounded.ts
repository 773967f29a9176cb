// Running one feelin evaluation under FEEL_LIMITS and turning whatever ends
// it into a FeelResult: a fresh SizeBudget for what it builds (charged by
// feelin-guards.ts), a watchdog deadline when the source can run long
// (risk.ts) or reads a large input, the time its scope has left, and a
// check that the result, written out, fits the same budget (a value sharing
// parts, such as a list holding one long list many times, must not reach
// the code that serializes variables). The fast path never comes here.
import './feelin-guards.ts';
import { DeadlineExceeded, runWithin, TimeScope, timeScopeOf } from './deadline.ts';
import { charLimitError, FEEL_LIMITS, itemLimitError, scopeTimeLimitError, timeLimitError } from './eval-limits.ts';
import { forgetPatterns } from './regex.ts';
import type { Risk } from './risk.ts';
import { exceededBy, SizeBudget, withSizeBudget } from './size-budget.ts';
import type { FeelResult } from './types.ts';

/** How one source is run: whether it needs a deadline whatever its input (risk.ts). */
export interface RunPlan extends Risk {
  readonly source: string;
}

function failure(source: string, err: unknown): { ok: false; error: string } {
  const message = err instanceof Error ? err.message : String(err);
  return { ok: false, error: `failed to evaluate '${source}': ${message}` };
}

function checkResult(value: unknown, budget: SizeBudget): void {
  const exceeded = exceededBy(value, budget.maxItems, budget.maxChars);
  if (exceeded === 'items') throw itemLimitError(budget.maxItems, 'its result would hold');
  if (exceeded === 'chars') throw charLimitError(budget.maxChars, 'its result would hold');
}

/**
 * Whether `plan` on `input` needs the watchdog: a source that can loop, or
 * an input feelin takes long to copy, once before evaluating and once more
 * (the top level of it) per name while parsing.
 */
export function needsWatchdog(plan: RunPlan, input: object): boolean {
  if (plan.canRunLong) return true;
  // Shared out among the names: each may copy (or, in a warning, print) what it reads.
  const share = plan.references + 1;
  return exceededBy(input, Math.floor(FEEL_LIMITS.unwatchedInputItems / share), Math.floor(FEEL_LIMITS.unwatchedInputChars / share)) !== undefined;
}

/**
 * Runs `run` (one feelin call on the context `makeInput` gives) for `plan`.
 * `scopeKey` is the object whose TimeScope this evaluation draws on; without
 * one it has a scope of its own. Building the input happens inside, so a
 * throwing getter in the caller's variables is an error result too.
 */
export function runBounded<C extends object, T>(plan: RunPlan, scopeKey: object | undefined, makeInput: () => C, run: (input: C) => T): FeelResult<T> {
  const scope = scopeKey === undefined ? new TimeScope() : timeScopeOf(scopeKey);
  if (scope.remainingMs <= 0) return failure(plan.source, scopeTimeLimitError(scope.limitMs));
  const budget = new SizeBudget();
  const deadline = Math.min(FEEL_LIMITS.evaluationMs, scope.remainingMs);
  const started = performance.now();
  let scopeSpent = false;
  try {
    const input = makeInput();
    const watch = needsWatchdog(plan, input);
    const value = withSizeBudget(budget, () => (watch ? runWithin(deadline, () => run(input)) : run(input)));
    checkResult(value, budget);
    return { ok: true, value };
  } catch (err) {
    if (err instanceof DeadlineExceeded) {
      forgetPatterns();
      scopeSpent = deadline < FEEL_LIMITS.evaluationMs;
      return failure(plan.source, scopeSpent ? scopeTimeLimitError(scope.limitMs) : timeLimitError(FEEL_LIMITS.evaluationMs));
    }
    return failure(plan.source, err);
  } finally {
    scope.spentMs += performance.now() - started;
    // V8's watchdog and performance.now() are different clocks: the deadline
    // can fire a fraction of a millisecond before the elapsed time adds up to
    // it. A scope whose deadline fired is spent, whatever the clock says.
    if (scopeSpent) scope.spentMs = Math.max(scope.spentMs, scope.limitMs);
  }
}
