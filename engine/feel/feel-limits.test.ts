// FEEL evaluation under FEEL_LIMITS: each hostile expression of issue 23
// ends as an error result naming the limit it hit (never a throw, a hang or
// a heap exhaustion), and ordinary expressions are untouched.
import { describe, expect, it } from 'vitest';
import { needsWatchdog } from './bounded.ts';
import { timeScopeOf } from './deadline.ts';
import { FEEL_LIMITS } from './eval-limits.ts';
import { compileExpression, compileUnaryTests, evaluateFeel, isFastPath } from './index.ts';
import { narrowContext, sourceWords } from './narrow-context.ts';

const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

function failure(source: string, context: Record<string, unknown> = {}, scope?: object): string {
  const result = evaluateFeel(source, context, scope);
  if (result.ok) throw new Error(`'${source}' gave ${JSON.stringify(result.value)?.slice(0, 200)}, expected a limit`);
  expect(result.error).toContain(source.slice(0, 40));
  return result.error;
}

describe('the hostile expressions of issue 23', () => {
  it('a for over a range of a hundred million numbers is refused before it builds anything', () => {
    expect(failure('count(for i in 1..100000000 return i) > 0')).toMatch(/item limit of one evaluation/);
  });

  it('the same in DMN unary tests', () => {
    const compiled = compileUnaryTests('count(for i in 1..100000000 return i) > 0');
    if (!compiled.ok) throw new Error(compiled.error);
    const result = compiled.value.test(1, {});
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/item limit/);
  });

  it('a double for of 10,000 × 10,000 stops at the item limit or the deadline', () => {
    expect(failure('count(for i in 1..10000, j in 1..10000 return i) > 0')).toMatch(/FEEL limit exceeded: .*(item limit|time limit)/);
  });

  it('a for nested in a for, 10,000 × 10,000, stops the same way', () => {
    expect(failure('for i in 1..10000 return for j in 1..10000 return i')).toMatch(/FEEL limit exceeded: .*(item limit|time limit)/);
  });

  it('a for over two lists from the variables (no range to count) stops at the deadline', () => {
    expect(failure('count(for a in L, b in L return a) > 0', { L: numbers(5_000) })).toMatch(
      new RegExp(`ran longer than ${FEEL_LIMITS.evaluationMs} ms \\(the time limit of one evaluation\\)`),
    );
  });

  it('an io mapping building ten million items is refused', () => {
    expect(failure('for i in 1..10000000 return {id: i}')).toMatch(/item limit/);
  });

  it('exponential recursion through a function defined in the expression stops at the deadline', () => {
    expect(failure('{f: function(n) if n = 0 then 0 else f(n - 1) + f(n - 1)}.f(40)')).toMatch(/time limit of one evaluation/);
  });

  it('unbounded recursion is an error, not a crash', () => {
    expect(failure('{f: function(n) f(n + 1)}.f(0)')).toMatch(/call stack/);
  });
});

describe('what an evaluation builds', () => {
  it('a result that doubles through context entries is refused before anything serializes it', () => {
    const entries = Array.from({ length: 24 }, (_, i) => `e${i + 1}: [e${i}, e${i}]`).join(', ');
    expect(failure(`{e0: x, ${entries}}.e24`, { x: 'abc' })).toMatch(/its result would hold more than \d+ list items/);
  });

  it('string join over a long built list is refused before joining', () => {
    expect(failure('string join(for i in 1..20 return s)', { s: 'x'.repeat(900_000) })).toMatch(/string limit of one evaluation/);
  });

  it('a rope built with + is refused before a builtin reads it', () => {
    const rope = Array.from({ length: 20 }, () => 's').join(' + ');
    expect(failure(`upper case(${rope})`, { s: 'x'.repeat(1_000_000) })).toMatch(/string limit/);
  });

  it('flatten of a list repeating a list is refused before flattening', () => {
    expect(failure('flatten(for i in 1..2000 return L)', { L: numbers(1_000) })).toMatch(/item limit/);
  });

  it('many references to a large variable run under the deadline (feelin copies the value per reference while parsing)', () => {
    const lists = Array.from({ length: 30 }, () => 'L').join(', ');
    expect(failure(`count(concatenate(${lists}))`, { L: numbers(40_000) })).toMatch(/FEEL limit exceeded: .*(item limit|time limit)/);
  });

  it('a limit hit leaves nothing behind: the next evaluation has a fresh budget', () => {
    failure('count(for i in 1..100000000 return i) > 0');
    expect(evaluateFeel('count(for i in 1..1000 return i)', {})).toEqual({ ok: true, value: 1000 });
    expect(evaluateFeel('sum(for i in 1..2000 return 1)', {})).toEqual({ ok: true, value: 2_000 });
  });

  it('number ranges enumerate as before, and end even when no step lands on the end', () => {
    expect(evaluateFeel('for i in 1..5 return i * 2', {})).toEqual({ ok: true, value: [2, 4, 6, 8, 10] });
    expect(evaluateFeel('for i in 3..1 return i', {})).toEqual({ ok: true, value: [3, 2, 1] });
    expect(evaluateFeel('for i in 1..1 return i', {})).toEqual({ ok: true, value: [1] });
    expect(evaluateFeel('for i in 1.5..3 return i', {})).toEqual({ ok: true, value: [1.5, 2.5] });
    expect(evaluateFeel('for c in "a".."e" return c', {})).toEqual({ ok: true, value: ['a', 'b', 'c', 'd', 'e'] });
  });
});

