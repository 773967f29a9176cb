// The fast path itself: that simple shapes really run without feelin, that
// unusual values and contexts hand over to feelin, that compiled forms are
// cached, and (by seeded random generation) that the fast closures agree
// with feelin over many combinations of shapes and values.
import * as feelin from 'feelin';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BoundedCache } from './bounded-cache.ts';
import { parseFastExpression, parseFastUnaryTests } from './fast-parser.ts';
import { tokenize } from './fast-tokenizer.ts';
import {
  clearFeelCache,
  compileExpression,
  compileUnaryTests,
  evaluateFeel,
  feelCacheSize,
  feelSyntaxError,
  isFastPath,
  isFastUnaryTests,
  unaryTestsSyntaxError,
} from './index.ts';
import type { FeelContext } from './types.ts';

vi.mock('feelin', async (importOriginal) => {
  const original = await importOriginal<typeof import('feelin')>();
  return { ...original, evaluate: vi.fn(original.evaluate), unaryTest: vi.fn(original.unaryTest) };
});

const evaluateSpy = vi.mocked(feelin.evaluate);
const unaryTestSpy = vi.mocked(feelin.unaryTest);

/** Evaluates through the API after compiling, reporting whether feelin was consulted. */
function run(source: string, context: FeelContext): { value: unknown; usedFeelin: boolean } {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(compiled.error);
  evaluateSpy.mockClear();
  const result = compiled.value.evaluate(context);
  if (!result.ok) throw new Error(result.error);
  return { value: result.value, usedFeelin: evaluateSpy.mock.calls.length > 0 };
}

function runTests(source: string, input: unknown, context: FeelContext): { value: boolean; usedFeelin: boolean } {
  const compiled = compileUnaryTests(source);
  if (!compiled.ok) throw new Error(compiled.error);
  unaryTestSpy.mockClear();
  const result = compiled.value.test(input, context);
  if (!result.ok) throw new Error(result.error);
  return { value: result.value, usedFeelin: unaryTestSpy.mock.calls.length > 0 };
}

const variables: FeelContext = { amount: 1500, status: 'gold', flag: true, order: { total: 250, customer: { vip: true } }, lo: 1, hi: 10 };

describe('fast path is taken', () => {
  it.each([
    'amount > 1000 and status = "gold"',
    'amount',
    'order.customer.vip',
    'order.total >= 250 or flag',
    'not(flag) or missing = null',
    '(amount < 0 or amount > 1000) and not(status != "gold")',
    '"literal"',
    '-12.5',
    'null',
    'order',
  ])('%s evaluates without feelin', (source) => {
    expect(isFastPath(source)).toBe(true);
    expect(run(source, variables).usedFeelin).toBe(false);
  });

  it.each([
    ['< 5', 3],
    ['"gold", "silver"', 'gold'],
    ['[1..10]', 5],
    ['[lo..hi]', 5],
    ['-', 'anything'],
    ['not(< 5, > 10)', 7],
    ['>= order.total', 300],
    ['true', true],
    ['null', null],
  ] as const)('unary tests %s run without feelin', (source, input) => {
    expect(isFastUnaryTests(source)).toBe(true);
    expect(runTests(source, input, variables).usedFeelin).toBe(false);
  });
});

