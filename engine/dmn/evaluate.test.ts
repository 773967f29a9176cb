import { describe, expect, it } from 'vitest';
import { compileDmn, evaluateDecision } from './index.ts';
import type { CompiledDmn } from './index.ts';
import { DMN11, definitions, literalDecision, tableDecision } from './fixture.ts';
import type { TableSpec } from './fixture.ts';

function compile(xml: string): CompiledDmn {
  const compiled = compileDmn(xml);
  if (!compiled.ok) throw new Error(`expected the fixture to compile: ${JSON.stringify(compiled.problems)}`);
  return compiled.model;
}

function table(spec: TableSpec): CompiledDmn {
  return compile(definitions(tableDecision(spec)));
}

function result(model: CompiledDmn, id: string, variables: Record<string, unknown>): unknown {
  const evaluated = evaluateDecision(model, id, variables);
  if (!evaluated.ok) throw new Error(`expected success: ${evaluated.error}`);
  return evaluated.result;
}

// One score table, reused by the policies that need several matching rules.
const scoreRules: [string[], string[]][] = [
  [['> 0'], ['"low"']],
  [['> 10'], ['"high"']],
  [['> 5'], ['"medium"']],
  [['> 10'], ['"low"']],
];

describe('hit policy UNIQUE', () => {
  const model = table({
    id: 'u',
    inputs: ['color'],
    outputs: ['kind'],
    rules: [
      [['"red"'], ['"stop"']],
      [['"green"'], ['"go"']],
      [['"red","amber"'], ['"careful"']],
    ],
  });

  it('returns the single matching rule and names it', () => {
    expect(evaluateDecision(model, 'u', { color: 'green' })).toEqual({
      ok: true,
      result: 'go',
      evaluated: [{ decisionId: 'u', result: 'go', matchedRules: ['u-r2'] }],
    });
  });

  it('gives null when nothing matches', () => {
    expect(result(model, 'u', { color: 'blue' })).toBeNull();
  });

  it('fails naming both rules when two match', () => {
    const evaluated = evaluateDecision(model, 'u', { color: 'red' });
    expect(evaluated.ok).toBe(false);
    if (evaluated.ok) return;
    expect(evaluated.decisionId).toBe('u');
    expect(evaluated.error).toContain("rule 'u-r1' (#1)");
    expect(evaluated.error).toContain("rule 'u-r3' (#3)");
    expect(evaluated.error).toContain('UNIQUE');
  });

  it('is the default when hitPolicy is absent, also in DMN 1.1', () => {
    const dmn11 = compile(
      definitions(
        tableDecision({
          id: 'u',
          inputs: ['x'],
          outputs: ['y'],
          rules: [
            [['1'], ['"a"']],
            [['1'], ['"b"']],
          ],
        }),
        DMN11,
      ),
    );
    expect(evaluateDecision(dmn11, 'u', { x: 1 }).ok).toBe(false);
  });
});

describe('hit policy FIRST', () => {
  const model = table({ id: 'f', hitPolicy: 'FIRST', inputs: ['score'], outputs: ['level'], rules: scoreRules });

  it('returns the first matching rule in rule order', () => {
    expect(evaluateDecision(model, 'f', { score: 20 })).toMatchObject({ ok: true, result: 'low', evaluated: [{ matchedRules: ['f-r1'] }] });
  });

  it('gives null when nothing matches', () => {
    expect(result(model, 'f', { score: -1 })).toBeNull();
  });

  it('refuses a missing input variable with an error naming it (issue: never a silent skip)', () => {
    const outcome = evaluateDecision(model, 'f', {});
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toContain("variable 'score', which is not set");
  });

  it('treats an input variable that is set to null as null, which matches no comparison', () => {
    expect(result(model, 'f', { score: null })).toBeNull();
  });
});