describe('which evaluations run under the watchdog', () => {
  const plan = (canRunLong: boolean, references: number) => ({ source: 'x', canRunLong, references });

  it('every one that can loop, whatever its input', () => {
    expect(needsWatchdog(plan(true, 0), {})).toBe(true);
  });

  it('one that cannot loop only when its input, shared out among its names, is large', () => {
    expect(needsWatchdog(plan(false, 1), { L: numbers(100), s: 'abc' })).toBe(false);
    expect(needsWatchdog(plan(false, 1), { L: numbers(4_000) })).toBe(false);
    expect(needsWatchdog(plan(false, 1), { L: numbers(6_000) })).toBe(true);
    expect(needsWatchdog(plan(false, 9), { L: numbers(1_500) })).toBe(true);
    expect(needsWatchdog(plan(false, 1), { s: 'x'.repeat(400_000) })).toBe(false);
    expect(needsWatchdog(plan(false, 1), { s: 'x'.repeat(600_000) })).toBe(true);
    expect(needsWatchdog(plan(false, 1), { o: { deep: [{ list: numbers(6_000) }] } })).toBe(true);
  });
});

describe('the time a scope shares', () => {
  it('an evaluation in a scope whose time is spent is refused, naming the shared limit; other scopes are unaffected', () => {
    const command = {};
    const scope = timeScopeOf(command);
    scope.spentMs = scope.limitMs - 1;
    expect(failure('count(for a in L, b in L return a) > 0', { L: numbers(5_000) }, command)).toMatch(/time limit they share/);
    expect(scope.remainingMs).toBeLessThanOrEqual(0);
    expect(failure('string length(s) > 1', { s: 'abc' }, command)).toMatch(/more than 2000 ms together/);
    expect(evaluateFeel('string length(s) > 1', { s: 'abc' }, {})).toEqual({ ok: true, value: true });
  });

  it('the fast path is not timed at all: it answers in a spent scope', () => {
    const command = {};
    timeScopeOf(command).spentMs = Number.POSITIVE_INFINITY;
    expect(isFastPath('amount > 100')).toBe(true);
    expect(evaluateFeel('amount > 100', { amount: 500 }, command)).toEqual({ ok: true, value: true });
  });

  it('time spent is charged to the scope', () => {
    const command = {};
    evaluateFeel('count(for i in 1..1000 return i)', {}, command);
    expect(timeScopeOf(command).spentMs).toBeGreaterThan(0);
  });
});

describe('feelin reads only the variables a source names', () => {
  it('drops plain-word variables the source never mentions and keeps every other name', () => {
    const context = { amount: 1, big: numbers(10), 'order total': 3, 'a-b': 4, __proto__x: 5 };
    expect(narrowContext(context, sourceWords('amount + `order total`'))).toEqual({ amount: 1, 'order total': 3, 'a-b': 4 });
  });

  it('returns the same object when nothing is dropped, and keeps an own __proto__ variable a key', () => {
    const context = { amount: 1 };
    expect(narrowContext(context, sourceWords('amount'))).toBe(context);
    const tricky = JSON.parse('{"__proto__": {"polluted": true}, "x": 1, "y": 2}') as Record<string, unknown>;
    const narrowed = narrowContext(tricky, sourceWords('__proto__.polluted and x'));
    expect(Object.getPrototypeOf(narrowed)).toBe(Object.prototype);
    expect(Object.keys(narrowed)).toEqual(['__proto__', 'x']);
  });

  it('a large variable the expression does not read costs it nothing it can notice', () => {
    const context = { s: 'abc', huge: numbers(200_000) };
    expect(evaluateFeel('for c in [s] return upper case(c)', context)).toEqual({ ok: true, value: ['ABC'] });
  });

  it('a throwing getter among the variables is an error result, not a throw', () => {
    const context = { y: 1 };
    Object.defineProperty(context, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(evaluateFeel('string length(x) > 1', context)).toEqual({ ok: false, error: "failed to evaluate 'string length(x) > 1': boom" });
    expect(evaluateFeel('x > 1', context)).toMatchObject({ ok: false });
  });

  it('a variable shadows the builtin of its name, as in feelin', () => {
    expect(evaluateFeel('count + 1', { count: 2 })).toEqual({ ok: true, value: 3 });
    const compiled = compileExpression('is defined(x) and x > 1');
    expect(compiled.ok && compiled.value.evaluate({ x: 2, unrelated: 1 })).toEqual({ ok: true, value: true });
  });
});
