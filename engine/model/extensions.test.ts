import { describe, expect, it } from 'vitest';
import { bpmnDoc, chain, compileOk, node, onlyProcess, readFirstProcess, readNode } from './test-fixtures.ts';

const ext = (inner: string) => `<bpmn:extensionElements>${inner}</bpmn:extensionElements>`;

describe('zeebe:taskDefinition', () => {
  it('reads a literal type and retries', () => {
    const xml = bpmnDoc(chain(['t'], [`<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="charge-card" retries="5"/>')}</bpmn:serviceTask>`]));
    expect(node(xml, 't').job).toEqual({ type: { kind: 'literal', value: 'charge-card' }, retries: { kind: 'literal', value: '5' }, headers: {} });
  });

  it('reads FEEL type and retries (leading = stripped)', () => {
    const xml = bpmnDoc(
      chain(['t'], [`<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="=&#34;task-&#34; + kind" retries="= tries + 1"/>')}</bpmn:serviceTask>`]),
    );
    expect(node(xml, 't').job).toEqual({ type: { kind: 'feel', source: '"task-" + kind' }, retries: { kind: 'feel', source: 'tries + 1' }, headers: {} });
  });

  it('defaults retries to "3"', () => {
    const xml = bpmnDoc(chain(['t'], [`<bpmn:sendTask id="t">${ext('<zeebe:taskDefinition type="mail"/>')}</bpmn:sendTask>`]));
    expect(node(xml, 't').job?.retries).toEqual({ kind: 'literal', value: '3' });
  });
});

describe('zeebe:taskHeaders', () => {
  it('become job headers, in order, values kept as written', () => {
    const xml = bpmnDoc(
      chain(
        ['t'],
        [
          `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="x"/><zeebe:taskHeaders><zeebe:header key="b" value="2"/><zeebe:header key="a" value="=not FEEL"/><zeebe:header key="__proto__" value="safe"/></zeebe:taskHeaders>')}</bpmn:serviceTask>`,
        ],
      ),
    );
    const headers = node(xml, 't').job?.headers ?? {};
    expect(Object.keys(headers)).toEqual(['b', 'a', '__proto__']);
    expect(headers.b).toBe('2');
    expect(headers.a).toBe('=not FEEL');
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toBe('safe');
  });
});

describe('zeebe:ioMapping', () => {
  const mapped = bpmnDoc(
    chain(
      ['t'],
      [
        `<bpmn:serviceTask id="t">${ext(`<zeebe:taskDefinition type="x"/><zeebe:ioMapping>
          <zeebe:input source="= order.total" target="total"/>
          <zeebe:input source="plain text" target="label"/>
          <zeebe:input source="" target="empty"/>
          <zeebe:input target="missing"/>
          <zeebe:output source="=result" target="order.result"/>
        </zeebe:ioMapping>`)}</bpmn:serviceTask>`,
      ],
    ),
  );

  it('turns =expr into FEEL source and literals into FEEL string literals', () => {
    const t = node(mapped, 't');
    expect(t.inputs).toEqual([
      { source: 'order.total', target: 'total' },
      { source: '"plain text"', target: 'label' },
      { source: '""', target: 'empty' },
      { source: 'null', target: 'missing' },
    ]);
    expect(t.outputs).toEqual([{ source: 'result', target: 'order.result' }]);
  });

  it('is read on events too (start event outputs, end event inputs)', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s">${ext('<zeebe:ioMapping><zeebe:output source="=0" target="count"/></zeebe:ioMapping>')}</bpmn:startEvent>
      <bpmn:endEvent id="e">${ext('<zeebe:ioMapping><zeebe:input source="=count" target="n"/></zeebe:ioMapping>')}</bpmn:endEvent>
      <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e"/>`);
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.s.outputs).toEqual([{ source: '0', target: 'count' }]);
    expect(proc.elements.e.inputs).toEqual([{ source: 'count', target: 'n' }]);
  });
});

describe('zeebe:script', () => {
  it('fills FlowNode.script and the job headers', () => {
    const xml = bpmnDoc(
      chain(['t'], [`<bpmn:scriptTask id="t" name="Sum">${ext('<zeebe:script expression="=a + b" resultVariable="sum"/>')}</bpmn:scriptTask>`]),
    );
    const t = node(xml, 't');
    expect(t.script).toEqual({ expression: 'a + b', resultVariable: 'sum' });
    expect(t.job?.headers).toEqual({ 'script.expression': 'a + b', 'script.resultVariable': 'sum' });
  });
});