describe('hit policy PRIORITY', () => {
  const model = table({
    id: 'p',
    hitPolicy: 'PRIORITY',
    inputs: ['score'],
    outputs: [{ name: 'level', values: '"high","medium","low"' }],
    rules: scoreRules,
  });

  it('returns the match whose output ranks highest in outputValues', () => {
    expect(evaluateDecision(model, 'p', { score: 20 })).toMatchObject({ ok: true, result: 'high', evaluated: [{ matchedRules: ['p-r2'] }] });
    expect(result(model, 'p', { score: 7 })).toBe('medium');
    expect(result(model, 'p', { score: 3 })).toBe('low');
  });

  it('gives null when nothing matches', () => {
    expect(result(model, 'p', { score: 0 })).toBeNull();
  });

  it('breaks ties on the first output by the second', () => {
    const twoOutputs = table({
      id: 'p2',
      hitPolicy: 'PRIORITY',
      inputs: ['x'],
      outputs: [
        { name: 'grade', values: '"A","B"' },
        { name: 'note', values: '"gold","silver","bronze"' },
      ],
      rules: [
        [['> 0'], ['"B"', '"gold"']],
        [['> 0'], ['"A"', '"bronze"']],
        [['> 0'], ['"A"', '"silver"']],
      ],
    });
    expect(result(twoOutputs, 'p2', { x: 1 })).toEqual({ grade: 'A', note: 'silver' });
  });
});

describe('hit policy ANY', () => {
  const model = table({
    id: 'a',
    hitPolicy: 'ANY',
    inputs: ['age', 'member'],
    outputs: ['allowed'],
    rules: [
      [['>= 18', '-'], ['true']],
      [['-', 'true'], ['true']],
      [['< 10', 'true'], ['false']],
    ],
  });

  it('returns the common output of agreeing matches', () => {
    expect(evaluateDecision(model, 'a', { age: 30, member: true })).toMatchObject({ ok: true, result: true, evaluated: [{ matchedRules: ['a-r1', 'a-r2'] }] });
  });

  it('gives null when nothing matches', () => {
    expect(result(model, 'a', { age: 12, member: false })).toBeNull();
  });

  it('fails naming the rules when matches disagree', () => {
    const evaluated = evaluateDecision(model, 'a', { age: 8, member: true });
    expect(evaluated).toMatchObject({ ok: false, decisionId: 'a' });
    if (evaluated.ok) return;
    expect(evaluated.error).toContain('ANY');
    expect(evaluated.error).toContain("rule 'a-r2' (#2)");
    expect(evaluated.error).toContain("rule 'a-r3' (#3)");
  });
});

describe('hit policy COLLECT', () => {
  const spec = (aggregation?: string): TableSpec => ({
    id: 'c',
    hitPolicy: 'COLLECT',
    aggregation,
    inputs: ['score'],
    outputs: ['points'],
    rules: [
      [['> 0'], ['10']],
      [['> 10'], ['5']],
      [['> 5'], ['2']],
      [['> 10'], ['']],
    ],
  });

  it('without aggregation lists the outputs in rule order, an empty entry as null', () => {
    const model = table(spec());
    expect(evaluateDecision(model, 'c', { score: 20 })).toMatchObject({
      ok: true,
      result: [10, 5, 2, null],
      evaluated: [{ matchedRules: ['c-r1', 'c-r2', 'c-r3', 'c-r4'] }],
    });
    expect(result(model, 'c', { score: 7 })).toEqual([10, 2]);
    expect(result(model, 'c', { score: 0 })).toEqual([]);
  });

  it('SUM adds the outputs (nulls skipped), null without matches', () => {
    const model = table(spec('SUM'));
    expect(result(model, 'c', { score: 20 })).toBe(17);
    expect(result(model, 'c', { score: 3 })).toBe(10);
    expect(result(model, 'c', { score: 0 })).toBeNull();
  });

  it('MIN and MAX pick the extreme output, null without matches', () => {
    const min = table(spec('MIN'));
    const max = table(spec('MAX'));
    expect(result(min, 'c', { score: 20 })).toBe(2);
    expect(result(max, 'c', { score: 20 })).toBe(10);
    expect(result(min, 'c', { score: 0 })).toBeNull();
    expect(result(max, 'c', { score: 0 })).toBeNull();
  });

  it('MIN and MAX also order strings', () => {
    const model = table({
      id: 's',
      hitPolicy: 'COLLECT',
      aggregation: 'MAX',
      inputs: ['x'],
      outputs: ['n'],
      rules: [
        [['-'], ['"apple"']],
        [['-'], ['"pear"']],
      ],
    });
    expect(result(model, 's', { x: 1 })).toBe('pear');
  });

  it('COUNT counts the matching rules, 0 without matches', () => {
    const model = table(spec('COUNT'));
    expect(result(model, 'c', { score: 20 })).toBe(4);
    expect(result(model, 'c', { score: 7 })).toBe(2);
    expect(result(model, 'c', { score: 0 })).toBe(0);
  });

  it('SUM over a non-number fails naming the rule', () => {
    const model = table({
      id: 's',
      hitPolicy: 'COLLECT',
      aggregation: 'SUM',
      inputs: ['x'],
      outputs: ['n'],
      rules: [
        [['-'], ['1']],
        [['-'], ['"two"']],
      ],
    });
    const evaluated = evaluateDecision(model, 's', { x: 1 });
    expect(evaluated.ok).toBe(false);
    if (!evaluated.ok) expect(evaluated.error).toContain("rule 's-r2' (#2)");
  });
});

