import { describe, expect, it } from 'vitest';
import { compileBpmn } from './compile.ts';
import { SUPPORT, unsupportedMessage } from './support.ts';
import { bpmnDoc, chain, compileOk, messagesFor, problemsOf } from './test-fixtures.ts';

const ext = (inner: string) => `<bpmn:extensionElements>${inner}</bpmn:extensionElements>`;
const timer = '<bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition>';
const ROOT =
  '<bpmn:message id="m" name="msg"/><bpmn:error id="err" errorCode="E"/><bpmn:escalation id="esc" escalationCode="X"/><bpmn:signal id="sig" name="S"/>';

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
    expect(proc.elements.sub).toMatchObject({
      type: 'subProcess',
      triggeredByEvent: false,
      children: ['subStart', 'subEnd'],
      startEvents: ['subStart'],
      eventSubProcesses: [],
    });
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
    expect(model.participants).toEqual([
      { id: 'pool', name: 'Pool', processRef: 'p' },
      { id: 'ext', name: 'Customer' },
    ]);
    expect(model.lanes).toEqual([
      { id: 'l1', name: 'Clerk', processId: 'p', flowNodeRefs: ['s'] },
      { id: 'l1a', name: 'Junior', processId: 'p', flowNodeRefs: ['t'] },
      { id: 'l2', processId: 'p', flowNodeRefs: ['e'] },
    ]);
  });
});

