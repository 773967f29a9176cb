import { describe, expect, it } from 'vitest';
import { jsonDepthProblem, LIMITS, stringProblem, valueProblem, variablesProblem } from './limits.ts';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('limits', () => {
  it('refuses strings Postgres cannot store: NUL and lone surrogates, in values and names', () => {
    expect(stringProblem('plain ü 😀')).toBeUndefined();
    expect(stringProblem('x\u0000y')).toMatch(/NUL/);
    expect(stringProblem('\ud800')).toMatch(/surrogate/);
    expect(stringProblem('a\udc00')).toMatch(/surrogate/);
    expect(variablesProblem({ a: { b: ['ok', 'x\u0000'] } })).toEqual({ path: 'a.b[1]', message: expect.stringMatching(/NUL/) });
    expect(variablesProblem({ ['n\u0000']: 1 })?.path).toBe('n\u0000');
    expect(variablesProblem({ ok: { ['\ud800']: 1 } })?.message).toMatch(/name that .*surrogate/);
  });

  it('allows a value nested to the documented depth and refuses one level more, cheaply at any depth', () => {
    expect(variablesProblem({ v: nested(LIMITS.maxDepth) })).toBeUndefined();
    expect(variablesProblem({ v: nested(LIMITS.maxDepth + 1) })?.message).toMatch(/deeper than 64/);
    expect(valueProblem(nested(100_000))?.message).toMatch(/deeper/);
  });

  it('refuses non-JSON values, too many variables and too many bytes', () => {
    expect(valueProblem({ n: Number.NaN })?.path).toBe('n');
    expect(valueProblem({ f: () => 1 })?.message).toMatch(/not a JSON value/);
    // A property left undefined is absent, as in JSON (a command's optional field); an undefined array element is not.
    expect(valueProblem({ kind: 'completeJob', result: undefined })).toBeUndefined();
    expect(valueProblem([undefined])?.message).toMatch(/not a JSON value/);
    const many = Object.fromEntries(Array.from({ length: LIMITS.maxVariablesPerRequest + 1 }, (_, i) => [`v${i}`, i]));
    expect(variablesProblem(many)?.message).toMatch(/more than 1000 variables/);
    expect(variablesProblem({ big: 'x'.repeat(LIMITS.maxVariablesBytesPerRequest) })?.message).toMatch(/bytes as JSON/);
    expect(variablesProblem({ fine: 'x'.repeat(1000), list: [1, 2, { a: null, b: true }] })).toBeUndefined();
  });

  it('finds nesting too deep in JSON text before it is parsed, naming the container as valueProblem does', () => {
    const text = (value: unknown) => JSON.stringify(value);
    for (const value of [{ v: nested(63) }, { a: [1, { b: nested(3) }] }, nested(64)]) {
      expect(jsonDepthProblem(text(value))).toEqual(valueProblem(value));
    }
    for (const value of [{ v: nested(64) }, { a: [1, 'x', { 'b.c': [nested(70)] }] }, nested(65), { 'q"\\': { '': [[nested(80)]] } }]) {
      const problem = jsonDepthProblem(text(value));
      expect(problem).toEqual(valueProblem(value));
      expect(problem?.message).toMatch(/deeper than 64/);
    }
    // Brackets and quotes inside strings are text, not structure.
    expect(jsonDepthProblem(text({ s: '[[[[{{{{"\\"'.repeat(100) }))).toBeUndefined();
    expect(jsonDepthProblem('{"a":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}')?.path).toBe('a' + '[0]'.repeat(63));
    expect(jsonDepthProblem('[[[', 2)?.path).toBe('[0][0]');
    expect(jsonDepthProblem('{"a": "unterminated')).toBeUndefined();
  });
});