describe('hit policies RULE ORDER and OUTPUT ORDER', () => {
  it('RULE ORDER lists every match in rule order, [] without matches', () => {
    const model = table({ id: 'r', hitPolicy: 'RULE ORDER', inputs: ['score'], outputs: ['level'], rules: scoreRules });
    expect(result(model, 'r', { score: 20 })).toEqual(['low', 'high', 'medium', 'low']);
    expect(result(model, 'r', { score: 0 })).toEqual([]);
  });

  it('OUTPUT ORDER sorts the matches by outputValues, [] without matches', () => {
    const model = table({
      id: 'o',
      hitPolicy: 'OUTPUT ORDER',
      inputs: ['score'],
      outputs: [{ name: 'level', values: '"high","medium","low"' }],
      rules: scoreRules,
    });
    expect(evaluateDecision(model, 'o', { score: 20 })).toMatchObject({
      ok: true,
      result: ['high', 'medium', 'low', 'low'],
      evaluated: [{ matchedRules: ['o-r2', 'o-r3', 'o-r1', 'o-r4'] }],
    });
    expect(result(model, 'o', { score: 0 })).toEqual([]);
  });

  it('OUTPUT ORDER ranks numbers and non-literal outputValues entries', () => {
    const model = table({
      id: 'o',
      hitPolicy: 'OUTPUT ORDER',
      inputs: ['x'],
      outputs: [{ name: 'n', values: '> 100, [10..100], < 10' }],
      rules: [
        [['-'], ['5']],
        [['-'], ['500']],
        [['-'], ['50']],
      ],
    });
    expect(result(model, 'o', { x: 1 })).toEqual([500, 50, 5]);
  });
});