describe('supported since the runtime learned them', () => {
  const ebgTargets =
    `<bpmn:intermediateCatchEvent id="late">${timer}</bpmn:intermediateCatchEvent>` +
    '<bpmn:intermediateCatchEvent id="reply"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>' +
    '<bpmn:sequenceFlow id="g1" sourceRef="x" targetRef="late"/><bpmn:sequenceFlow id="g2" sourceRef="x" targetRef="reply"/>';
  const loop = (sequential: boolean) =>
    `<bpmn:multiInstanceLoopCharacteristics isSequential="${sequential}">${ext('<zeebe:loopCharacteristics inputCollection="=items" inputElement="item"/>')}</bpmn:multiInstanceLoopCharacteristics>`;
  const eventSubProcess = (start: string) =>
    `<bpmn:subProcess id="x" triggeredByEvent="true">${start}<bpmn:endEvent id="xe"/><bpmn:sequenceFlow id="xf" sourceRef="xs" targetRef="xe"/></bpmn:subProcess>`;
  const cases: [label: string, element: string][] = [
    ['timer start', '<bpmn:startEvent id="x"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>'],
    ['timer catch', `<bpmn:intermediateCatchEvent id="x">${timer}</bpmn:intermediateCatchEvent>`],
    ['timer boundary', `<bpmn:boundaryEvent id="x" attachedToRef="host">${timer}</bpmn:boundaryEvent>`],
    ['non-interrupting timer boundary', `<bpmn:boundaryEvent id="x" attachedToRef="host" cancelActivity="false">${timer}</bpmn:boundaryEvent>`],
    ['error boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:errorEventDefinition errorRef="err"/></bpmn:boundaryEvent>'],
    ['catch-all error boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>'],
    ['escalation boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:boundaryEvent>'],
    [
      'non-interrupting escalation boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host" cancelActivity="false"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:boundaryEvent>',
    ],
    ['error end', '<bpmn:endEvent id="x"><bpmn:errorEventDefinition errorRef="err"/></bpmn:endEvent>'],
    ['escalation end', '<bpmn:endEvent id="x"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:endEvent>'],
    ['escalation throw', '<bpmn:intermediateThrowEvent id="x"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:intermediateThrowEvent>'],
    [
      'link throw and catch',
      '<bpmn:intermediateThrowEvent id="x"><bpmn:linkEventDefinition name="L"/></bpmn:intermediateThrowEvent><bpmn:intermediateCatchEvent id="xc"><bpmn:linkEventDefinition name="L"/></bpmn:intermediateCatchEvent>',
    ],
    ['event-based gateway', `<bpmn:eventBasedGateway id="x"/>${ebgTargets}`],
    ['call activity', `<bpmn:callActivity id="x">${ext('<zeebe:calledElement processId="child"/>')}</bpmn:callActivity>`],
    ['parallel multi-instance', `<bpmn:userTask id="x">${loop(false)}</bpmn:userTask>`],
    ['sequential multi-instance', `<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="t"/>')}${loop(true)}</bpmn:serviceTask>`],
    ['multi-instance subprocess', `<bpmn:subProcess id="x">${loop(false)}<bpmn:startEvent id="xs"/></bpmn:subProcess>`],
    ['decision task', `<bpmn:businessRuleTask id="x">${ext('<zeebe:calledDecision decisionId="d" resultVariable="r"/>')}</bpmn:businessRuleTask>`],
    ['event subprocess with a timer start', eventSubProcess(`<bpmn:startEvent id="xs">${timer}</bpmn:startEvent>`)],
    [
      'event subprocess with a non-interrupting timer cycle start',
      eventSubProcess(
        `<bpmn:startEvent id="xs" isInterrupting="false"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>`,
      ),
    ],
    ['event subprocess with a non-interrupting timer start', eventSubProcess(`<bpmn:startEvent id="xs" isInterrupting="false">${timer}</bpmn:startEvent>`)],
    // Messages (extension): only a published message triggers these; throw and end events are jobs like send tasks.
    ['message boundary', '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>'],
    [
      'non-interrupting message boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host" cancelActivity="false"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>',
    ],
    ['message start', '<bpmn:startEvent id="x"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent>'],
    ['message end', `<bpmn:endEvent id="x">${ext('<zeebe:taskDefinition type="notify"/>')}<bpmn:messageEventDefinition messageRef="m"/></bpmn:endEvent>`],
    [
      'message throw',
      `<bpmn:intermediateThrowEvent id="x">${ext('<zeebe:taskDefinition type="notify"/>')}<bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateThrowEvent>`,
    ],
    ['event subprocess with a message start', eventSubProcess('<bpmn:startEvent id="xs"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent>')],
    [
      'event subprocess with a non-interrupting message start',
      eventSubProcess('<bpmn:startEvent id="xs" isInterrupting="false"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent>'),
    ],
    ['event subprocess with an error start', eventSubProcess('<bpmn:startEvent id="xs"><bpmn:errorEventDefinition errorRef="err"/></bpmn:startEvent>')],
    [
      'event subprocess with an escalation start',
      eventSubProcess('<bpmn:startEvent id="xs" isInterrupting="false"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:startEvent>'),
    ],
  ];

  it.each(cases)('%s', (_label, element) => {
    const model = compileOk(bpmnDoc(`${chain(['host'], ['<bpmn:task id="host"/>'])}${element}`, { root: ROOT }));
    expect(model.processes[0].elements.x).toBeDefined();
  });

  it('compiles a process that uses them together, with what the runtime needs filled in', () => {
    const body = `
      <bpmn:startEvent id="s"/>
      <bpmn:startEvent id="nightly"><bpmn:timerEventDefinition><bpmn:timeCycle>0 0 2 * * *</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>
      <bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="=target" propagateAllChildVariables="false"/>')}${loop(true)}</bpmn:callActivity>
      <bpmn:boundaryEvent id="deadline" attachedToRef="call">${timer}</bpmn:boundaryEvent>
      <bpmn:boundaryEvent id="failed" attachedToRef="call"><bpmn:errorEventDefinition errorRef="err"/></bpmn:boundaryEvent>
      <bpmn:businessRuleTask id="decide">${ext('<zeebe:calledDecision decisionId="discount" resultVariable="rate"/>')}</bpmn:businessRuleTask>
      <bpmn:endEvent id="e"/>
      <bpmn:endEvent id="fail"><bpmn:errorEventDefinition errorRef="err"/></bpmn:endEvent>
      <bpmn:subProcess id="onEscalation" triggeredByEvent="true">
        <bpmn:startEvent id="escalated" isInterrupting="false"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:startEvent>
        <bpmn:endEvent id="handled"/>
        <bpmn:sequenceFlow id="h1" sourceRef="escalated" targetRef="handled"/>
      </bpmn:subProcess>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
      <bpmn:sequenceFlow id="f2" sourceRef="nightly" targetRef="call"/>
      <bpmn:sequenceFlow id="f3" sourceRef="call" targetRef="decide"/>
      <bpmn:sequenceFlow id="f4" sourceRef="decide" targetRef="e"/>
      <bpmn:sequenceFlow id="f5" sourceRef="deadline" targetRef="fail"/>
      <bpmn:sequenceFlow id="f6" sourceRef="failed" targetRef="e"/>`;
    const proc = compileOk(bpmnDoc(body, { root: ROOT })).processes[0];
    expect(proc.startEvents).toEqual(['s', 'nightly']);
    expect(proc.noneStartEvent).toBe('s');
    expect(proc.eventSubProcesses).toEqual(['onEscalation']);
    expect(proc.elements.nightly.eventDefinition).toEqual({ kind: 'timer', timer: { type: 'cycle', expr: { kind: 'literal', value: '0 0 2 * * *' } } });
    expect(proc.elements.call).toMatchObject({
      boundaryEvents: ['deadline', 'failed'],
      calledElement: { processId: { kind: 'feel', source: 'target' }, propagateAllChildVariables: false, propagateAllParentVariables: true },
      loop: { sequential: true, inputCollection: 'items', inputElement: 'item' },
    });
    expect(proc.elements.deadline).toMatchObject({ attachedTo: 'call', cancelActivity: true, eventDefinition: { kind: 'timer', timer: { type: 'duration' } } });
    expect(proc.elements.failed.eventDefinition).toEqual({ kind: 'error', errorCode: 'E' });
    expect(proc.elements.fail.eventDefinition).toEqual({ kind: 'error', errorCode: 'E' });
    expect(proc.elements.decide.calledDecision).toEqual({ decisionId: { kind: 'literal', value: 'discount' }, resultVariable: 'rate' });
    expect(proc.elements.onEscalation).toMatchObject({ triggeredByEvent: true, startEvents: ['escalated'] });
    expect(proc.elements.escalated).toMatchObject({
      parent: 'onEscalation',
      isInterrupting: false,
      eventDefinition: { kind: 'escalation', escalationCode: 'X' },
    });
  });
});