describe('extensions on elements Orca does not run yet (read, then rejected by support.ts)', () => {
  it('zeebe:calledElement with propagation defaults true', () => {
    const xml = bpmnDoc(
      chain(
        ['c', 'd'],
        [
          `<bpmn:callActivity id="c">${ext('<zeebe:calledElement processId="child" propagateAllChildVariables="false"/>')}</bpmn:callActivity>`,
          `<bpmn:callActivity id="d">${ext('<zeebe:calledElement processId="=childId"/>')}</bpmn:callActivity>`,
        ],
      ),
    );
    expect(readNode(xml, 'c').calledElement).toEqual({
      processId: { kind: 'literal', value: 'child' },
      propagateAllChildVariables: false,
      propagateAllParentVariables: true,
    });
    expect(readNode(xml, 'd').calledElement).toEqual({
      processId: { kind: 'feel', source: 'childId' },
      propagateAllChildVariables: true,
      propagateAllParentVariables: true,
    });
  });

  it('zeebe:calledDecision, and no job for a decision task', () => {
    const xml = bpmnDoc(
      chain(['b'], [`<bpmn:businessRuleTask id="b">${ext('<zeebe:calledDecision decisionId="risk" resultVariable="risk"/>')}</bpmn:businessRuleTask>`]),
    );
    const b = readNode(xml, 'b');
    expect(b.calledDecision).toEqual({ decisionId: { kind: 'literal', value: 'risk' }, resultVariable: 'risk' });
    expect(b.job).toBeUndefined();
  });

  it('zeebe:loopCharacteristics with = stripped from FEEL parts', () => {
    const xml = bpmnDoc(
      chain(
        ['t'],
        [
          `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="x"/>')}
        <bpmn:multiInstanceLoopCharacteristics isSequential="true">${ext('<zeebe:loopCharacteristics inputCollection="= items" inputElement="item" outputCollection="results" outputElement="={id: item.id}" completionCondition="=done"/>')}</bpmn:multiInstanceLoopCharacteristics>
      </bpmn:serviceTask>`,
        ],
      ),
    );
    expect(readNode(xml, 't').loop).toEqual({
      sequential: true,
      inputCollection: 'items',
      inputElement: 'item',
      outputCollection: 'results',
      outputElement: '{id: item.id}',
      completionCondition: 'done',
    });
  });

  it('classic loopCardinality and completionCondition children', () => {
    const xml = bpmnDoc(
      chain(
        ['t'],
        [
          `<bpmn:userTask id="t"><bpmn:multiInstanceLoopCharacteristics>
        <bpmn:loopCardinality xsi:type="bpmn:tFormalExpression">3</bpmn:loopCardinality>
        <bpmn:completionCondition xsi:type="bpmn:tFormalExpression">=count &gt; 1</bpmn:completionCondition>
      </bpmn:multiInstanceLoopCharacteristics></bpmn:userTask>`,
        ],
      ),
    );
    expect(readNode(xml, 't').loop).toEqual({ sequential: false, loopCardinality: '3', completionCondition: 'count > 1' });
  });
});