describe('fast path hands over to feelin', () => {
  it.each([
    ['a date value is compared', 'x > y', { x: new Date(0), y: 1 }],
    ['a list is compared (feelin unwraps one-item lists)', 'x = 1', { x: [1] }],
    ['a path walks a list (feelin projects over it)', 'x.y', { x: [{ y: 1 }] }],
    ['a boolean bound makes feelin fail', 'x < true', { x: 1 }],
    ['a builtin name is missing from the context', 'count = null', {}],
    ['a key could join tokens into one name', 'a and b', { 'a and b': 5, a: true, b: true }],
    ['a nested key could join tokens into one name', 'a.b and c', { a: { 'b and c': 7 } }],
    ['a key is a keyword', 'x = true', { x: 1, true: 1 }],
    ['a key needs normalising', 'x = 1', { 'x ': 1 }],
    ['a result holds a date', 'x', { x: { at: new Date(0) } }],
    ['the context is not a plain object', 'x', Object.assign(Object.create(null) as FeelContext, { x: 1 })],
  ] as const)('when %s', (_why, source, context) => {
    expect(isFastPath(source)).toBe(true);
    const { value, usedFeelin } = (() => {
      try {
        return run(source, context);
      } catch {
        return { value: 'error', usedFeelin: evaluateSpy.mock.calls.length > 0 };
      }
    })();
    expect(usedFeelin).toBe(true);
    let expected: unknown;
    try {
      expected = feelin.evaluate(source, context).value;
    } catch {
      expected = 'error';
    }
    expect(value).toEqual(expected);
  });

  it('keeps ordinary keys that merely start like a name on the fast path', () => {
    expect(run('a = 1', { a: 1, ab: 2, a_b: 3, b: 4 }).usedFeelin).toBe(false);
  });

  it('hands unary tests with a date input to feelin', () => {
    expect(runTests('< 5', new Date(0), {}).usedFeelin).toBe(true);
  });

  it('returns copies of objects, as feelin does', () => {
    const order = { lines: [{ sku: 'a' }] };
    const { value } = run('order', { order });
    expect(value).toEqual(order);
    expect(value).not.toBe(order);
  });
});

describe('compile cache', () => {
  beforeEach(() => clearFeelCache());

  it('returns the same compiled object for the same source', () => {
    const first = compileExpression('amount > 1000');
    const second = compileExpression('amount > 1000');
    expect(first.ok && second.ok).toBe(true);
    expect(second).toBe(first);
    if (first.ok && second.ok) expect(second.value).toBe(first.value);
    expect(compileUnaryTests('< 5')).toBe(compileUnaryTests('< 5'));
  });

  it('caches failures too, and keeps expressions and unary tests apart', () => {
    expect(compileExpression('a +')).toBe(compileExpression('a +'));
    evaluateFeel('x > 1', { x: 2 });
    evaluateFeel('x > 1', { x: 3 });
    compileUnaryTests('x > 1');
    expect(feelCacheSize()).toEqual({ expressions: 2, unaryTests: 1 });
  });

  it('reports syntax errors from the cached parse', () => {
    expect(feelSyntaxError('amount > 1000')).toBeUndefined();
    expect(feelSyntaxError('amount >')).toMatch(/Incomplete/);
    expect(unaryTestsSyntaxError('[1..10]')).toBeUndefined();
    expect(unaryTestsSyntaxError('[1..')).toBeDefined();
  });
});

describe('BoundedCache', () => {
  it('evicts the oldest entries beyond its capacity', () => {
    const cache = new BoundedCache<number>(3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.getOrCreate(key, () => key.charCodeAt(0));
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('e')).toBe(101);
  });

  it('does not recompute a hit', () => {
    const cache = new BoundedCache<object>(2);
    const create = vi.fn(() => ({}));
    const first = cache.getOrCreate('k', create);
    expect(cache.getOrCreate('k', create)).toBe(first);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
  });
});

describe('fast tokenizer and parser', () => {
  it.each(['a // comment', 'é = 1', 'a ? b', "a'b = 1", '1e3', '1.', 'x = 1.2.3', '"open', 'if a then b else c', 'date = 1', 'a\u00a0= 1'])(
    'leaves %j to feelin',
    (source) => {
      expect(tokenize(source) === undefined || parseFastExpression(source) === undefined).toBe(true);
    },
  );

  it('binds comparison tighter than and, and tighter than or', () => {
    expect(parseFastExpression('a = 1 or b = 2 and c')).toEqual({
      kind: 'or',
      left: { kind: 'compare', op: '=', left: { kind: 'path', names: ['a'] }, right: { kind: 'literal', token: 'number', text: '1', value: 1 } },
      right: {
        kind: 'and',
        left: { kind: 'compare', op: '=', left: { kind: 'path', names: ['b'] }, right: { kind: 'literal', token: 'number', text: '2', value: 2 } },
        right: { kind: 'path', names: ['c'] },
      },
    });
  });

  it('rejects chained comparisons and dangling operators', () => {
    expect(parseFastExpression('a = b = c')).toBeUndefined();
    expect(parseFastExpression('a and')).toBeUndefined();
    expect(parseFastUnaryTests('< 5,')).toBeUndefined();
    expect(parseFastUnaryTests('- , 1')).toBeUndefined();
  });
});