describe('decision tables', () => {
  it('returns a context keyed by output name for several outputs', () => {
    const model = table({
      id: 'm',
      hitPolicy: 'FIRST',
      inputs: ['amount', 'country'],
      outputs: ['approved', 'reason'],
      rules: [
        [
          ['> 1000', '-'],
          ['false', '"too much"'],
        ],
        [
          ['-', 'not("DE","FR")'],
          ['false', ''],
        ],
        [
          ['-', '-'],
          ['true', '"ok: " + country'],
        ],
      ],
    });
    expect(result(model, 'm', { amount: 5000, country: 'DE' })).toEqual({ approved: false, reason: 'too much' });
    expect(result(model, 'm', { amount: 10, country: 'US' })).toEqual({ approved: false, reason: null });
    expect(result(model, 'm', { amount: 10, country: 'FR' })).toEqual({ approved: true, reason: 'ok: FR' });
  });

  it('lists contexts for COLLECT with several outputs', () => {
    const model = table({
      id: 'm',
      hitPolicy: 'COLLECT',
      inputs: ['x'],
      outputs: ['a', 'b'],
      rules: [
        [['> 1'], ['1', '"one"']],
        [['> 2'], ['2', '"two"']],
      ],
    });
    expect(result(model, 'm', { x: 5 })).toEqual([
      { a: 1, b: 'one' },
      { a: 2, b: 'two' },
    ]);
  });

  it('supports ?, ranges, lists, negation and expressions over variables in input entries', () => {
    const model = table({
      id: 't',
      hitPolicy: 'FIRST',
      inputs: ['n', 's'],
      outputs: ['r'],
      rules: [
        [['? > limit * 2', '-'], ['"double"']],
        [['[1..5)', 'not("x")'], ['"range"']],
        [['-', '"a","b"'], ['"list"']],
      ],
    });
    expect(result(model, 't', { n: 30, s: 'z', limit: 10 })).toBe('double');
    expect(result(model, 't', { n: 2, s: 'y', limit: 10 })).toBe('range');
    expect(result(model, 't', { n: 5, s: 'b', limit: 10 })).toBe('list');
    expect(result(model, 't', { n: 5, s: 'c', limit: 10 })).toBeNull();
  });

  it('evaluates input and output expressions that are not plain names or literals', () => {
    const model = table({
      id: 'e',
      hitPolicy: 'FIRST',
      inputs: ['order.total * 2', 'count(order.items)'],
      outputs: ['r'],
      rules: [
        [['> 100', '>= 2'], ['order.total - 10']],
        [['-', '-'], ['{total: order.total}']],
      ],
    });
    expect(result(model, 'e', { order: { total: 60, items: ['a', 'b'] } })).toBe(50);
    expect(result(model, 'e', { order: { total: 10, items: [] } })).toEqual({ total: 10 });
  });

  it('treats a value of another type as no match', () => {
    const model = table({
      id: 'l',
      hitPolicy: 'FIRST',
      inputs: ['x'],
      outputs: ['r'],
      rules: [
        [['"5"'], ['"string"']],
        [['5'], ['"number"']],
      ],
    });
    expect(result(model, 'l', { x: 5 })).toBe('number');
    expect(result(model, 'l', { x: '5' })).toBe('string');
    expect(result(model, 'l', { x: true })).toBeNull();
  });

  it('fails naming the decision, input and reason when FEEL fails on an input expression', () => {
    const model = table({ id: 'x', inputs: ['boom + 1'], outputs: ['r'], rules: [[['-'], ['1']]] });
    const variables = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('kaput');
      },
    });
    const evaluated = evaluateDecision(model, 'x', variables);
    expect(evaluated).toMatchObject({ ok: false, decisionId: 'x' });
    if (evaluated.ok) return;
    expect(evaluated.error).toContain("decision 'x'");
    expect(evaluated.error).toContain('column 1');
    expect(evaluated.error).toContain('kaput');
  });

  it('fails naming the rule and column when FEEL fails on an input entry', () => {
    // Parses, but feelin cannot build the nested range when it runs.
    const model = table({
      id: 'x',
      inputs: ['n'],
      outputs: ['r'],
      rules: [
        [['-'], ['0']],
        [['> > 2'], ['1']],
      ],
    });
    const evaluated = evaluateDecision(model, 'x', { n: 5 });
    expect(evaluated).toMatchObject({ ok: false, decisionId: 'x' });
    if (evaluated.ok) return;
    expect(evaluated.error).toContain("rule 'x-r2' (#2)");
    expect(evaluated.error).toContain('column 1');
    expect(evaluated.error).toContain('unsupported range');
  });
});

describe('literal expressions', () => {
  it('evaluates the expression against the variables', () => {
    const model = compile(definitions(literalDecision({ id: 'greet', text: '"Hello " + name', variable: 'greet' })));
    expect(evaluateDecision(model, 'greet', { name: 'Ada' })).toEqual({
      ok: true,
      result: 'Hello Ada',
      evaluated: [{ decisionId: 'greet', result: 'Hello Ada', matchedRules: [] }],
    });
  });

  it('returns contexts and lists as FEEL builds them', () => {
    const model = compile(definitions(literalDecision({ id: 'l', text: '{total: sum(items), first: items[1]}' })));
    expect(result(model, 'l', { items: [3, 4] })).toEqual({ total: 7, first: 3 });
  });
});

