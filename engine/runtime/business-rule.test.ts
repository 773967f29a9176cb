import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileDmn } from '../dmn/index.ts';
import { end, engineWith, flow, processXml, service, start } from './testing.ts';

const dmn = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d" namespace="http://orca.test">
  <decision id="discount" name="Discount">
    <decisionTable id="t" hitPolicy="FIRST">
      <input id="i1" label="Customer"><inputExpression id="e1" typeRef="string"><text>customer</text></inputExpression></input>
      <output id="o1" name="rate" typeRef="number"/>
      <rule id="r1"><inputEntry id="a1"><text>"gold"</text></inputEntry><outputEntry id="b1"><text>0.2</text></outputEntry></rule>
      <rule id="r2"><inputEntry id="a2"><text>-</text></inputEntry><outputEntry id="b2"><text>0</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`;

const model = (decisionId = 'discount') =>
  processXml(
    'p',
    start() +
      `<bpmn:businessRuleTask id="decide"><bpmn:extensionElements><zeebe:calledDecision decisionId="${decisionId}" resultVariable="rate"/></bpmn:extensionElements></bpmn:businessRuleTask>` +
      service('after', 'after') +
      end() +
      flow('f1', 'start', 'decide') +
      flow('f2', 'decide', 'after') +
      flow('f3', 'after', 'end'),
  );

describe('business-rule task with a called decision', () => {
  it('evaluates the decision inline and writes the result variable', () => {
    const engine = engineWith(model());
    const compiled = compileDmn(dmn);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    engine.deployDecisions(compiled.model);
    engine.start('p', { customer: 'gold' });
    engine.start('p', { customer: 'tin' });
    expect(engine.activate('after', 5).map((j) => j.variables.rate)).toEqual([0.2, 0]);
  });

  it('raises an incident naming the variable when a decision input is missing', () => {
    const engine = engineWith(model());
    const compiled = compileDmn(dmn);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    engine.deployDecisions(compiled.model);
    const key = engine.start('p', {});
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident).toMatchObject({ type: 'DECISION_EVALUATION_ERROR', elementId: 'decide' });
    expect(incident.message).toContain("variable 'customer'");
  });

  it('raises an incident when the decision is not deployed', () => {
    const engine = engineWith(model('nope'));
    const key = engine.start('p');
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident).toMatchObject({ type: 'DECISION_EVALUATION_ERROR', elementId: 'decide' });
    expect(incident.message).toContain("'nope'");
  });

  it('raises an incident when a UNIQUE table matches twice', () => {
    // dmn-scala's discount table, whose rules 1 and 2 both match a Business order of size 9 (test/fixtures/INDEX.tsv).
    const unique = readFileSync(new URL('../../test/fixtures/dmn/dmnscala-discount-dmn13.dmn', import.meta.url), 'utf8');
    const compiled = compileDmn(unique);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    const engine = engineWith(model(compiled.model.decisions[0].id));
    engine.deployDecisions(compiled.model);
    const key = engine.start('p', { customer: 'Business', orderSize: 9 });
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident?.type).toBe('DECISION_EVALUATION_ERROR');
  });
});
