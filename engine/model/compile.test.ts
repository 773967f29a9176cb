// The shape of a compiled model as engine/runtime consumes it.
import { describe, expect, it } from 'vitest';
import { BPMN, ZEEBE, compileOk, onlyProcess } from './test-fixtures.ts';

const ORDER = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:zeebe="${ZEEBE}" id="defs">
  <bpmn:collaboration id="collab">
    <bpmn:participant id="pool" name="Shop" processRef="order"/>
  </bpmn:collaboration>
  <bpmn:message id="paid" name="payment-received"/>
  <bpmn:process id="order" name="Order" isExecutable="true">
    <bpmn:laneSet id="ls"><bpmn:lane id="lane" name="Sales"><bpmn:flowNodeRef>start</bpmn:flowNodeRef></bpmn:lane></bpmn:laneSet>
    <bpmn:startEvent id="start" name="Order placed"/>
    <bpmn:exclusiveGateway id="check" name="Big?" default="small"/>
    <bpmn:serviceTask id="approve" name="Approve">
      <bpmn:extensionElements><zeebe:taskDefinition type="approve" retries="=tries"/></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:subProcess id="fulfil" name="Fulfil">
      <bpmn:startEvent id="fStart"/>
      <bpmn:receiveTask id="waitPay" messageRef="paid"/>
      <bpmn:endEvent id="fEnd"/>
      <bpmn:sequenceFlow id="ff1" sourceRef="fStart" targetRef="waitPay"/>
      <bpmn:sequenceFlow id="ff2" sourceRef="waitPay" targetRef="fEnd"/>
    </bpmn:subProcess>
    <bpmn:endEvent id="end"><bpmn:terminateEventDefinition/></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <bpmn:sequenceFlow id="big" name="yes" sourceRef="check" targetRef="approve"><bpmn:conditionExpression>=amount &gt; 100</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="small" sourceRef="check" targetRef="fulfil"/>
    <bpmn:sequenceFlow id="f2" sourceRef="approve" targetRef="fulfil"/>
    <bpmn:sequenceFlow id="f3" sourceRef="fulfil" targetRef="end"/>
  </bpmn:process>
  <bpmn:process id="draft" isExecutable="false"/>
  <bpmndi:BPMNDiagram id="diagram">
    <bpmndi:BPMNPlane id="plane" bpmnElement="collab">
      <bpmndi:BPMNShape id="start_di" bpmnElement="start"><dc:Bounds x="10" y="20" width="36" height="36"/></bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>`;

describe('compiled model', () => {
  const model = compileOk(ORDER);
  const proc = onlyProcess(model);

  it('has the executable process with every node and flow, nested ones included, in document order', () => {
    expect(proc).toMatchObject({ id: 'order', name: 'Order', isExecutable: true, startEvents: ['start'], noneStartEvent: 'start', eventSubProcesses: [] });
    expect(Object.keys(proc.elements)).toEqual(['start', 'check', 'approve', 'fulfil', 'fStart', 'waitPay', 'fEnd', 'end']);
    expect(Object.keys(proc.flows)).toEqual(['ff1', 'ff2', 'f1', 'big', 'small', 'f2', 'f3']);
  });

  it('fills parents, incoming and outgoing flows in document order, and defaults', () => {
    expect(proc.elements.check).toEqual({
      id: 'check',
      name: 'Big?',
      type: 'exclusiveGateway',
      parent: null,
      incoming: ['f1'],
      outgoing: ['big', 'small'],
      defaultFlow: 'small',
      inputs: [],
      outputs: [],
      boundaryEvents: [],
    });
    expect(proc.elements.fulfil.incoming).toEqual(['small', 'f2']);
    expect(proc.elements.waitPay.parent).toBe('fulfil');
    expect(proc.flows.big).toEqual({ id: 'big', name: 'yes', sourceRef: 'check', targetRef: 'approve', condition: 'amount > 100' });
  });

  it('fills containers', () => {
    expect(proc.elements.fulfil).toMatchObject({
      type: 'subProcess',
      triggeredByEvent: false,
      children: ['fStart', 'waitPay', 'fEnd'],
      startEvents: ['fStart'],
      eventSubProcesses: [],
    });
  });

  it('fills events and jobs', () => {
    expect(proc.elements.end.eventDefinition).toEqual({ kind: 'terminate' });
    expect(proc.elements.start.eventDefinition).toEqual({ kind: 'none' });
    expect(proc.elements.approve.job).toEqual({ type: { kind: 'literal', value: 'approve' }, retries: { kind: 'feel', source: 'tries' }, headers: {} });
    expect(proc.elements.waitPay.job?.type).toEqual({ kind: 'literal', value: 'message:payment-received' });
  });

  it('keeps lanes, participants, non-executable processes, warnings and the raw diagram', () => {
    expect(model.lanes).toEqual([{ id: 'lane', name: 'Sales', processId: 'order', flowNodeRefs: ['start'] }]);
    expect(model.participants).toEqual([{ id: 'pool', name: 'Shop', processRef: 'order' }]);
    expect(model.nonExecutableProcesses).toEqual(['draft']);
    // The draft process is ignored; the receive task waitPay is a job, not a message subscription.
    expect(model.warnings.map((w) => [w.elementId, w.code])).toEqual([
      ['draft', 'PROCESS_NOT_EXECUTABLE'],
      ['waitPay', 'MESSAGE_WAIT_IS_JOB'],
    ]);
    const diagram = model.diagram as { local: string; attrs: Record<string, string>; children: { local: string }[] }[];
    expect(diagram).toHaveLength(1);
    expect(diagram[0]).toMatchObject({ local: 'BPMNDiagram', attrs: { id: 'diagram' } });
    expect(diagram[0].children[0].local).toBe('BPMNPlane');
  });

  it('is plain JSON data', () => {
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });

  it('keeps element ids that look like Object.prototype members as ordinary keys', () => {
    const xml = ORDER.replaceAll('"approve"', '"__proto__"').replace('type="__proto__"', 'type="approve"');
    const p = onlyProcess(compileOk(xml));
    expect(Object.keys(p.elements)).toContain('__proto__');
    expect(Object.hasOwn(p.elements, '__proto__')).toBe(true);
    expect(p.elements.__proto__.type).toBe('serviceTask');
  });
});
