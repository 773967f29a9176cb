// Issue 23 at the engine: an expression that hits a FEEL limit (time or
// size) ends as an incident on its element, naming the element, the
// expression and the limit, and the engine goes on serving other instances.
import { describe, expect, it } from 'vitest';
import { compileDmn } from '../dmn/index.ts';
import { definitions as dmnDefinitions, literalDecision, tableDecision } from '../dmn/fixture.ts';
import { end, engineWith, flow, ioMapping, processXml, service, start } from './testing.ts';

const HUGE_RANGE = '=count(for i in 1..100000000 return i) > 0';
const LIST_PRODUCT = '=count(for a in L, b in L return a) > 0';

function gatewayProcess(condition: string): string {
  return processXml(
    'p',
    start() +
      '<bpmn:exclusiveGateway id="gw" default="toSmall"/>' +
      service('big', 'big') +
      service('small', 'small') +
      end() +
      flow('f0', 'start', 'gw') +
      flow('toBig', 'gw', 'big', condition) +
      flow('toSmall', 'gw', 'small') +
      flow('f1', 'big', 'end') +
      flow('f2', 'small', 'end'),
  );
}

function onlyIncident(engine: ReturnType<typeof engineWith>, key: string) {
  const instance = engine.instance(key)!;
  expect(instance.state).toBe('INCIDENT');
  const incidents = Object.values(instance.incidents);
  expect(incidents).toHaveLength(1);
  return incidents[0];
}

describe('an expression over a FEEL limit is an incident naming element, expression and limit', () => {
  it('a gateway condition enumerating a hundred million numbers', () => {
    const engine = engineWith(gatewayProcess(HUGE_RANGE));
    const incident = onlyIncident(engine, engine.start('p', {}));
    expect(incident).toMatchObject({ type: 'CONDITION_ERROR', elementId: 'gw' });
    expect(incident.message).toContain("sequence flow 'toBig' leaving 'gw'");
    expect(incident.message).toContain('count(for i in 1..100000000 return i) > 0');
    expect(incident.message).toMatch(/FEEL limit exceeded: .*item limit of one evaluation/);
  });

  it('a gateway condition looping over the product of two lists stops at the deadline', () => {
    const engine = engineWith(gatewayProcess(LIST_PRODUCT));
    const incident = onlyIncident(engine, engine.start('p', { L: Array.from({ length: 5_000 }, (_, i) => i) }));
    expect(incident).toMatchObject({ type: 'CONDITION_ERROR', elementId: 'gw' });
    expect(incident.message).toContain('count(for a in L, b in L return a) > 0');
    expect(incident.message).toMatch(/time limit of one evaluation/);
  });

  it('an io mapping building ten million items', () => {
    const xml = processXml(
      'p',
      start() +
        service('task', 'work', ioMapping([['=for i in 1..10000000 return i', 'ids']])) +
        end() +
        flow('f1', 'start', 'task') +
        flow('f2', 'task', 'end'),
    );
    const engine = engineWith(xml);
    const incident = onlyIncident(engine, engine.start('p', {}));
    expect(incident).toMatchObject({ type: 'IO_MAPPING_ERROR', elementId: 'task' });
    expect(incident.message).toContain("of 'task'");
    expect(incident.message).toContain('for i in 1..10000000 return i');
    expect(incident.message).toMatch(/item limit/);
    expect(engine.activate('work', 1)).toEqual([]);
  });

  it('a multi-instance input collection doubling through context entries', () => {
    const entries = Array.from({ length: 24 }, (_, i) => `e${i + 1}: [e${i}, e${i}]`).join(', ');
    const collection = `={e0: 1, ${entries}}.e24`;
    const xml = processXml(
      'p',
      start() +
        `<bpmn:serviceTask id="each"><bpmn:extensionElements><zeebe:taskDefinition type="each"/></bpmn:extensionElements>` +
        `<bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="${collection}" inputElement="x"/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics></bpmn:serviceTask>` +
        end() +
        flow('f1', 'start', 'each') +
        flow('f2', 'each', 'end'),
    );
    const engine = engineWith(xml);
    const incident = onlyIncident(engine, engine.start('p', {}));
    expect(incident).toMatchObject({ type: 'EXTRACT_VALUE_ERROR', elementId: 'each' });
    expect(incident.message).toContain("of 'each'");
    expect(incident.message).toMatch(/its result would hold more than \d+ list items/);
  });

  it('a job type expression that backtracks catastrophically in JavaScript answers at once on RE2', () => {
    const input = `${'a'.repeat(5_000)}!`;
    const xml = processXml(
      'p',
      start() + service('task', '=if matches(s, "^(a+)+$") then "yes" else "no"') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'),
    );
    const engine = engineWith(xml);
    engine.start('p', { s: input });
    expect(engine.activate('no', 1)).toHaveLength(1);
  });

  it('a decision literal expression called by a business-rule task', () => {
    const dmn = compileDmn(dmnDefinitions(literalDecision({ id: 'greedy', name: 'Greedy', text: 'count(for i in 1..100000000 return i)', variable: 'n' })));
    if (!dmn.ok) throw new Error(JSON.stringify(dmn.problems));
    const xml = processXml(
      'p',
      start() +
        '<bpmn:businessRuleTask id="decide"><bpmn:extensionElements><zeebe:calledDecision decisionId="greedy" resultVariable="n"/></bpmn:extensionElements></bpmn:businessRuleTask>' +
        end() +
        flow('f1', 'start', 'decide') +
        flow('f2', 'decide', 'end'),
    );
    const engine = engineWith(xml);
    engine.deployDecisions(dmn.model);
    const incident = onlyIncident(engine, engine.start('p', {}));
    expect(incident).toMatchObject({ type: 'DECISION_EVALUATION_ERROR', elementId: 'decide' });
    expect(incident.message).toContain("Decision 'greedy' called by 'decide'");
    expect(incident.message).toContain('count(for i in 1..100000000 return i)');
    expect(incident.message).toMatch(/item limit/);
  });

  it('a decision table input entry looping past the deadline', () => {
    const table = tableDecision({
      id: 'slow',
      inputs: ['L'],
      outputs: ['out'],
      rules: [[['count(for a in ?, b in ? return a) > 0'], ['"many"']]],
    });
    const dmn = compileDmn(dmnDefinitions(table));
    if (!dmn.ok) throw new Error(JSON.stringify(dmn.problems));
    const xml = processXml(
      'p',
      start() +
        '<bpmn:businessRuleTask id="decide"><bpmn:extensionElements><zeebe:calledDecision decisionId="slow" resultVariable="out"/></bpmn:extensionElements></bpmn:businessRuleTask>' +
        end() +
        flow('f1', 'start', 'decide') +
        flow('f2', 'decide', 'end'),
    );
    const engine = engineWith(xml);
    engine.deployDecisions(dmn.model);
    const incident = onlyIncident(engine, engine.start('p', { L: Array.from({ length: 5_000 }, (_, i) => i) }));
    expect(incident.message).toContain("Decision 'slow' called by 'decide'");
    expect(incident.message).toContain('slow-r1');
    expect(incident.message).toMatch(/time limit of one evaluation/);
  });

  it('the engine goes on: after hostile instances, an ordinary one completes its path', () => {
    const engine = engineWith(gatewayProcess(HUGE_RANGE));
    onlyIncident(engine, engine.start('p', {}));
    const calm = engineWith(gatewayProcess('=amount > 100'));
    calm.start('p', { amount: 500 });
    expect(calm.activate('big', 1)).toHaveLength(1);
    onlyIncident(engine, engine.start('p', {}));
  });
});
