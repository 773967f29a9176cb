// Compiling ad-hoc subprocesses (Zeebe 8.8): what the runtime gets, and the
// deploy rules (an activity inside, no start or end events).
import { describe, expect, it } from 'vitest';
import { compileBpmn } from './compile.ts';

const definitions = (body: string): string =>
  '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d">' +
  `<bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f0" sourceRef="s" targetRef="x"/>${body}</bpmn:process>` +
  '</bpmn:definitions>';

const task = (id: string, type = id): string =>
  `<bpmn:serviceTask id="${id}"><bpmn:extensionElements><zeebe:taskDefinition type="${type}"/></bpmn:extensionElements></bpmn:serviceTask>`;

function problems(body: string): string[] {
  const result = compileBpmn(definitions(body));
  return result.ok ? [] : result.problems.map((p) => `${p.elementId}: ${p.message}`);
}

describe('ad-hoc subprocess compilation', () => {
  it('reads zeebe:adHoc, the completion condition and cancelRemainingInstances; activatable elements have no incoming flow', () => {
    const result = compileBpmn(
      definitions(
        '<bpmn:adHocSubProcess id="x" cancelRemainingInstances="false"><bpmn:extensionElements>' +
          '<zeebe:adHoc activeElementsCollection="=tools" outputCollection="results" outputElement="={r: r}"/></bpmn:extensionElements>' +
          '<bpmn:completionCondition xsi:type="bpmn:tFormalExpression" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">=done</bpmn:completionCondition>' +
          `${task('a')}${task('b')}${task('b2')}<bpmn:sequenceFlow id="fb" sourceRef="b" targetRef="b2"/>` +
          '<bpmn:boundaryEvent id="err" attachedToRef="a"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>' +
          '</bpmn:adHocSubProcess>',
      ),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const node = result.model.processes[0].elements.x;
    expect(node.type).toBe('adHocSubProcess');
    expect(node.job).toBeUndefined();
    expect(node.adHoc).toEqual({
      activatable: ['a', 'b'],
      activeElementsCollection: 'tools',
      completionCondition: 'done',
      cancelRemainingInstances: false,
      outputCollection: 'results',
      outputElement: '{r: r}',
    });
  });

  it('a zeebe:taskDefinition on it is the job worker implementation; cancelRemainingInstances defaults to true', () => {
    const result = compileBpmn(
      definitions(
        '<bpmn:adHocSubProcess id="x"><bpmn:extensionElements><zeebe:taskDefinition type="agent" retries="2"/></bpmn:extensionElements>' +
          `${task('a')}</bpmn:adHocSubProcess>`,
      ),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const node = result.model.processes[0].elements.x;
    expect(node.job?.type).toEqual({ kind: 'literal', value: 'agent' });
    expect(node.adHoc?.cancelRemainingInstances).toBe(true);
  });

  it('needs an activity inside', () => {
    expect(problems('<bpmn:adHocSubProcess id="x"><bpmn:intermediateThrowEvent id="t"/></bpmn:adHocSubProcess>')).toEqual([
      "x: Ad-hoc subprocess 'x' has no activity inside; it needs at least one.",
    ]);
  });

  it('rejects start and end events inside, saying why', () => {
    const found = problems(
      `<bpmn:adHocSubProcess id="x"><bpmn:startEvent id="in"/>${task('a')}<bpmn:endEvent id="out"/>` +
        '<bpmn:sequenceFlow id="f1" sourceRef="in" targetRef="a"/><bpmn:sequenceFlow id="f2" sourceRef="a" targetRef="out"/></bpmn:adHocSubProcess>',
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^in: Ad-hoc subprocess 'x' contains start event 'in'; an ad-hoc subprocess has no start or end events/);
    expect(found[1]).toMatch(/^out: Ad-hoc subprocess 'x' contains end event 'out'/);
  });

  it('checks its FEEL', () => {
    const found = problems(
      `<bpmn:adHocSubProcess id="x"><bpmn:extensionElements><zeebe:adHoc activeElementsCollection="=[" /></bpmn:extensionElements>${task('a')}</bpmn:adHocSubProcess>`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^x: The active elements collection of ad-hoc subprocess 'x' is not valid FEEL/);
  });
});
