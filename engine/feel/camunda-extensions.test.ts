// Camunda FEEL extensions feelin lacks: `is defined(…)`, `fromAi(…)`, backtick names and string literals spanning lines.
// Expected values are Camunda 8's (FEEL-scala 1.17+), written down by hand,
// since feelin cannot be the oracle for what it does not support.
import { evaluate as feelinEvaluate } from 'feelin';
import { describe, expect, it } from 'vitest';
import { compileExpression, compileUnaryTests, evaluateFeel, feelSyntaxError, isFastPath } from './index.ts';
import type { FeelContext } from './types.ts';

type Row = [source: string, context: FeelContext, expected: unknown];

describe('is defined(value)', () => {
  const rows: Row[] = [
    ['is defined(x)', { x: 1 }, true],
    ['is defined(x)', { x: 0 }, true],
    ['is defined(x)', { x: false }, true],
    ['is defined(x)', { x: '' }, true],
    ['is defined(x)', { x: [] }, true],
    ['is defined(x)', { x: {} }, true],
    // A missing variable and a variable holding null are both "not defined" since FEEL-scala 1.17 (Camunda 8.3+).
    ['is defined(x)', {}, false],
    ['is defined(x)', { x: null }, false],
    ['is defined(null)', {}, false],
    ['is defined(1)', {}, true],
    ['is defined(x.y)', { x: { y: 1 } }, true],
    ['is defined(x.y)', { x: { y: null } }, false],
    ['is defined(x.y)', { x: {} }, false],
    ['is defined(x.y)', {}, false],
    ['is defined(x.y)', { x: 5 }, false],
    ['is defined({}.a)', {}, false],
    ['is defined({a: 1}.a)', {}, true],
    ['is defined(value: x)', { x: 1 }, true],
    ['not(is defined(x))', {}, true],
    ['is defined(a) and is defined(b)', { a: 1, b: null }, false],
    ['is defined(a) or is defined(b)', { a: 1 }, true],
    ['is  defined(x)', { x: 1 }, true],
    ['if is defined(t) then "PT" + string(t) + "S" else "PT1H"', { t: 30 }, 'PT30S'],
    ['if is defined(t) then "PT" + string(t) + "S" else "PT1H"', {}, 'PT1H'],
    ['for i in l return is defined(i.a)', { l: [{ a: 1 }, {}, { a: null }] }, [true, false, false]],
    // Wrong arity is a failed invocation, which FEEL evaluates to null.
    ['is defined()', {}, null],
    ['is defined(1, 2)', {}, null],
    // Inside a string it is text.
    ['"is defined(x)"', {}, 'is defined(x)'],
  ];

  it.each(rows)('%s with %j → %j', (source, context, expected) => {
    expect(evaluateFeel(source, context)).toEqual({ ok: true, value: expected });
  });

  it('the shared chaos-action-runner expressions', () => {
    const timeout = 'if (is defined(action.provider.timeout)) then "PT" + string(action.provider.timeout) + "S" else "PT1H"';
    expect(evaluateFeel(timeout, { action: { provider: { timeout: 30 } } })).toEqual({ ok: true, value: 'PT30S' });
    expect(evaluateFeel(timeout, { action: { provider: {} } })).toEqual({ ok: true, value: 'PT1H' });
    expect(evaluateFeel('is defined(action.pauses)', { action: { pauses: { after: 20 } } })).toEqual({ ok: true, value: true });
    expect(evaluateFeel('is defined(action.pauses)', { action: {} })).toEqual({ ok: true, value: false });
  });

  it('does not leave feelin without it: plain feelin gives null, the engine the Camunda answer', () => {
    expect(feelinEvaluate('is defined(x)', { x: 1 }).value).toBeNull();
    expect(isFastPath('is defined(x)')).toBe(false);
  });

  it('a variable named like a builtin does not disturb it', () => {
    expect(evaluateFeel('is defined(count)', { count: 2 })).toEqual({ ok: true, value: true });
  });

  it('works in DMN unary tests', () => {
    const compiled = compileUnaryTests('is defined(?)');
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.value.test(1, {})).toEqual({ ok: true, value: true });
    expect(compiled.value.test(null, {})).toEqual({ ok: true, value: false });
  });

  it("does not change the caller's context", () => {
    const context: FeelContext = { x: 1 };
    evaluateFeel('is defined(x)', context);
    expect(context).toEqual({ x: 1 });
  });
});

