// Differential tests: every expression and unary test goes through the
// engine/feel API and through feelin directly, and the two must agree
// (values, null semantics, and failures). Rows marked `fast` must also take
// the fast path, so a change that silently falls back to feelin fails here.
import { evaluate as feelinEvaluate, unaryTest as feelinUnaryTest } from 'feelin';
import { describe, expect, it } from 'vitest';
import { compileExpression, compileUnaryTests, evaluateFeel, isFastPath, isFastUnaryTests } from './index.ts';
import type { FeelContext } from './types.ts';

const ctx: FeelContext = {
  amount: 1500,
  status: 'gold',
  tier: 'silver',
  count: 3,
  zero: 0,
  neg: -2.5,
  flag: true,
  off: false,
  nothing: null,
  str5: '5',
  quote: 'a"b',
  empty: '',
  lo: 1,
  hi: 10,
  order: { total: 250, customer: { name: 'Ada', vip: true, address: { city: 'Oslo' } }, lines: [1, 2, 3] },
  list: [1, 2, 3],
  one: [1],
  when: new Date(Date.UTC(2024, 0, 15, 12)),
};

type Row = { source: string; context?: FeelContext; fast?: boolean };
const F = (source: string, context?: FeelContext): Row => ({ source, context, fast: true });
const S = (source: string, context?: FeelContext): Row => ({ source, context, fast: false });