describe('event definitions', () => {
  const root = `
    <bpmn:message id="m1" name="order-paid"><bpmn:extensionElements><zeebe:subscription correlationKey="= orderId"/></bpmn:extensionElements></bpmn:message>
    <bpmn:message id="m2" name="=&#34;paid-&#34; + region"/>
    <bpmn:error id="err" name="Payment failed" errorCode="PAYMENT_FAILED"/>
    <bpmn:escalation id="esc" name="late" escalationCode="LATE"/>
    <bpmn:signal id="sig" name="shutdown"/>`;

  function read(body: string) {
    return readFirstProcess(bpmnDoc(body, { root }));
  }

  it('message: name (literal or FEEL) and zeebe:subscription correlationKey', () => {
    const p = read(`
      <bpmn:intermediateCatchEvent id="a"><bpmn:messageEventDefinition messageRef="m1"/></bpmn:intermediateCatchEvent>
      <bpmn:intermediateCatchEvent id="b"><bpmn:messageEventDefinition messageRef="m2"/></bpmn:intermediateCatchEvent>`);
    expect(p.nodes.get('a')?.node.eventDefinition).toEqual({
      kind: 'message',
      messageName: { kind: 'literal', value: 'order-paid' },
      correlationKey: 'orderId',
    });
    expect(p.nodes.get('b')?.node.eventDefinition).toEqual({ kind: 'message', messageName: { kind: 'feel', source: '"paid-" + region' } });
  });

  it('timer: duration, date and cycle, literal or FEEL', () => {
    const p = read(`
      <bpmn:intermediateCatchEvent id="d"><bpmn:timerEventDefinition><bpmn:timeDuration>PT5M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
      <bpmn:intermediateCatchEvent id="t"><bpmn:timerEventDefinition><bpmn:timeDate>=now() + duration("P1D")</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
      <bpmn:startEvent id="c"><bpmn:timerEventDefinition><bpmn:timeCycle>R/P1D</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>`);
    expect(p.nodes.get('d')?.node.eventDefinition).toEqual({ kind: 'timer', timer: { type: 'duration', expr: { kind: 'literal', value: 'PT5M' } } });
    expect(p.nodes.get('t')?.node.eventDefinition).toEqual({
      kind: 'timer',
      timer: { type: 'date', expr: { kind: 'feel', source: 'now() + duration("P1D")' } },
    });
    expect(p.nodes.get('c')?.node.eventDefinition).toEqual({ kind: 'timer', timer: { type: 'cycle', expr: { kind: 'literal', value: 'R/P1D' } } });
  });

  it('error, escalation, signal, link, terminate, compensate, conditional', () => {
    const p = read(`
      <bpmn:task id="host"/>
      <bpmn:endEvent id="errEnd"><bpmn:errorEventDefinition errorRef="err"/></bpmn:endEvent>
      <bpmn:boundaryEvent id="catchAll" attachedToRef="host" cancelActivity="false"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>
      <bpmn:intermediateThrowEvent id="escThrow"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:intermediateThrowEvent>
      <bpmn:endEvent id="sigEnd"><bpmn:signalEventDefinition signalRef="sig"/></bpmn:endEvent>
      <bpmn:intermediateThrowEvent id="link"><bpmn:linkEventDefinition name="toB"/></bpmn:intermediateThrowEvent>
      <bpmn:endEvent id="term"><bpmn:terminateEventDefinition/></bpmn:endEvent>
      <bpmn:intermediateThrowEvent id="comp"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>
      <bpmn:intermediateCatchEvent id="cond"><bpmn:conditionalEventDefinition><bpmn:condition>=x</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:intermediateCatchEvent>`);
    const def = (id: string) => p.nodes.get(id)?.node.eventDefinition;
    expect(def('errEnd')).toEqual({ kind: 'error', errorCode: 'PAYMENT_FAILED', errorName: 'Payment failed' });
    expect(def('catchAll')).toEqual({ kind: 'error' });
    expect(p.nodes.get('catchAll')?.node).toMatchObject({ attachedTo: 'host', cancelActivity: false });
    expect(p.nodes.get('host')?.node.boundaryEvents).toEqual(['catchAll']);
    expect(def('escThrow')).toEqual({ kind: 'escalation', escalationCode: 'LATE' });
    expect(def('sigEnd')).toEqual({ kind: 'signal', signalName: 'shutdown' });
    expect(def('link')).toEqual({ kind: 'link', linkName: 'toB' });
    expect(def('term')).toEqual({ kind: 'terminate' });
    expect(def('comp')).toEqual({ kind: 'compensate' });
    expect(def('cond')).toEqual({ kind: 'conditional' });
  });

  it('boundary events interrupt by default; event subprocess starts carry isInterrupting', () => {
    const p = read(`
      <bpmn:task id="host"/>
      <bpmn:boundaryEvent id="b" attachedToRef="host"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
      <bpmn:subProcess id="esp" triggeredByEvent="true">
        <bpmn:startEvent id="espStart" isInterrupting="false"><bpmn:messageEventDefinition messageRef="m1"/></bpmn:startEvent>
      </bpmn:subProcess>`);
    expect(p.nodes.get('b')?.node.cancelActivity).toBe(true);
    expect(p.nodes.get('espStart')?.node.isInterrupting).toBe(false);
    expect(p.nodes.get('esp')?.node).toMatchObject({ triggeredByEvent: true, startEvents: ['espStart'], children: ['espStart'] });
    expect(p.eventSubProcesses).toEqual(['esp']);
    expect(p.startEvents).toEqual([]);
  });
});

describe('extensions Orca does not act on', () => {
  it('accepts and ignores userTask, formDefinition, assignmentDefinition, taskSchedule, executionListeners, properties', () => {
    const xml = bpmnDoc(
      chain(
        ['u'],
        [
          `<bpmn:userTask id="u">${ext(`
          <zeebe:userTask/><zeebe:formDefinition formId="f"/><zeebe:assignmentDefinition assignee="a"/>
          <zeebe:taskSchedule dueDate="2030-01-01T00:00:00Z"/>
          <zeebe:executionListeners><zeebe:executionListener eventType="start" type="x"/></zeebe:executionListeners>
          <zeebe:properties><zeebe:property name="k" value="v"/></zeebe:properties>`)}</bpmn:userTask>`,
        ],
      ),
    );
    expect(node(xml, 'u').job).toEqual({ type: { kind: 'literal', value: 'userTask' }, retries: { kind: 'literal', value: '3' }, headers: {} });
  });
});
