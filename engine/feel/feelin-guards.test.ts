// The hooks on feelin's FeelRange.map and FeelFunction.invoke, driven through
// feelin itself with small budgets so each check is seen to fire before the
// builtin builds anything.
import { evaluate } from 'feelin';
import { describe, expect, it } from 'vitest';
import { FeelLimitError } from './eval-limits.ts';
import './feelin-guards.ts';
import { SizeBudget, withSizeBudget } from './size-budget.ts';

const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

function within(
  maxItems: number,
  maxChars: number,
  source: string,
  context: Record<string, unknown> = {},
): { value?: unknown; error?: FeelLimitError; budget: SizeBudget } {
  const budget = new SizeBudget(maxItems, maxChars);
  try {
    return { value: withSizeBudget(budget, () => evaluate(source, context).value), budget };
  } catch (err) {
    if (err instanceof FeelLimitError) return { error: err, budget };
    throw err;
  }
}

describe('ranges', () => {
  it('charge each element enumerated', () => {
    const { value, budget } = within(100, 100, 'for i in 1..10 return i');
    expect(value).toEqual(numbers(10).map((i) => i + 1));
    expect(budget.items).toBe(10);
  });

  it('refuse a range longer than what is left before enumerating any of it', () => {
    const { error, budget } = within(1_000, 100, 'for i in 1..100000 return i');
    expect(error?.kind).toBe('items');
    expect(budget.items).toBe(0);
  });

  it('refuse a range without a finite end', () => {
    expect(within(1_000, 100, 'for i in 1..n return i', { n: Number.MAX_VALUE }).error?.kind).toBe('items');
  });
});

describe('builtins', () => {
  it('concatenate, append, union and insert before are refused when their arguments would not fit', () => {
    const L = numbers(600);
    for (const source of ['concatenate(L, L)', 'append(L, 1, 2)', 'union(L, L)', 'insert before(L, 1, L)']) {
      const { error, budget } = within(1_000, 1_000, source, { L: source.startsWith('append') || source.startsWith('insert') ? numbers(999) : L });
      expect(error?.kind, source).toBe('items');
      expect(budget.items, source).toBe(0);
    }
  });

  it('flatten and string measure their argument written out, shared parts each time', () => {
    const inner = numbers(100);
    expect(within(1_000, 1_000_000, 'flatten([L, L, L, L, L, L, L, L, L, L, L])', { L: inner }).error?.kind).toBe('items');
    expect(within(1_000_000, 1_000, 'string([s, s, s])', { s: 'x'.repeat(400) }).error?.kind).toBe('chars');
  });

  it('string join counts the strings and the delimiters', () => {
    expect(within(1_000, 1_000, 'string join(L, "--")', { L: Array.from({ length: 400 }, () => 'a') }).error?.kind).toBe('chars');
    expect(within(1_000, 1_200, 'string join(L, "--")', { L: Array.from({ length: 400 }, () => 'a') }).value).toHaveLength(400 + 2 * 399);
  });

  it('what a builtin returns is charged, and string arguments must fit what is left', () => {
    const { budget } = within(1_000, 1_000, 'reverse(L)', { L: numbers(300) });
    expect(budget.items).toBe(300);
    expect(within(1_000, 1_000, 'upper case(s + s + s)', { s: 'x'.repeat(400) }).error?.kind).toBe('chars');
  });

  it('named arguments still bind to the guarded builtins', () => {
    expect(within(1_000, 1_000, 'string join(list: ["a", "b"], delimiter: "+")').value).toBe('a+b');
    expect(within(1_000, 1_000, 'matches(input: "abc", pattern: "^a")').value).toBe(true);
  });

  it('outside an evaluation nothing is charged and feelin answers as before', () => {
    expect(evaluate('count(concatenate(L, L))', { L: numbers(600) }).value).toBe(1200);
  });
});
