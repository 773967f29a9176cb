import { describe, expect, it } from 'vitest';
import { compileBpmn } from './compile.ts';
import { SUPPORT, unsupportedMessage } from './support.ts';
import { bpmnDoc, chain, compileOk, messagesFor, problemsOf } from './test-fixtures.ts';

const ext = (inner: string) => `<bpmn:extensionElements>${inner}</bpmn:extensionElements>`;
const timer = '<bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition>';
const ROOT = '<bpmn:message id="m" name="msg"/><bpmn:error id="err" errorCode="E"/><bpmn:escalation id="esc" escalationCode="X"/><bpmn:signal id="sig" name="S"/>';

describe('supported now', () => {
  it('compiles every element kind SUPPORTED NOW', () => {
    const xml = bpmnDoc(
      `
      <bpmn:startEvent id="s"/>
      <bpmn:task id="task"/>
      <bpmn:manualTask id="manual"/>
      <bpmn:serviceTask id="service">${ext('<zeebe:taskDefinition type="a"/>')}</bpmn:serviceTask>
      <bpmn:sendTask id="send">${ext('<zeebe:taskDefinition type="b"/>')}</bpmn:sendTask>
      <bpmn:scriptTask id="script">${ext('<zeebe:script expression="=1" resultVariable="r"/>')}</bpmn:scriptTask>
      <bpmn:userTask id="user"/>
      <bpmn:receiveTask id="receive" messageRef="m"/>
      <bpmn:businessRuleTask id="rules">${ext('<zeebe:taskDefinition type="c"/>')}</bpmn:businessRuleTask>
      <bpmn:intermediateCatchEvent id="catch"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>
      <bpmn:intermediateThrowEvent id="throw"/>
      <bpmn:exclusiveGateway id="xor"/>
      <bpmn:parallelGateway id="and"/>
      <bpmn:inclusiveGateway id="or"/>
      <bpmn:subProcess id="sub"><bpmn:startEvent id="subStart"/><bpmn:endEvent id="subEnd"/><bpmn:sequenceFlow id="sf" sourceRef="subStart" targetRef="subEnd"/></bpmn:subProcess>
      <bpmn:endEvent id="end"/>
      <bpmn:endEvent id="terminate"><bpmn:terminateEventDefinition/></bpmn:endEvent>`,
      { root: ROOT },
    );
    const proc = compileOk(xml).processes[0];
    expect(Object.keys(proc.elements)).toHaveLength(19);
    expect(proc.elements.sub).toMatchObject({ type: 'subProcess', triggeredByEvent: false, children: ['subStart', 'subEnd'], startEvents: ['subStart'], eventSubProcesses: [] });
    expect(proc.elements.subStart.parent).toBe('sub');
  });

  it('accepts descriptive elements: data objects, data stores, annotations, associations, groups, lanes, participants, message flows', () => {
    const xml = `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <bpmn:collaboration id="c">
    <bpmn:participant id="pool" name="Pool" processRef="p"/>
    <bpmn:participant id="ext" name="Customer"/>
    <bpmn:messageFlow id="mf" sourceRef="ext" targetRef="t"/>
    <bpmn:group id="grp" categoryValueRef="cv"/>
  </bpmn:collaboration>
  <bpmn:category id="cat"><bpmn:categoryValue id="cv" value="Stage"/></bpmn:category>
  <bpmn:process id="p" isExecutable="true">
    <bpmn:laneSet id="ls">
      <bpmn:lane id="l1" name="Clerk"><bpmn:flowNodeRef>s</bpmn:flowNodeRef>
        <bpmn:childLaneSet id="cls"><bpmn:lane id="l1a" name="Junior"><bpmn:flowNodeRef>t</bpmn:flowNodeRef></bpmn:lane></bpmn:childLaneSet>
      </bpmn:lane>
      <bpmn:lane id="l2"><bpmn:flowNodeRef>e</bpmn:flowNodeRef></bpmn:lane>
    </bpmn:laneSet>
    <bpmn:dataObject id="do"/><bpmn:dataObjectReference id="dor" dataObjectRef="do"/>
    <bpmn:dataStoreReference id="dsr"/>
    <bpmn:textAnnotation id="ta"><bpmn:text>note</bpmn:text></bpmn:textAnnotation>
    <bpmn:association id="as" sourceRef="t" targetRef="ta"/>
    <bpmn:startEvent id="s"/>
    <bpmn:task id="t"><bpmn:dataOutputAssociation id="doa"><bpmn:targetRef>dor</bpmn:targetRef></bpmn:dataOutputAssociation></bpmn:task>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`;
    const model = compileOk(xml);
    expect(Object.keys(model.processes[0].elements)).toEqual(['s', 't', 'e']);
    expect(model.participants).toEqual([{ id: 'pool', name: 'Pool', processRef: 'p' }, { id: 'ext', name: 'Customer' }]);
    expect(model.lanes).toEqual([
      { id: 'l1', name: 'Clerk', processId: 'p', flowNodeRefs: ['s'] },
      { id: 'l1a', name: 'Junior', processId: 'p', flowNodeRefs: ['t'] },
      { id: 'l2', processId: 'p', flowNodeRefs: ['e'] },
    ]);
  });
});

