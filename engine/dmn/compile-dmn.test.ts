import { describe, expect, it } from 'vitest';
import { compileDmn, evaluateDecision } from './index.ts';
import type { DmnProblem } from './index.ts';
import { DMN11, DMN12, DMN13, definitions, literalDecision, tableDecision } from './fixture.ts';

function problems(xml: string, options?: { maxBytes?: number }): DmnProblem[] {
  const compiled = compileDmn(xml, options);
  if (compiled.ok) throw new Error('expected compile problems');
  return compiled.problems;
}

const simple = tableDecision({ id: 'd', inputs: ['x'], outputs: ['y'], rules: [[['1'], ['"one"']]] });

describe('compileDmn: documents', () => {
  it.each([
    ['1.1', DMN11],
    ['1.2', DMN12],
    ['1.3', DMN13],
  ])('reads DMN %s by namespace URI', (version, ns) => {
    const compiled = compileDmn(definitions(simple, ns));
    expect(compiled).toMatchObject({ ok: true, model: { dmnVersion: version, decisions: [{ id: 'd', name: 'd' }] } });
  });

  it('resolves prefixed DMN elements and ignores other namespaces', () => {
    const xml = `<dmn:definitions xmlns:dmn="${DMN13}" xmlns:other="urn:other" id="defs" name="x" namespace="urn:x">
      <other:decision id="ignored"/>
      <dmn:decision id="d" name="D"><dmn:decisionTable><dmn:input><dmn:inputExpression><dmn:text>x</dmn:text></dmn:inputExpression></dmn:input>
      <dmn:output name="y"/><dmn:rule id="r"><dmn:inputEntry><dmn:text>&lt; 5</dmn:text></dmn:inputEntry><dmn:outputEntry><dmn:text><![CDATA["small & <5"]]></dmn:text></dmn:outputEntry></dmn:rule>
      </dmn:decisionTable></dmn:decision></dmn:definitions>`;
    const compiled = compileDmn(xml);
    expect(compiled).toMatchObject({ ok: true, model: { decisions: [{ id: 'd', name: 'D' }] } });
    if (compiled.ok) expect(evaluateDecision(compiled.model, 'd', { x: 1 })).toMatchObject({ ok: true, result: 'small & <5' });
  });

  it('decodes character references once', () => {
    const xml = definitions(literalDecision({ id: 'd', text: 'x' }).replace('<text>x</text>', '<text>"&#65;&#x42;&amp;lt;"</text>'));
    const compiled = compileDmn(xml);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(evaluateDecision(compiled.model, 'd', {})).toMatchObject({ ok: true, result: 'AB&lt;' });
  });

  it('rejects DOCTYPE and entity declarations', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE definitions [<!ENTITY boom "boom">]>${definitions(simple).replace(/^<\?xml[^>]*>\n/, '')}`;
    const found = problems(xml);
    expect(found).toHaveLength(1);
    expect(found[0].message).toMatch(/DOCTYPE declarations are not allowed/);
  });

  it('accepts the word DOCTYPE inside a comment or CDATA', () => {
    const xml = definitions(
      `<!-- <!DOCTYPE x> -->${literalDecision({ id: 'd', text: 'x' }).replace('<text>x</text>', '<text><![CDATA["<!ENTITY e>"]]></text>')}`,
    );
    expect(compileDmn(xml).ok).toBe(true);
  });

  it('rejects documents over maxBytes, 10 MiB by default', () => {
    const xml = definitions(simple);
    expect(problems(xml, { maxBytes: 100 })[0].message).toMatch(/exceeds the size limit of 100 bytes/);
    const padded = definitions(`<!--${'x'.repeat(10 * 1024 * 1024)}-->${simple}`);
    expect(problems(padded)[0].message).toMatch(/exceeds the size limit of 10485760 bytes/);
    // Multi-byte characters count as UTF-8 bytes.
    const wide = definitions(`<!--${'é'.repeat(60)}-->${simple}`);
    expect(compileDmn(wide, { maxBytes: wide.length + 10 }).ok).toBe(false);
  });

  it('reports malformed XML, a non-DMN root and an undeclared prefix', () => {
    expect(problems('<definitions><decision></definitions>')[0].message).toMatch(/not well-formed XML/);
    expect(problems('not xml at all')[0].message).toMatch(/not well-formed XML/);
    expect(problems(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>`)[0].message).toMatch(/not a DMN document.*BPMN/);
    expect(problems('<definitions/>')[0].message).toMatch(/without a namespace/);
    expect(problems(definitions('<camunda:x/>'))[0].message).toMatch(/prefix 'camunda'.*not declared/);
  });

  it('never throws on bad arguments', () => {
    expect(compileDmn(undefined as unknown as string).ok).toBe(false);
    expect(compileDmn(definitions(simple), { maxBytes: -1 }).ok).toBe(false);
  });
});