describe('not valid in this position', () => {
  const cases: [label: string, element: string, expected: string][] = [
    [
      'error start outside an event subprocess',
      '<bpmn:startEvent id="x"><bpmn:errorEventDefinition errorRef="err"/></bpmn:startEvent>',
      "Error start event 'x' is not valid here: an error start event belongs in an event subprocess.",
    ],
    [
      'escalation start outside an event subprocess',
      '<bpmn:startEvent id="x"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:startEvent>',
      "Escalation start event 'x' is not valid here: an escalation start event belongs in an event subprocess.",
    ],
    [
      'error start in an embedded subprocess',
      '<bpmn:subProcess id="sub"><bpmn:startEvent id="in"/><bpmn:startEvent id="x"><bpmn:errorEventDefinition errorRef="err"/></bpmn:startEvent></bpmn:subProcess>',
      "Error start event 'x' is not valid here: an embedded subprocess starts with a single none start event.",
    ],
    [
      'error intermediate throw',
      '<bpmn:intermediateThrowEvent id="x"><bpmn:errorEventDefinition errorRef="err"/></bpmn:intermediateThrowEvent>',
      "Error intermediate throw event 'x' is not valid here: an error is thrown by an error end event.",
    ],
    [
      'error intermediate catch',
      '<bpmn:intermediateCatchEvent id="x"><bpmn:errorEventDefinition errorRef="err"/></bpmn:intermediateCatchEvent>',
      "Error intermediate catch event 'x' is not valid here: errors are caught by boundary events and event subprocesses.",
    ],
    [
      'escalation intermediate catch',
      '<bpmn:intermediateCatchEvent id="x"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:intermediateCatchEvent>',
      "Escalation intermediate catch event 'x' is not valid here: escalations are caught by boundary events and event subprocesses.",
    ],
    [
      'non-interrupting error boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host" cancelActivity="false"><bpmn:errorEventDefinition errorRef="err"/></bpmn:boundaryEvent>',
      "Non-interrupting error boundary event 'x' is not valid here: an error boundary event always interrupts.",
    ],
    [
      'link start',
      '<bpmn:startEvent id="x"><bpmn:linkEventDefinition name="L"/></bpmn:startEvent>',
      "Link start event 'x' is not valid here: links are intermediate events.",
    ],
    [
      'link boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:linkEventDefinition name="L"/></bpmn:boundaryEvent>',
      "Link boundary event 'x' is not valid here: links are intermediate events.",
    ],
    [
      'link end',
      '<bpmn:endEvent id="x"><bpmn:linkEventDefinition name="L"/></bpmn:endEvent>',
      "Link end event 'x' is not valid here: links are intermediate events.",
    ],
    ['timer end', `<bpmn:endEvent id="x">${timer}</bpmn:endEvent>`, "Timer end event 'x' is not valid here: an end event cannot wait for a timer."],
    [
      'none boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host"/>',
      "None boundary event 'x' is not valid here: a boundary event needs an event definition.",
    ],
    [
      'none start of an event subprocess',
      '<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="x"/></bpmn:subProcess>',
      "None start event 'x' of an event subprocess is not valid here: an event subprocess must start with an event (message, timer, error, …).",
    ],
  ];

  it.each(cases)('%s', (_label, element, expected) => {
    const xml = bpmnDoc(`${chain(['host'], ['<bpmn:task id="host"/>'])}${element}`, { root: ROOT });
    expect(messagesFor(problemsOf(xml), 'x')).toEqual([expected]);
  });
});