describe('decision requirement graphs', () => {
  const drg = compile(
    definitions(
      tableDecision({
        id: 'risk',
        name: 'Risk Level',
        hitPolicy: 'FIRST',
        inputs: ['age'],
        outputs: ['level'],
        rules: [
          [['< 25'], ['"high"']],
          [['-'], ['"low"']],
        ],
      }) +
        literalDecision({ id: 'base', name: 'Base Premium', text: 'cars * 100', variable: 'Base Premium' }) +
        // Reads the required decisions by name (DMN), by id (Camunda 8) and by output name (Camunda 7).
        tableDecision({
          id: 'premium',
          name: 'Premium',
          hitPolicy: 'FIRST',
          inputs: ['Risk Level', 'risk', 'level', 'Base Premium'],
          outputs: ['premium'],
          rules: [
            [['"high"', '"high"', '"high"', '-'], ['Base Premium * 2']],
            [['-', '-', '-', '-'], ['Base Premium']],
          ],
          requires: ['risk', 'base'],
        }) +
        literalDecision({ id: 'quote', name: 'Quote', text: '"Premium: " + string(Premium) + " (" + Risk Level + ")"', requires: ['premium', 'risk'] }),
    ),
  );

  it('lists its decisions', () => {
    expect(drg.decisions).toEqual([
      { id: 'risk', name: 'Risk Level' },
      { id: 'base', name: 'Base Premium' },
      { id: 'premium', name: 'Premium' },
      { id: 'quote', name: 'Quote' },
    ]);
  });

  it('evaluates required decisions first, each once, and passes their results in', () => {
    const evaluated = evaluateDecision(drg, 'quote', { age: 20, cars: 2 });
    expect(evaluated).toEqual({
      ok: true,
      result: 'Premium: 400 (high)',
      evaluated: [
        { decisionId: 'risk', result: 'high', matchedRules: ['risk-r1'] },
        { decisionId: 'base', result: 200, matchedRules: [] },
        { decisionId: 'premium', result: 400, matchedRules: ['premium-r1'] },
        { decisionId: 'quote', result: 'Premium: 400 (high)', matchedRules: [] },
      ],
    });
    expect(result(drg, 'quote', { age: 40, cars: 1 })).toBe('Premium: 100 (low)');
  });

  it('evaluates only what the requested decision needs', () => {
    const evaluated = evaluateDecision(drg, 'risk', { age: 40 });
    expect(evaluated).toMatchObject({ ok: true, result: 'low' });
    if (evaluated.ok) expect(evaluated.evaluated.map((e) => e.decisionId)).toEqual(['risk']);
  });

  it('reports the failing required decision', () => {
    const failing = compile(
      definitions(
        tableDecision({
          id: 'inner',
          inputs: ['x'],
          outputs: ['y'],
          rules: [
            [['-'], ['1']],
            [['-'], ['2']],
          ],
        }) + literalDecision({ id: 'outer', text: 'inner + 1', requires: ['inner'] }),
      ),
    );
    expect(evaluateDecision(failing, 'outer', { x: 1 })).toMatchObject({ ok: false, decisionId: 'inner' });
  });

  it('fails for an unknown decision id and for non-object variables', () => {
    expect(evaluateDecision(drg, 'nope', {})).toMatchObject({ ok: false, decisionId: 'nope' });
    expect(evaluateDecision(drg, 'risk', null as unknown as Record<string, unknown>)).toMatchObject({ ok: false, decisionId: 'risk' });
  });

  it('does not let a __proto__ variable or name change prototypes', () => {
    const variables = JSON.parse('{"__proto__": {"polluted": true}, "age": 20, "cars": 1}') as Record<string, unknown>;
    expect(result(drg, 'quote', variables)).toBe('Premium: 200 (high)');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