const expressions: Row[] = [
  // literals
  F('1'),
  F('-1'),
  F('1.5'),
  F('-0.25'),
  F('.5'),
  F('007'),
  F('-0'),
  F('12345678901234567890'),
  F('"abc"'),
  F('""'),
  F('"a\\"b"'),
  F('"tab\\there\\nnext"'),
  F('"\\u0041\\u0042"'),
  F('"\\u1F600"'),
  F('"\\x"'),
  F('"back\\\\slash"'),
  F('true'),
  F('false'),
  F('null'),
  // names and paths
  F('amount'),
  F('missing'),
  F('nothing'),
  F('order.total'),
  F('order.customer.name'),
  F('order.customer.address.city'),
  F('order.missing.x'),
  F('missing.x'),
  F('nothing.x'),
  F('status.length'),
  F('amount.x'),
  F('order'),
  F('order.lines'),
  F('order.customer'),
  F('list.x'),
  F('list'),
  F('when'),
  F('constructor'),
  F('toString = null'),
  F('count'),
  F('sum'),
  // comparisons
  F('amount > 1000'),
  F('amount >= 1500'),
  F('amount < 1500'),
  F('amount <= 1500'),
  F('amount = 1500'),
  F('amount != 1500'),
  F('amount = 1500.0'),
  F('amount>1000'),
  F('1000 < amount'),
  F('status = "gold"'),
  F('status != "gold"'),
  F('status < "silver"'),
  F('status > tier'),
  F('status <= tier'),
  F('amount = status'),
  F('amount != status'),
  F('amount < status'),
  F('str5 = 5'),
  F('str5 < 10'),
  F('"abc" <= 5'),
  F('"abc" >= 5'),
  F('"abc" < 5'),
  F('flag < 5'),
  F('flag > 0'),
  F('missing = null'),
  F('missing != null'),
  F('null = null'),
  F('null != null'),
  F('nothing = missing'),
  F('missing > 5'),
  F('5 > missing'),
  F('missing = 5'),
  F('5 = missing'),
  F('missing < missing'),
  F('flag = true'),
  F('flag != false'),
  F('off = false'),
  F('zero = -0'),
  F('neg < 0'),
  F('neg = -2.5'),
  F('neg > -3'),
  F('x < -5', { x: -6 }),
  F('x<-5', { x: -4 }),
  F('order.total >= 250'),
  F('order.customer.vip = true'),
  F('order.customer.name = "Ada"'),
  F('order.customer.name < "Bob"'),
  F('quote = "a\\"b"'),
  F('empty = ""'),
  F('empty < "a"'),
  F('"B" < "a"'),
  F('"10" < "9"'),
  F('10 < 9'),
  F('amount < true'),
  F('amount > flag'),
  F('amount = flag'),
  F('one = 1'),
  F('list = list'),
  F('order = order'),
  F('when = when'),
  F('when > amount'),
  F('x = y', { x: NaN, y: NaN }),
  F('x <= y', { x: NaN, y: 1 }),
  F('x >= y', { x: 'a', y: 'a' }),
  F('count > 2'),
  F('sum = null'),
  F('count = 3'),
  // three-valued logic
  F('flag and off'),
  F('flag and flag'),
  F('flag and missing'),
  F('off and missing'),
  F('missing and off'),
  F('missing and missing'),
  F('flag or missing'),
  F('off or missing'),
  F('missing or flag'),
  F('missing or missing'),
  F('off or off'),
  F('amount and flag'),
  F('status or off'),
  F('amount or flag'),
  F('amount > 1000 and status = "gold"'),
  F('amount > 1000 and status = "silver" or flag'),
  F('amount > 1000 and (status = "silver" or off)'),
  F('amount > 1000 and status = "gold" and order.customer.vip'),
  F('a or b or c', { c: true }),
  F('a and b and c', { a: true, b: true, c: true }),
  F('not(flag)'),
  F('not(off)'),
  F('not(missing)'),
  F('not(amount)'),
  F('not(amount > 2000)'),
  F('not (flag)'),
  F('not(flag and off)'),
  F('not(not(flag))'),
  F('not(list)'),
  F('(amount)'),
  F('((flag))'),
  F('(order)'),
  F('(amount > 1) = true'),
  F('(amount > 1) < 5'),
  F('flag\n  and off'),
  F('amount > 1000\r\n\tand status = "gold"'),
  // names feelin reads with the help of the context: must not be misread
  S('order total > 5', { 'order total': 10 }),
  F('a and b', { 'a and b': 5, a: true, b: true }),
  F('a.b', { 'a.b': 5, a: { b: 6 } }),
  F('a.b and c', { a: { 'b and c': 7 } }),
  F('true', { true: 5 }),
  F('x = true', { x: 1, true: 1 }),
  F('x = 1', { 'x ': 1 }),
  F('x = 1', { ' x': 1 }),
  F('x = 1', { x: 2, ' x': 1 }),
  F('not(x)', { not: 1, x: true }),
  S('order-id = 1', { 'order-id': 1 }),
  S('é = 1', { é: 1 }),
  F('x = 1', { x: 1, 'other key': 2 }),
  F('x', Object.create({ x: 1 }) as FeelContext),
  // functions, arithmetic, lists, ranges, temporals, control flow: feelin's business
  S('string length(status)'),
  S('upper case(status) = "GOLD"'),
  S('count(list)'),
  S('sum(list) > 5'),
  S('contains(status, "ol")'),
  S('abs(neg)'),
  S('amount + 1'),
  S('amount * 2 > 2000'),
  S('-amount'),
  S('amount - 1'),
  S('1 + 2 * 3'),
  S('- 5'),
  S('[1, 2, 3]'),
  S('list[1]'),
  S('list[item > 1]'),
  S('5 in [1..10]'),
  S('amount in [1000..2000]'),
  S('status in ("gold", "silver")'),
  S('amount between 1000 and 2000'),
  S('{a: 1}.a'),
  S('date("2024-01-01")'),
  S('date("2024-01-01") < date("2024-02-01")'),
  S('date("2024-01-01") + duration("P1D")'),
  S('duration("PT1H") > duration("PT30M")'),
  S('@"2024-01-01"'),
  S('when > date("2024-01-01")'),
  S('if flag then 1 else 2'),
  S('for x in list return x * 2'),
  S('some x in list satisfies x > 2'),
  S('x = 1e3', { x: 1000 }),
  S('a b c'),
  S('x = = 1', { x: 1 }),
  S('x < < 5', { x: 1 }),
  S('amount > 1000 // big'),
  S('?'),
];

type TestRow = { source: string; inputs: unknown[]; context?: FeelContext; fast?: boolean };
const U = (source: string, inputs: unknown[], context?: FeelContext): TestRow => ({ source, inputs, context, fast: true });
const V = (source: string, inputs: unknown[], context?: FeelContext): TestRow => ({ source, inputs, context, fast: false });

