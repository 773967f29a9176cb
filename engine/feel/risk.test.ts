import { parseExpression, parseUnaryTests } from 'feelin';
import { describe, expect, it } from 'vitest';
import { riskOf } from './risk.ts';

const risk = (source: string) => riskOf(parseExpression(source, {}, undefined), source);

describe('which sources can run long', () => {
  it.each([
    'for i in 1..10 return i',
    'some x in L satisfies x > 1',
    'every x in L satisfies x > 1',
    'L[item > 1]',
    'L[x]',
    'function(a) a',
    '{a: [x, x], b: [a, a]}.b',
    '{a: 1, b: {c: a}}',
    '{"a": 1, b: a + 1}',
    'matches(s, "a+")',
    'replace(s, "a", "b")',
    'split(s, ",")',
    'distinct values(L)',
    'union(L, M)',
    'sort(L, function(a, b) a < b)',
    'list replace(L, 1, 2)',
    'median(L)',
    'x.f(1)',
    'unknown function(1)',
  ])('%s: yes', (source) => {
    expect(risk(source).canRunLong).toBe(true);
  });

  it.each([
    'amount > 100 and status = "gold"',
    'if x then "a" else "b"',
    '{id: orderId, total: amount * 2}',
    '{"a b": 1, c: x}',
    '{item: item, is_legal: is_legal}',
    'count(items) > 0 and sum(items.price) < 100',
    'string join(names, ", ")',
    'upper case(substring(name, 1, 3))',
    'items[1]',
    'items[-1].id',
    'date and time(s) + duration("P1D")',
    'is defined(x) and x > 1',
    'x in [1..5]',
    'count(L) between 1 and 3',
  ])('%s: no', (source) => {
    expect(risk(source).canRunLong).toBe(false);
  });

  it('counts the names a source reads', () => {
    expect(risk('a + b.c + a').references).toBe(4);
    expect(risk('1 + 2').references).toBe(0);
  });

  it('reads unary tests too', () => {
    const tests = (source: string) => riskOf(parseUnaryTests(source, {}, undefined), source).canRunLong;
    expect(tests('< 10, [1..5], "a"')).toBe(false);
    expect(tests('count(for i in 1..3 return i) > 0')).toBe(true);
  });
});
