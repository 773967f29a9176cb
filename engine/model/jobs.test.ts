// Job type naming (SPEC.md "Job type naming that the engine produces for waits").
import { describe, expect, it } from 'vitest';
import { evaluateFeel } from '../feel/index.ts';
import { bpmnDoc, chain, node, readNode } from './test-fixtures.ts';

const ext = (inner: string) => `<bpmn:extensionElements>${inner}</bpmn:extensionElements>`;
const typeOf = (element: string, id = 't', root = '') => node(bpmnDoc(chain([id], [element]), { root }), id).job?.type;

describe('job types', () => {
  it('service task: the task definition type', () => {
    expect(typeOf(`<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="payment"/>')}</bpmn:serviceTask>`)).toEqual({
      kind: 'literal',
      value: 'payment',
    });
  });

  it('send task: the task definition type', () => {
    expect(typeOf(`<bpmn:sendTask id="t">${ext('<zeebe:taskDefinition type="mailer"/>')}</bpmn:sendTask>`)).toEqual({ kind: 'literal', value: 'mailer' });
  });

  it('script task: script:<name>', () => {
    expect(typeOf('<bpmn:scriptTask id="t" name="Compute total"/>')).toEqual({ kind: 'literal', value: 'script:Compute total' });
  });

  it('script task: script:<id> when it has no name', () => {
    expect(typeOf('<bpmn:scriptTask id="t"/>')).toEqual({ kind: 'literal', value: 'script:t' });
    expect(typeOf('<bpmn:scriptTask id="t" name="  "/>')).toEqual({ kind: 'literal', value: 'script:t' });
  });

  it('script task: a name laid out over several lines becomes one line', () => {
    expect(typeOf('<bpmn:scriptTask id="t" name="Compute&#10;  total "/>')).toEqual({ kind: 'literal', value: 'script:Compute total' });
  });

  it('user task: userTask', () => {
    expect(typeOf('<bpmn:userTask id="t" name="Approve"/>')).toEqual({ kind: 'literal', value: 'userTask' });
  });

  it('receive task: message:<messageName>', () => {
    expect(typeOf('<bpmn:receiveTask id="t" messageRef="m"/>', 't', '<bpmn:message id="m" name="payment-received"/>')).toEqual({
      kind: 'literal',
      value: 'message:payment-received',
    });
  });

  it('receive task with a FEEL message name: a FEEL type that prefixes "message:"', () => {
    const type = typeOf('<bpmn:receiveTask id="t" messageRef="m"/>', 't', '<bpmn:message id="m" name="=&#34;paid-&#34; + region"/>');
    expect(type).toEqual({ kind: 'feel', source: '"message:" + string("paid-" + region)' });
    if (type?.kind !== 'feel') return;
    expect(evaluateFeel(type.source, { region: 'eu' })).toEqual({ ok: true, value: 'message:paid-eu' });
  });

  it('message intermediate catch event: event:message:<elementId>', () => {
    const xml = bpmnDoc(
      chain(['wait'], ['<bpmn:intermediateCatchEvent id="wait"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>']),
      {
        root: '<bpmn:message id="m" name="ignored-for-the-type"/>',
      },
    );
    expect(node(xml, 'wait').job?.type).toEqual({ kind: 'literal', value: 'event:message:wait' });
  });

  it('business rule task with a task definition: its type', () => {
    expect(typeOf(`<bpmn:businessRuleTask id="t">${ext('<zeebe:taskDefinition type="rules" retries="1"/>')}</bpmn:businessRuleTask>`)).toEqual({
      kind: 'literal',
      value: 'rules',
    });
  });

  it('business rule task with a called decision: no job', () => {
    const xml = bpmnDoc(
      chain(['t'], [`<bpmn:businessRuleTask id="t">${ext('<zeebe:calledDecision decisionId="d" resultVariable="r"/>')}</bpmn:businessRuleTask>`]),
    );
    expect(readNode(xml, 't').job).toBeUndefined();
  });

  it('no job for tasks, manual tasks, gateways and none events', () => {
    const xml = bpmnDoc(chain(['a', 'b'], ['<bpmn:task id="a"/>', '<bpmn:manualTask id="b"/>']));
    for (const id of ['s', 'a', 'b', 'e']) expect(node(xml, id).job).toBeUndefined();
  });

  it('every job carries retries (default 3) and headers', () => {
    const xml = bpmnDoc(
      chain(['t'], [`<bpmn:userTask id="t">${ext('<zeebe:taskHeaders><zeebe:header key="k" value="v"/></zeebe:taskHeaders>')}</bpmn:userTask>`]),
    );
    expect(node(xml, 't').job).toEqual({ type: { kind: 'literal', value: 'userTask' }, retries: { kind: 'literal', value: '3' }, headers: { k: 'v' } });
  });
});