describe('compileDmn: problems', () => {
  it('reports an unparsable input entry with rule index, column, element id and the parser reason', () => {
    const xml = definitions(
      tableDecision({
        id: 'd',
        inputs: ['a', 'b'],
        outputs: ['y'],
        rules: [
          [['1', '2'], ['"ok"']],
          [['1', '[1..'], ['"bad"']],
        ],
      }),
    );
    const [problem, ...rest] = problems(xml);
    expect(rest).toEqual([]);
    expect(problem.elementId).toBe('d-r2-i2');
    expect(problem.message).toContain("decision 'd'");
    expect(problem.message).toContain('(#2)');
    expect(problem.message).toContain('column 2');
    expect(problem.message).toContain("cannot parse unary tests '[1..'");
    expect(problem.message).toContain('Incomplete');
  });

  it('reports an unparsable output entry and input expression', () => {
    const xml = definitions(tableDecision({ id: 'd', inputs: ['a +'], outputs: ['y'], rules: [[['-'], ['"open']]] }));
    const found = problems(xml);
    expect(found.map((p) => p.elementId)).toEqual(['d-ie1', 'd-r1-o1']);
    expect(found[0].message).toContain("cannot parse FEEL expression 'a +'");
    expect(found[1].message).toMatch(/rule 'd-r1' \(#1\), output entry in column 1/);
  });

  it('reports an unknown hit policy and misused aggregations', () => {
    expect(problems(definitions(tableDecision({ id: 'd', hitPolicy: 'SOMETIMES', inputs: ['x'], outputs: ['y'], rules: [] })))).toEqual([
      { elementId: 'd-table', message: expect.stringContaining("unknown hit policy 'SOMETIMES'") },
    ]);
    expect(problems(definitions(tableDecision({ id: 'd', hitPolicy: 'FIRST', aggregation: 'SUM', inputs: ['x'], outputs: ['y'], rules: [] })))).toEqual([
      { elementId: 'd-table', message: expect.stringContaining('only allowed with hit policy COLLECT') },
    ]);
    expect(problems(definitions(tableDecision({ id: 'd', hitPolicy: 'COLLECT', aggregation: 'AVG', inputs: ['x'], outputs: ['y'], rules: [] })))).toEqual([
      { elementId: 'd-table', message: expect.stringContaining("unknown aggregation 'AVG'") },
    ]);
    expect(problems(definitions(tableDecision({ id: 'd', hitPolicy: 'COLLECT', aggregation: 'SUM', inputs: ['x'], outputs: ['a', 'b'], rules: [] })))).toEqual([
      { elementId: 'd-table', message: expect.stringContaining('needs a single output') },
    ]);
  });

  it('requires outputValues for PRIORITY and OUTPUT ORDER, and names for several outputs', () => {
    expect(problems(definitions(tableDecision({ id: 'd', hitPolicy: 'PRIORITY', inputs: ['x'], outputs: ['y'], rules: [] })))[0].message).toContain(
      'ranks results by outputValues',
    );
    const unnamed = definitions(tableDecision({ id: 'd', inputs: ['x'], outputs: ['a', 'b'], rules: [] }).replace('name="b"', ''));
    expect(problems(unnamed)).toEqual([{ elementId: 'd-out2', message: expect.stringContaining('needs a name on every output') }]);
  });

  it('reports rules whose entry count does not match the columns', () => {
    const xml = definitions(tableDecision({ id: 'd', inputs: ['x', 'z'], outputs: ['y'], rules: [[['1'], ['2']]] }));
    expect(problems(xml)).toEqual([{ elementId: 'd-r1', message: expect.stringContaining('has 1 input and 1 output entries') }]);
  });

  it('reports a requirement to an unknown decision and an unknown input', () => {
    const xml = definitions(
      literalDecision({ id: 'a', text: '1', requires: ['ghost'] }) +
        '<decision id="b" name="b"><informationRequirement><requiredInput href="#nowhere"/></informationRequirement><literalExpression><text>2</text></literalExpression></decision>',
    );
    expect(problems(xml)).toEqual([
      { elementId: 'a', message: "decision 'a': requires unknown decision 'ghost'" },
      { elementId: 'b', message: expect.stringContaining("requiredInput href '#nowhere'") },
    ]);
  });

  it('reports cycles in the requirement graph', () => {
    const xml = definitions(
      literalDecision({ id: 'a', text: 'b', requires: ['b'] }) +
        literalDecision({ id: 'b', text: 'c', requires: ['c'] }) +
        literalDecision({ id: 'c', text: 'a', requires: ['a'] }) +
        literalDecision({ id: 'self', text: 'self', requires: ['self'] }),
    );
    expect(problems(xml)).toEqual([
      { elementId: 'a', message: 'decision requirements form a cycle: a → b → c → a' },
      { elementId: 'self', message: 'decision requirements form a cycle: self → self' },
    ]);
  });

  it('reports decisions without logic, unsupported logic, duplicate ids and non-FEEL expressions', () => {
    const xml = definitions(
      '<decision id="empty" name="Empty"/>' +
        '<decision id="boxed" name="Boxed"><context/></decision>' +
        simple +
        simple +
        '<decision id="js" name="JS"><literalExpression expressionLanguage="javascript"><text>1</text></literalExpression></decision>',
    );
    expect(problems(xml)).toEqual([
      { elementId: 'd', message: "decision id 'd' is used by more than one decision" },
      { elementId: 'empty', message: "decision 'empty' has no decision logic (expected a decisionTable or a literalExpression)" },
      { elementId: 'boxed', message: expect.stringContaining('decision logic <context> is not supported') },
      { elementId: 'js', message: expect.stringContaining("expression language 'javascript' is not supported") },
    ]);
  });

  it('reports every problem of a document at once', () => {
    const xml = definitions(
      tableDecision({ id: 'd', hitPolicy: 'NOPE', inputs: ['x'], outputs: ['y'], rules: [[['>>'], ['"a']]] }) +
        literalDecision({ id: 'l', text: '1', requires: ['missing'] }),
    );
    expect(problems(xml).map((p) => p.elementId)).toEqual(['l', 'd-table', 'd-r1-i1', 'd-r1-o1']);
  });

  it('accepts knowledge and authority requirements and ignores them', () => {
    const xml = definitions(
      '<decision id="d" name="d"><knowledgeRequirement><requiredKnowledge href="#bkm"/></knowledgeRequirement>' +
        '<authorityRequirement><requiredAuthority href="#ks"/></authorityRequirement><literalExpression><text>42</text></literalExpression></decision>' +
        '<knowledgeSource id="ks" name="Book"/>',
    );
    const compiled = compileDmn(xml);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(evaluateDecision(compiled.model, 'd', {})).toMatchObject({ ok: true, result: 42 });
  });
});