describe('not supported yet, or never', () => {
  const cases: [label: string, element: string, id: string, expected: string][] = [
    ['timer start', `<bpmn:startEvent id="x">${timer}</bpmn:startEvent>`, 'x', "Timer start event 'x' is not yet supported by Orca."],
    ['timer catch', `<bpmn:intermediateCatchEvent id="x">${timer}</bpmn:intermediateCatchEvent>`, 'x', "Timer intermediate catch event 'x' is not yet supported by Orca."],
    ['timer boundary', `<bpmn:boundaryEvent id="x" attachedToRef="host">${timer}</bpmn:boundaryEvent>`, 'x', "Timer boundary event 'x' is not yet supported by Orca."],
    ['non-interrupting timer boundary', `<bpmn:boundaryEvent id="x" attachedToRef="host" cancelActivity="false">${timer}</bpmn:boundaryEvent>`, 'x', "Non-interrupting timer boundary event 'x' is not yet supported by Orca."],
    ['message boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>', 'x', "Message boundary event 'x' is not yet supported by Orca: SPEC.md has no API"],
    ['error boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:errorEventDefinition errorRef="err"/></bpmn:boundaryEvent>', 'x', "Error boundary event 'x' is not yet supported by Orca."],
    ['error end', '<bpmn:endEvent id="x"><bpmn:errorEventDefinition errorRef="err"/></bpmn:endEvent>', 'x', "Error end event 'x' is not yet supported by Orca."],
    ['escalation throw', '<bpmn:intermediateThrowEvent id="x"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:intermediateThrowEvent>', 'x', "Escalation intermediate throw event 'x' is not yet supported by Orca."],
    ['escalation end', '<bpmn:endEvent id="x"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:endEvent>', 'x', "Escalation end event 'x' is not yet supported by Orca."],
    ['link throw', '<bpmn:intermediateThrowEvent id="x"><bpmn:linkEventDefinition name="L"/></bpmn:intermediateThrowEvent>', 'x', "Link intermediate throw event 'x' is not yet supported by Orca."],
    ['link catch', '<bpmn:intermediateCatchEvent id="x"><bpmn:linkEventDefinition name="L"/></bpmn:intermediateCatchEvent>', 'x', "Link intermediate catch event 'x' is not yet supported by Orca."],
    ['compensation throw', '<bpmn:intermediateThrowEvent id="x"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>', 'x', "Compensation intermediate throw event 'x' is not yet supported by Orca."],
    ['compensation boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>', 'x', "Compensation boundary event 'x' is not yet supported by Orca."],
    ['conditional catch', '<bpmn:intermediateCatchEvent id="x"><bpmn:conditionalEventDefinition><bpmn:condition>=a</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:intermediateCatchEvent>', 'x', "Conditional intermediate catch event 'x' is not yet supported by Orca."],
    ['message start', '<bpmn:startEvent id="x"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent>', 'x', "Message start event 'x' is not yet supported by Orca: instances start through POST /api/v1/process-instances and SPEC.md has no API that publishes or correlates messages (SPEC.md Events); use a none start event."],
    ['message end', '<bpmn:endEvent id="x"><bpmn:messageEventDefinition messageRef="m"/></bpmn:endEvent>', 'x', "Message end event 'x' is not yet supported by Orca: Orca publishes no messages (SPEC.md Events)"],
    ['message throw', '<bpmn:intermediateThrowEvent id="x"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateThrowEvent>', 'x', "Message intermediate throw event 'x' is not yet supported by Orca: Orca publishes no messages (SPEC.md Events)"],
    ['signal throw', '<bpmn:intermediateThrowEvent id="x"><bpmn:signalEventDefinition signalRef="sig"/></bpmn:intermediateThrowEvent>', 'x', "Signal intermediate throw event 'x' is not supported: Orca has no signal API (SPEC.md Events)."],
    ['signal catch', '<bpmn:intermediateCatchEvent id="x"><bpmn:signalEventDefinition signalRef="sig"/></bpmn:intermediateCatchEvent>', 'x', "Signal intermediate catch event 'x' is not supported: Orca has no signal API (SPEC.md Events)."],
    ['signal start', '<bpmn:startEvent id="x"><bpmn:signalEventDefinition signalRef="sig"/></bpmn:startEvent>', 'x', "Signal start event 'x' is not supported: Orca has no signal API (SPEC.md Events)."],
    ['signal end', '<bpmn:endEvent id="x"><bpmn:signalEventDefinition signalRef="sig"/></bpmn:endEvent>', 'x', "Signal end event 'x' is not supported: Orca has no signal API (SPEC.md Events)."],
    ['signal boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:signalEventDefinition signalRef="sig"/></bpmn:boundaryEvent>', 'x', "Signal boundary event 'x' is not supported: Orca has no signal API (SPEC.md Events)."],
    ['event-based gateway', '<bpmn:eventBasedGateway id="x"/>', 'x', "Event-based gateway 'x' is not yet supported by Orca."],
    ['complex gateway', '<bpmn:complexGateway id="x"/>', 'x', "Complex gateway 'x' is not yet supported by Orca."],
    ['call activity', `<bpmn:callActivity id="x">${ext('<zeebe:calledElement processId="child"/>')}</bpmn:callActivity>`, 'x', "Call activity 'x' is not yet supported by Orca."],
    ['multi-instance', `<bpmn:userTask id="x"><bpmn:multiInstanceLoopCharacteristics/></bpmn:userTask>`, 'x', "Multi-instance user task 'x' is not yet supported by Orca."],
    ['standard loop', '<bpmn:task id="x"><bpmn:standardLoopCharacteristics/></bpmn:task>', 'x', "Task 'x' with a standard loop is not yet supported by Orca."],
    ['compensation handler', '<bpmn:task id="x" isForCompensation="true"/>', 'x', "Task 'x' as a compensation handler (isForCompensation) is not yet supported by Orca."],
    ['ad-hoc subprocess', '<bpmn:adHocSubProcess id="x"><bpmn:task id="inside"/></bpmn:adHocSubProcess>', 'x', "Ad-hoc subprocess 'x' is not yet supported by Orca."],
    ['transaction', '<bpmn:transaction id="x"><bpmn:startEvent id="ts"/></bpmn:transaction>', 'x', "Transaction subprocess 'x' is not yet supported by Orca."],
    ['decision task', `<bpmn:businessRuleTask id="x">${ext('<zeebe:calledDecision decisionId="d" resultVariable="r"/>')}</bpmn:businessRuleTask>`, 'x', "Business rule task 'x' with a called decision (zeebe:calledDecision) is not yet supported by Orca."],
    ['event subprocess', '<bpmn:subProcess id="x" triggeredByEvent="true"><bpmn:startEvent id="xs"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent></bpmn:subProcess>', 'x', "Event subprocess 'x' is not yet supported by Orca."],
    ['start of an event subprocess', '<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="x" isInterrupting="false"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent></bpmn:subProcess>', 'x', "Non-interrupting message start event 'x' of an event subprocess is not yet supported by Orca: SPEC.md has no API"],
    ['unknown BPMN element', '<bpmn:choreographyTask id="x"/>', 'x', "Choreography task 'x' is not supported by Orca."],
  ];

  it.each(cases)('%s', (_label, element, id, expected) => {
    const xml = bpmnDoc(`${chain(['host'], ['<bpmn:task id="host"/>'])}${element}`, { root: ROOT });
    const messages = messagesFor(problemsOf(xml), id);
    expect(messages).toHaveLength(1);
    expect(messages[0].startsWith(expected), `${messages[0]}\n  should start with\n${expected}`).toBe(true);
  });

  it('says "not yet" for planned elements and "not supported" without "yet" for signals', () => {
    for (const [key, entry] of Object.entries(SUPPORT)) {
      if (entry.status === 'never' || entry.status === 'invalid') expect(entry.reason, key).toBeTruthy();
    }
    const signal = unsupportedMessage({ kind: 'endEvent', eventKind: 'signal', scope: 'process' }, 'a') ?? '';
    const timer = unsupportedMessage({ kind: 'endEvent', eventKind: 'error', scope: 'process' }, 'b') ?? '';
    expect(signal).not.toContain('yet');
    expect(timer).toContain('not yet supported');
  });

  it('is decided by the data in SUPPORT (flipping an entry flips the verdict)', () => {
    const query = { kind: 'eventBasedGateway', scope: 'process' as const };
    expect(unsupportedMessage(query, 'g')).toContain('not yet supported');
    const saved = SUPPORT.eventBasedGateway;
    (SUPPORT as Record<string, (typeof SUPPORT)[string]>).eventBasedGateway = { status: 'supported' };
    try {
      expect(unsupportedMessage(query, 'g')).toBeUndefined();
    } finally {
      (SUPPORT as Record<string, (typeof SUPPORT)[string]>).eventBasedGateway = saved;
    }
  });

  it('reports each unsupported element once, with its own id, even nested inside another unsupported one', () => {
    const xml = bpmnDoc(chain(['sub'], [`<bpmn:subProcess id="sub"><bpmn:multiInstanceLoopCharacteristics/><bpmn:startEvent id="in"/><bpmn:callActivity id="call"/><bpmn:sequenceFlow id="x" sourceRef="in" targetRef="call"/></bpmn:subProcess>`]));
    const problems = problemsOf(xml);
    expect(problems.map((p) => p.elementId)).toEqual(['sub', 'call']);
  });

  it('a model with unsupported elements is rejected as a whole', () => {
    expect(compileBpmn(bpmnDoc(`${chain([], [])}<bpmn:complexGateway id="cg"/>`)).ok).toBe(false);
  });
});