// seeded generation: the same cases on every run
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('random agreement with feelin', () => {
  const rnd = random(20240615);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const literals = ['1', '0', '-1', '2.5', '-0.5', '.5', '"a"', '"b"', '""', '"a\\"b"', 'true', 'false', 'null'];
  const paths = ['a', 'b', 's', 'n', 'o.x', 'o.y.z', 'missing', 'count', 'o.missing', 'a.x'];
  const values: unknown[] = [1, 0, -1, 2.5, 'a', 'b', '', true, false, null, undefined, [1], [], { x: 1 }, 'A'];
  const ops = ['=', '!=', '<', '<=', '>', '>='];

  const operand = (): string => (rnd() < 0.5 ? pick(literals) : pick(paths));
  const expression = (depth: number): string => {
    const r = rnd();
    if (depth <= 0 || r < 0.25) return rnd() < 0.5 ? operand() : `${operand()} ${pick(ops)} ${operand()}`;
    if (r < 0.45) return `${expression(depth - 1)} and ${expression(depth - 1)}`;
    if (r < 0.65) return `${expression(depth - 1)} or ${expression(depth - 1)}`;
    if (r < 0.8) return `not(${expression(depth - 1)})`;
    return `(${expression(depth - 1)})`;
  };
  const context = (): FeelContext => {
    const ctx: FeelContext = { o: rnd() < 0.8 ? { x: pick(values), y: { z: pick(values) } } : pick(values) };
    for (const name of ['a', 'b', 's', 'n']) if (rnd() < 0.85) ctx[name] = pick(values);
    if (rnd() < 0.3) ctx.count = pick(values);
    return ctx;
  };
  const expected = (run: () => unknown): unknown => {
    try {
      return { ok: true, value: run() };
    } catch {
      return 'error';
    }
  };

  it('agrees on 3000 generated expressions', () => {
    let fast = 0;
    for (let i = 0; i < 3000; i++) {
      const source = expression(3);
      const ctx = context();
      const want = expected(() => feelin.evaluate(source, ctx).value);
      const got = evaluateFeel(source, ctx);
      if (isFastPath(source)) fast++;
      expect(got.ok ? got : 'error', `${source} with ${JSON.stringify(ctx)}`).toEqual(want);
    }
    expect(fast).toBeGreaterThan(2500);
  });

  it('agrees on 3000 generated unary tests', () => {
    const endpoint = (): string => (rnd() < 0.7 ? pick(literals.filter((l) => l !== 'true' && l !== 'false')) : pick(paths));
    const test = (): string => {
      const r = rnd();
      if (r < 0.35) return `${pick(ops)} ${endpoint()}`;
      if (r < 0.6) return `${pick(['[', '(', ']'])}${endpoint()}..${endpoint()}${pick([']', ')', '['])}`;
      return operand();
    };
    let fast = 0;
    for (let i = 0; i < 3000; i++) {
      const list = Array.from({ length: 1 + Math.floor(rnd() * 3) }, test).join(', ');
      const source = rnd() < 0.2 ? `not(${list})` : list;
      const ctx = context();
      const input = pick(values);
      const want = expected(() => feelin.unaryTest(source, { ...ctx, '?': input }).value === true);
      const compiled = compileUnaryTests(source);
      expect(compiled.ok, source).toBe(true);
      if (!compiled.ok) continue;
      if (compiled.value.fast) fast++;
      const got = compiled.value.test(input, ctx);
      expect(got.ok ? got : 'error', `${source} for ${JSON.stringify(input)} with ${JSON.stringify(ctx)}`).toEqual(want);
    }
    expect(fast).toBeGreaterThan(2500);
  });
});