describe('not supported yet, or never', () => {
  const cases: [label: string, element: string, id: string, expected: string][] = [
    [
      'compensation throw',
      '<bpmn:intermediateThrowEvent id="x"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>',
      'x',
      "Compensation intermediate throw event 'x' is not yet supported by Orca.",
    ],
    [
      'compensation end',
      '<bpmn:endEvent id="x"><bpmn:compensateEventDefinition/></bpmn:endEvent>',
      'x',
      "Compensation end event 'x' is not yet supported by Orca.",
    ],
    [
      'compensation boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>',
      'x',
      "Compensation boundary event 'x' is not yet supported by Orca.",
    ],
    [
      'conditional catch',
      '<bpmn:intermediateCatchEvent id="x"><bpmn:conditionalEventDefinition><bpmn:condition>=a</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:intermediateCatchEvent>',
      'x',
      "Conditional intermediate catch event 'x' is not yet supported by Orca.",
    ],
    [
      'conditional boundary',
      '<bpmn:boundaryEvent id="x" attachedToRef="host"><bpmn:conditionalEventDefinition><bpmn:condition>=a</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:boundaryEvent>',
      'x',
      "Conditional boundary event 'x' is not yet supported by Orca.",
    ],
    [
      'conditional start',
      '<bpmn:startEvent id="x"><bpmn:conditionalEventDefinition><bpmn:condition>=a</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:startEvent>',
      'x',
      "Conditional start event 'x' is not yet supported by Orca.",
    ],
    ['cancel end', '<bpmn:endEvent id="x"><bpmn:cancelEventDefinition/></bpmn:endEvent>', 'x', "Cancel end event 'x' is not yet supported by Orca."],
    [
      'multiple catch',
      '<bpmn:intermediateCatchEvent id="x"><bpmn:messageEventDefinition messageRef="m"/><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>',
      'x',
      "Multiple intermediate catch event 'x' is not yet supported by Orca.",
    ],
    ['complex gateway', '<bpmn:complexGateway id="x"/>', 'x', "Complex gateway 'x' is not yet supported by Orca."],
    ['standard loop', '<bpmn:task id="x"><bpmn:standardLoopCharacteristics/></bpmn:task>', 'x', "Task 'x' with a standard loop is not yet supported by Orca."],
    [
      'compensation handler',
      '<bpmn:task id="x" isForCompensation="true"/>',
      'x',
      "Task 'x' as a compensation handler (isForCompensation) is not yet supported by Orca.",
    ],
    ['transaction', '<bpmn:transaction id="x"><bpmn:startEvent id="ts"/></bpmn:transaction>', 'x', "Transaction subprocess 'x' is not yet supported by Orca."],
    ['unknown BPMN element', '<bpmn:choreographyTask id="x"/>', 'x', "Choreography task 'x' is not supported by Orca."],
    ['implicit throw', '<bpmn:implicitThrowEvent id="x"/>', 'x', "None implicit throw event 'x' is not supported: use an intermediate throw event."],
    [
      'timer implicit throw (no wildcard lets it through)',
      `<bpmn:implicitThrowEvent id="x">${timer}</bpmn:implicitThrowEvent>`,
      'x',
      "Timer implicit throw event 'x' is not supported: use an intermediate throw event.",
    ],
  ];

  it.each(cases)('%s', (_label, element, id, expected) => {
    const xml = bpmnDoc(`${chain(['host'], ['<bpmn:task id="host"/>'])}${element}`, { root: ROOT });
    const messages = messagesFor(problemsOf(xml), id);
    expect(messages).toHaveLength(1);
    expect(messages[0].startsWith(expected), `${messages[0]}\n  should start with\n${expected}`).toBe(true);
  });

  it('says "not yet" for planned elements, "not supported" without "yet" for implicit throws and "not valid here" for misplaced ones', () => {
    for (const [key, entry] of Object.entries(SUPPORT)) {
      if (entry.status === 'never' || entry.status === 'invalid') expect(entry.reason, key).toBeTruthy();
    }
    const never = unsupportedMessage({ kind: 'implicitThrowEvent', eventKind: 'none', scope: 'process' }, 'a') ?? '';
    const compensation = unsupportedMessage({ kind: 'endEvent', eventKind: 'compensate', scope: 'process' }, 'b') ?? '';
    const misplaced = unsupportedMessage({ kind: 'intermediateThrowEvent', eventKind: 'error', scope: 'process' }, 'c') ?? '';
    expect(never).toContain('is not supported');
    expect(never).not.toContain('yet');
    expect(compensation).toContain('not yet supported');
    expect(misplaced).toContain('is not valid here');
    expect(unsupportedMessage({ kind: 'endEvent', eventKind: 'error', scope: 'process' }, 'd')).toBeUndefined();
  });

  it('is decided by the data in SUPPORT (flipping an entry flips the verdict)', () => {
    const query = { kind: 'complexGateway', scope: 'process' as const };
    expect(unsupportedMessage(query, 'g')).toContain('not yet supported');
    const saved = SUPPORT.complexGateway;
    (SUPPORT as Record<string, (typeof SUPPORT)[string]>).complexGateway = { status: 'supported' };
    try {
      expect(unsupportedMessage(query, 'g')).toBeUndefined();
    } finally {
      (SUPPORT as Record<string, (typeof SUPPORT)[string]>).complexGateway = saved;
    }
  });

  it('reports each unsupported element once, with its own id, even nested inside another unsupported one', () => {
    const xml = bpmnDoc(
      chain(
        ['sub'],
        [
          `<bpmn:subProcess id="sub"><bpmn:standardLoopCharacteristics/><bpmn:startEvent id="in"/><bpmn:complexGateway id="cg"/><bpmn:sequenceFlow id="x" sourceRef="in" targetRef="cg"/></bpmn:subProcess>`,
        ],
      ),
    );
    const problems = problemsOf(xml);
    expect(problems.map((p) => p.elementId)).toEqual(['sub', 'cg']);
  });

  it('a model with unsupported elements is rejected as a whole', () => {
    expect(compileBpmn(bpmnDoc(`${chain([], [])}<bpmn:complexGateway id="cg"/>`)).ok).toBe(false);
  });
});