const scalars = [5, 3, 7, '5', 'gold', true, null, undefined];
const unary: TestRow[] = [
  U('< 5', scalars),
  U('<= 5', scalars),
  U('> 5', scalars),
  U('>= 5', scalars),
  U('= 5', scalars),
  U('!= 5', scalars),
  U('5', scalars),
  U('-5', [-5, 5]),
  U('< -2.5', [-3, -2.5]),
  U('"gold"', scalars),
  U('"gold", "silver"', ['gold', 'silver', 'bronze', null]),
  U('not("gold")', scalars),
  U('not("gold", "silver")', ['gold', 'bronze']),
  U('not(< 5, > 10)', [3, 7, 12]),
  U('< 5, > 10', [3, 7, 12]),
  U('[1..10]', [1, 10, 0, 11, 5.5, '5', true, null]),
  U('(1..10)', [1, 10, 2]),
  U(']1..10[', [1, 10, 2]),
  U('[1..10)', [1, 10]),
  U('(1..10]', [1, 10]),
  U('[10..1]', [1, 10, 5, 11]),
  U('(10..1]', [1, 10]),
  U('["a".."m"]', ['k', 'z', 'a', 'm', 5]),
  U('[1..-5]', [-5, 0, 1, 2]),
  U('-', [...scalars, [1], { a: 1 }]),
  U('true', [true, false, 'true', null]),
  U('false', [false, true, null]),
  U('null', [null, undefined, 0, '']),
  U('""', ['', null]),
  U('< x', [1, 2, 3], { x: 2 }),
  U('[lo..hi]', [0, 1, 10, 11], { lo: 1, hi: 10 }),
  U('[lo..missing]', [1, 5]),
  U('< missing', [1]),
  U('flag', [1, 'x', null], { flag: true }),
  U('off', [false], { off: false }),
  U('tier', ['silver', 'gold'], { tier: 'silver' }),
  U('< order.total', [100, 300], { order: { total: 250 } }),
  U('< true', [1]),
  U('[1.."a"]', [1]),
  U('[flag..5]', [1], { flag: true }),
  U('1, < true', [1, 2]),
  U('< 5', [[4], new Date(0), { a: 1 }]),
  U('x', [1, 2], { x: [1, 2] }),
  U('count', [1]),
  U('x', [1], { 'x ': 1 }),
  U('a', [5], { 'a and b': 5, a: 5 }),
  V('a and b', [5], { 'a and b': 5 }),
  V('? > 5', [3, 7]),
  V('x + 1', [3], { x: 2 }),
  V('[1, 2, 3]', [2, 4]),
  V('date("2024-01-01")', ['2024-01-01']),
  V('count(?) > 1', [[1, 2]]),
  V('> date("2024-01-01")', [new Date(Date.UTC(2024, 5, 1))]),
];

function viaFeelin(run: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: run() };
  } catch {
    return { ok: false };
  }
}

describe('FEEL expressions: the API agrees with feelin', () => {
  it('has a table of at least 100 expressions', () => {
    expect(expressions.length).toBeGreaterThanOrEqual(100);
  });

  it.each(expressions.map((row) => [JSON.stringify(row.source), row] as const))('%s', (_name, row) => {
    const context = row.context ?? ctx;
    const expected = viaFeelin(() => feelinEvaluate(row.source, context).value);
    for (let round = 0; round < 2; round++) {
      const actual = evaluateFeel(row.source, context);
      if (expected.ok) {
        expect(actual).toEqual({ ok: true, value: expected.value });
      } else {
        expect(actual.ok).toBe(false);
        if (!actual.ok) expect(actual.error).toContain(`'${row.source}'`);
      }
    }
    if (row.fast !== undefined) expect(isFastPath(row.source)).toBe(row.fast);
  });
});

describe('DMN unary tests: the API agrees with feelin', () => {
  it.each(unary.map((row) => [JSON.stringify(row.source), row] as const))('%s', (_name, row) => {
    const context = row.context ?? {};
    const compiled = compileUnaryTests(row.source);
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    for (const input of row.inputs) {
      const expected = viaFeelin(() => feelinUnaryTest(row.source, { ...context, '?': input }).value === true);
      const actual = compiled.value.test(input, context);
      if (expected.ok) expect(actual, `input ${String(input)}`).toEqual({ ok: true, value: expected.value });
      else expect(actual.ok, `input ${String(input)}`).toBe(false);
    }
    if (row.fast !== undefined) expect(isFastUnaryTests(row.source)).toBe(row.fast);
  });
});

describe('syntax errors', () => {
  // A string literal may span lines (camunda-extensions.test.ts); one that never ends may not.
  it.each(['a +', '"abc', '(a', '', 'amount >', 'amount > 1000 and', 'not(', '"line\nbreak'])('expression %j', (source) => {
    expect(() => feelinEvaluate(source, {})).toThrow();
    const compiled = compileExpression(source);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.error).toMatch(new RegExp(`^cannot parse FEEL expression '${source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}': `));
    const evaluated = evaluateFeel(source, {});
    expect(evaluated.ok).toBe(false);
  });

  it.each(['< ', '[1..', 'not(', '"abc', '> 5,'])('unary tests %j', (source) => {
    expect(() => feelinUnaryTest(source, { '?': 1 })).toThrow();
    const compiled = compileUnaryTests(source);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.error).toContain(`cannot parse unary tests '${source}'`);
  });
});