describe('backtick names', () => {
  const rows: Row[] = [
    // Path segments: the entry of that exact name.
    ['experiment.`steady-state-hypothesis`', { experiment: { 'steady-state-hypothesis': { probes: [1] } } }, { probes: [1] }],
    ['experiment.`steady-state-hypothesis`.probes', { experiment: { 'steady-state-hypothesis': { probes: [1] } } }, [1]],
    ['experiment.`steady-state-hypothesis`', { experiment: {} }, null],
    // Never read as `experiment.steady - state - hypothesis`, whatever else is in scope.
    ['experiment.`steady-state`', { experiment: { steady: 5 }, state: 1 }, null],
    ['x.`a b`.`c-d`', { x: { 'a b': { 'c-d': 3 } } }, 3],
    ['x[1].`a-b`', { x: [{ 'a-b': 1 }] }, 1],
    // A path on a list reads the entry of each element.
    ['x.`a-b`', { x: [{ 'a-b': 1 }, { 'a-b': 2 }, {}] }, [1, 2, null]],
    ['x.`a-b`', { x: null }, null],
    ['x.`a-b`', {}, null],
    ['x.`a-b`', { x: 'text' }, null],
    ['count(x.`a b`)', { x: [{ 'a b': 1 }, { 'a b': 2 }] }, 2],
    // Variables.
    ['`a b` + 1', { 'a b': 1 }, 2],
    ['`a-b` + 1', { 'a-b': 1, a: 10, b: 1 }, 2],
    ['`a-b`', { a: 10, b: 1 }, null],
    ['`order id`', { 'order id': 'o-1' }, 'o-1'],
    ['`x`', { x: 7 }, 7],
    ['is defined(`a-b`)', { 'a-b': 1 }, true],
    ['is defined(`a-b`)', {}, false],
    ['`a b` = `a b`', { 'a b': 1 }, true],
    // Declarations take the same name, so local scoping holds.
    ['for `my x` in l return `my x` * 2', { l: [1, 2] }, [2, 4]],
    ['for `my x` in l return `my x` * 2', { l: [1, 2], 'my x': 10 }, [2, 4]],
    ['some `a-b` in l satisfies `a-b` > 1', { l: [1, 2] }, true],
    ['(function(`a b`) `a b` + 1)(2)', {}, 3],
    // Context keys.
    ['{`a b`: 1, c: 2}', {}, { 'a b': 1, c: 2 }],
    ['{`a b`: 1}.`a b`', {}, 1],
    // Backticks in strings and comments are text.
    ['"`not a name`"', {}, '`not a name`'],
    ['x // `comment`', { x: 1 }, 1],
    ['x /* `comment` */ + 1', { x: 1 }, 2],
  ];

  it.each(rows)('%s with %j → %j', (source, context, expected) => {
    expect(feelSyntaxError(source)).toBeUndefined();
    expect(evaluateFeel(source, context)).toEqual({ ok: true, value: expected });
  });

  it('in DMN unary tests', () => {
    const compiled = compileUnaryTests('< `max value`');
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.value.test(1, { 'max value': 5 })).toEqual({ ok: true, value: true });
    expect(compiled.value.test(7, { 'max value': 5 })).toEqual({ ok: true, value: false });
  });

  it('syntax errors are reported against the source as written', () => {
    expect(feelSyntaxError('`a b` +')).toBe('Incomplete <ArithmeticExpression> at the end');
    expect(feelSyntaxError('`a b` + )')).toMatch(/at character 9 near '\)'/);
    expect(feelSyntaxError('`open')).toBe("Unterminated backtick name at character 1 near '`open'");
    expect(feelSyntaxError('x + ``')).toBe('Empty backtick name at character 5');
  });

  it('a backtick name that is a context key and a variable of the same expression is reported, not misread', () => {
    expect(feelSyntaxError('{`a b`: 1, c: `a b`}')).toMatch(/the backtick name `a b` is both a context key and a variable/);
  });

  it('errors name the source as written', () => {
    const compiled = compileExpression('`a b` +');
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.error).toContain("cannot parse FEEL expression '`a b` +'");
  });
});

describe('string literals spanning lines', () => {
  const rows: Row[] = [
    ['"a\nb"', {}, 'a\nb'],
    ['"a\r\nb"', {}, 'a\r\nb'],
    ['string length("a\nb")', {}, 3],
    ['"line one\n\\"quoted\\"\n" + x', { x: 'end' }, 'line one\n"quoted"\nend'],
    ['{\n  id: "x\ny",\n  n: is defined(q)\n}', {}, { id: 'x\ny', n: false }],
    ['"a\nb" + `my var`', { 'my var': '!' }, 'a\nb!'],
    // A line break outside a string and an escape inside one are untouched.
    ['"a" +\n"\\n"', {}, 'a\n'],
    ['// "not\n"a\nb"', {}, 'a\nb'],
  ];
  it.each(rows)('%j', (source, context, expected) => {
    expect(feelSyntaxError(source)).toBeUndefined();
    expect(evaluateFeel(source, context)).toEqual({ ok: true, value: expected });
  });

  it('works in unary tests', () => {
    const compiled = compileUnaryTests('"a\nb", "c"');
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(compiled.value.test('a\nb', {})).toEqual({ ok: true, value: true });
  });

  it('syntax errors keep the positions of the source as written', () => {
    expect(feelSyntaxError('"a\nb" +')).toBe('Incomplete <ArithmeticExpression> at the end');
    expect(feelSyntaxError('"a\nb" + )')).toMatch(/at character 9 near '\)'/);
  });
});

describe('fromAi(value, …)', () => {
  const rows: Row[] = [
    ['fromAi(toolCall.query, "The query")', { toolCall: { query: 'rates' } }, 'rates'],
    ['fromAi(toolCall.n, "A number", "number")', { toolCall: { n: 3 } }, 3],
    ['fromAi(value: toolCall.q, description: "d")', { toolCall: { q: 'x' } }, 'x'],
    ['fromAi(toolCall.missing, "absent")', { toolCall: {} }, null],
    ['fromAi(toolCall.q, "d", "string", {}, {required: false})', { toolCall: { q: 'y' } }, 'y'],
  ];
  it.each(rows)('%s', (source, context, expected) => {
    expect(feelSyntaxError(source)).toBeUndefined();
    expect(evaluateFeel(source, context)).toEqual({ ok: true, value: expected });
  });
});
