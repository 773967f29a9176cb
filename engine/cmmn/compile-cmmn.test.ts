// The CMMN compiler: what it reads, what it refuses (with the element id and
// a sentence for the modeller), and what it passes over.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileCmmn } from './compile-cmmn.ts';
import { caseXml } from './testing.ts';

function problems(xml: string): string[] {
  const result = compileCmmn(xml);
  if (result.ok) throw new Error('expected the model to be refused');
  return result.problems.map((p) => `${p.elementId ?? ''}: ${p.message}`);
}

describe('compileCmmn', () => {
  it('flattens plan items with their stage, rules and criteria', () => {
    const result = compileCmmn(
      caseXml(
        '<planItem id="S" definitionRef="st"/><stage id="st" autoComplete="true"><planItem id="T" definitionRef="h"><itemControl><requiredRule/><repetitionRule><condition>${n &lt; 3}</condition></repetitionRule></itemControl><entryCriterion sentryRef="s"/></planItem>' +
          '<planItem id="M" definitionRef="m"/><sentry id="s"><planItemOnPart sourceRef="M"><standardEvent>occur</standardEvent></planItemOnPart></sentry></stage>' +
          '<humanTask id="h"><defaultControl><manualActivationRule><condition>manual</condition></manualActivationRule></defaultControl></humanTask><milestone id="m"/>',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [model] = result.model.cases;
    expect(model.rootId).toBe('plan');
    expect(model.planItems.T).toMatchObject({
      parentId: 'S',
      type: 'humanTask',
      required: true,
      repetition: { condition: 'n < 3' },
      manualActivation: { condition: 'manual' },
      entry: ['s'],
    });
    expect(model.planItems.S).toMatchObject({ type: 'stage', autoComplete: true, children: ['T', 'M'] });
    expect(model.listeners).toEqual({ M: ['T'] });
  });

  it('names unknown sentries and on-part sources', () => {
    expect(problems(caseXml('<planItem id="A" definitionRef="h"><entryCriterion sentryRef="nope"/></planItem><humanTask id="h"/>'))).toEqual([
      "A: a criterion of 'A' refers to sentry 'nope', which does not exist",
    ]);
    expect(
      problems(
        caseXml(
          '<planItem id="A" definitionRef="h"><entryCriterion sentryRef="s"/></planItem><sentry id="s"><planItemOnPart sourceRef="ghost"><standardEvent>complete</standardEvent></planItemOnPart></sentry><humanTask id="h"/>',
        ),
      ),
    ).toEqual(["s: sentry 's' listens to 'ghost', which is not a plan item of case 'c'"]);
  });

  it('names and refuses what Orca does not run', () => {
    expect(problems(caseXml('<planItem id="D" definitionRef="dt"/><decisionTask id="dt"/>'))).toEqual([
      'dt: <decisionTask>: decision tasks are not supported; call the decision from a process task instead',
    ]);
    expect(problems(caseXml('<planningTable id="pt"/>'))).toEqual(['pt: <planningTable>: planning tables (discretionary items) are not supported']);
  });

  it('refuses a CMMN 1.0 document, saying what to change', () => {
    const [message] = problems('<definitions xmlns="http://www.omg.org/spec/CMMN/20131201/MODEL" id="d"><case id="c"/></definitions>');
    expect(message).toContain('CMMN 1.0');
    expect(message).toContain('http://www.omg.org/spec/CMMN/20151109/MODEL');
    expect(message).toContain('<entryCriterion sentryRef="…"/>');
  });

  it('refuses JUEL it cannot translate and FEEL that does not parse, naming the element', () => {
    expect(
      problems(
        caseXml(
          '<planItem id="A" definitionRef="h"><itemControl><requiredRule id="r"><condition>${execution.getVariable("x")}</condition></requiredRule></itemControl></planItem><humanTask id="h"/>',
        ),
      )[0],
    ).toMatch(/^r: the requiredRule of 'A': '\$\{execution.getVariable\("x"\)\}' is a JUEL expression Orca cannot translate/);
    expect(
      problems(
        caseXml(
          '<planItem id="A" definitionRef="h"><entryCriterion sentryRef="s"/></planItem><sentry id="s"><ifPart><condition>a &gt;</condition></ifPart></sentry><humanTask id="h"/>',
        ),
      )[0],
    ).toMatch(/^s: the if-part of sentry 's' is not valid FEEL/);
  });

  it('refuses a timer listener without a valid timer', () => {
    expect(
      problems(caseXml('<planItem id="T" definitionRef="tl"/><timerEventListener id="tl"><timerExpression>soon</timerExpression></timerEventListener>'))[0],
    ).toMatch(/^T: timer event listener 'tl': /);
  });

  it('ignores vendor extensions and warns about case file item on-parts', () => {
    const result = compileCmmn(
      caseXml(
        '<planItem id="A" definitionRef="h"><entryCriterion sentryRef="s"/></planItem><sentry id="s"><caseFileItemOnPart sourceRef="f"/></sentry>' +
          '<humanTask id="h" camunda:assignee="demo"><extensionElements><camunda:taskListener event="create" class="x"/><flowable:whatever xmlns:flowable="http://flowable.org/cmmn"/></extensionElements></humanTask>',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.model.warnings.map((w) => w.code)).toEqual(['CMMN_CASE_FILE_ON_PART_IGNORED']);
    expect(result.model.cases[0].planItems.A.entry).toEqual([]);
  });

  it('refuses hostile and malformed XML the way BPMN and DMN are refused', () => {
    expect(problems('<!DOCTYPE x [<!ENTITY a "b">]><definitions/>')).toEqual([
      ': DOCTYPE declarations are not allowed in CMMN documents (no DTDs or entities)',
    ]);
    expect(problems(caseXml('<planItem id="A"').slice(0, 200))[0]).toMatch(/not well-formed XML/);
    expect(problems('<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"/>')).toEqual([': the CMMN document contains no case']);
  });
});

describe('compileCmmn on broken input', () => {
  it('refuses every prefix of a real case model with problems, never an internal error', () => {
    const xml = readFileSync(new URL('../../test/fixtures/cmmn/flowable-exit-plan-model-on-milestone.cmmn', import.meta.url), 'utf8');
    for (let end = 0; end < xml.length; end += 7) {
      const result = compileCmmn(xml.slice(0, end));
      if (!result.ok) for (const p of result.problems) expect(p.message).not.toContain('internal error');
    }
  });

  it('refuses what is not a string', () => {
    expect(compileCmmn(42 as unknown as string)).toEqual({ ok: false, problems: [{ message: 'the document must be a string' }] });
  });
});
