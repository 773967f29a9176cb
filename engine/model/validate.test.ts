import { describe, expect, it } from 'vitest';
import { compileBpmn } from './compile.ts';
import { BPMN, bpmnDoc, chain, compileOk, messagesFor, problemsOf } from './test-fixtures.ts';

const ext = (inner: string) => `<bpmn:extensionElements>${inner}</bpmn:extensionElements>`;

/** The single problem about `id`. */
function only(problems: ReturnType<typeof problemsOf>, id: string): string {
  const messages = messagesFor(problems, id);
  expect(messages, JSON.stringify(problems, null, 1)).toHaveLength(1);
  return messages[0];
}

describe('tasks without what Orca needs to run them', () => {
  it('service task without a task definition type', () => {
    expect(only(problemsOf(bpmnDoc(chain(['t'], ['<bpmn:serviceTask id="t"/>']))), 't')).toBe(
      `Service task 't' has no job type: add <zeebe:taskDefinition type="…"/> to its extensionElements.`,
    );
  });

  it('service task with an empty type', () => {
    expect(only(problemsOf(bpmnDoc(chain(['t'], [`<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type=" "/>')}</bpmn:serviceTask>`]))), 't')).toContain(
      'has no job type',
    );
  });

  it('service task configured for Camunda 7: says that Orca reads zeebe:taskDefinition', () => {
    const xml = bpmnDoc(
      chain(['t'], ['<bpmn:serviceTask id="t" camunda:type="external" camunda:topic="invoice" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"/>']),
    );
    expect(only(problemsOf(xml), 't')).toBe(
      `Service task 't' has no job type: it is configured with Camunda 7 attributes (camunda:topic, camunda:type), but Orca reads <zeebe:taskDefinition type="…"/> in its extensionElements.`,
    );
  });

  it('send task without a task definition', () => {
    expect(
      only(problemsOf(bpmnDoc(chain(['t'], ['<bpmn:sendTask id="t" camunda:class="a.B" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"/>']))), 't'),
    ).toContain('Camunda 7 attributes (camunda:class)');
  });

  it('business rule task with neither a task definition nor a called decision', () => {
    expect(only(problemsOf(bpmnDoc(chain(['t'], ['<bpmn:businessRuleTask id="t"/>']))), 't')).toContain('needs either <zeebe:calledDecision');
  });

  it('receive task without a message', () => {
    expect(only(problemsOf(bpmnDoc(chain(['t'], ['<bpmn:receiveTask id="t"/>']))), 't')).toContain("Receive task 't' has no message");
  });

  it('receive task pointing at an unknown message', () => {
    const messages = messagesFor(problemsOf(bpmnDoc(chain(['t'], ['<bpmn:receiveTask id="t" messageRef="nope"/>']))), 't');
    expect(messages).toContain("Receive task 't' refers to message 'nope', which is not defined in this file.");
  });
});

describe('sequence flows', () => {
  it('unknown source and target', () => {
    const xml = bpmnDoc(`${chain([], [])}<bpmn:sequenceFlow id="bad" sourceRef="ghost" targetRef="phantom"/>`);
    const messages = messagesFor(problemsOf(xml), 'bad');
    expect(messages).toEqual([
      "Sequence flow 'bad' has source 'ghost', but there is no flow node with that id in process 'p'.",
      "Sequence flow 'bad' has target 'phantom', but there is no flow node with that id in process 'p'.",
    ]);
  });

  it('missing sourceRef', () => {
    const xml = bpmnDoc(`${chain([], [])}<bpmn:sequenceFlow id="bad" targetRef="e"/>`);
    expect(only(problemsOf(xml), 'bad')).toBe("Sequence flow 'bad' has no source (sourceRef is missing).");
  });

  it('crossing a subprocess boundary', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:subProcess id="sub"><bpmn:startEvent id="in"/><bpmn:task id="inner"/><bpmn:sequenceFlow id="i" sourceRef="in" targetRef="inner"/></bpmn:subProcess>
      <bpmn:sequenceFlow id="cross" sourceRef="s" targetRef="inner"/>
      <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="sub"/>`);
    expect(only(problemsOf(xml), 'cross')).toBe(
      "Sequence flow 'cross' is in process 'p' but its target 'inner' is in subprocess 'sub'; a sequence flow cannot cross a subprocess boundary.",
    );
  });

  it('connecting two processes', () => {
    const xml = bpmnDoc(`${chain([], [])}<bpmn:sequenceFlow id="across" sourceRef="s" targetRef="otherTask"/>`, {
      root: '<bpmn:process id="other" isExecutable="false"><bpmn:task id="otherTask"/></bpmn:process>',
    });
    expect(only(problemsOf(xml), 'across')).toBe(
      "Sequence flow 'across' has target 'otherTask', which belongs to process 'other'; a sequence flow cannot connect two processes.",
    );
  });

  it('into a start event, out of an end event', () => {
    const xml = bpmnDoc(`${chain([], [])}<bpmn:sequenceFlow id="loop" sourceRef="e" targetRef="s"/>`);
    expect(messagesFor(problemsOf(xml), 'loop')).toEqual([
      "Sequence flow 'loop' leads into start event 's'; a start event cannot have incoming flows.",
      "Sequence flow 'loop' leaves end event 'e'; an end event cannot have outgoing flows.",
    ]);
  });

  it('a condition written in another language', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g" default="d"/><bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="g"/>
      <bpmn:sequenceFlow id="js" sourceRef="g" targetRef="e"><bpmn:conditionExpression language="javascript">x &gt; 1</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="d" sourceRef="g" targetRef="e"/>`);
    expect(only(problemsOf(xml), 'js')).toBe(
      "Sequence flow 'js' has a condition in javascript; Orca evaluates conditions as FEEL (for example =amount > 100).",
    );
  });

  it('a condition on a flow that does not leave an exclusive or inclusive gateway', () => {
    const xml = bpmnDoc(`<bpmn:startEvent id="s"/><bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e"><bpmn:conditionExpression>=ok</bpmn:conditionExpression></bpmn:sequenceFlow>`);
    expect(only(problemsOf(xml), 'f')).toContain('Orca evaluates conditions only on flows leaving exclusive and inclusive gateways');
  });
});

describe('gateways and default flows', () => {
  const gateway = (kind: string, attrs: string, c1: string, c2: string) =>
    bpmnDoc(`
      <bpmn:startEvent id="s"/><bpmn:${kind} id="g" ${attrs}/><bpmn:endEvent id="e1"/><bpmn:endEvent id="e2"/>
      <bpmn:sequenceFlow id="in" sourceRef="s" targetRef="g"/>
      <bpmn:sequenceFlow id="a" sourceRef="g" targetRef="e1">${c1}</bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="b" sourceRef="g" targetRef="e2">${c2}</bpmn:sequenceFlow>`);
  const cond = '<bpmn:conditionExpression>=x</bpmn:conditionExpression>';

  it.each(['exclusiveGateway', 'inclusiveGateway'])('%s: a non-default flow without a condition', (kind) => {
    expect(only(problemsOf(gateway(kind, '', cond, '')), 'g')).toContain("but flow 'b' has no condition and is not the default flow");
  });

  it.each(['exclusiveGateway', 'inclusiveGateway'])('%s: conditions plus a default are fine', (kind) => {
    const proc = compileOk(gateway(kind, 'default="b"', cond, '')).processes[0];
    expect(proc.elements.g.defaultFlow).toBe('b');
    expect(proc.elements.g.outgoing).toEqual(['a', 'b']);
  });

  it('parallel gateways need no conditions', () => {
    expect(compileBpmn(gateway('parallelGateway', '', '', '')).ok).toBe(true);
  });

  it('a default that is not an outgoing flow of the element', () => {
    expect(only(problemsOf(gateway('exclusiveGateway', 'default="in"', cond, cond)), 'g')).toBe(
      "Exclusive gateway 'g' names 'in' as its default flow, but that is not one of its outgoing sequence flows.",
    );
  });

  it('a default that does not exist, on an activity', () => {
    const xml = bpmnDoc(chain(['t'], ['<bpmn:task id="t" default="nope"/>']));
    expect(only(problemsOf(xml), 't')).toContain("names 'nope' as its default flow");
  });

  it('a default flow with a condition', () => {
    expect(only(problemsOf(gateway('exclusiveGateway', 'default="b"', cond, cond)), 'g')).toContain("default flow 'b' with a condition");
  });
});

describe('boundary events', () => {
  // Boundary events are not supported yet, so each case also carries that problem; the checks below look for the structural one.
  it('attached to an unknown element', () => {
    const xml = bpmnDoc(
      `${chain([], [])}<bpmn:boundaryEvent id="b" attachedToRef="ghost"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`,
    );
    expect(messagesFor(problemsOf(xml), 'b')).toContain("Boundary event 'b' is attached to 'ghost', but there is no activity with that id in process 'p'.");
  });

  it('attached to something that is not an activity', () => {
    const xml = bpmnDoc(
      `${chain([], [])}<bpmn:boundaryEvent id="b" attachedToRef="s"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`,
    );
    expect(messagesFor(problemsOf(xml), 'b')).toContain(
      "Boundary event 'b' is attached to start event 's'; boundary events can only be attached to activities.",
    );
  });

  it('without attachedToRef', () => {
    const xml = bpmnDoc(
      `${chain([], [])}<bpmn:boundaryEvent id="b"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`,
    );
    expect(messagesFor(problemsOf(xml), 'b')).toContain("Boundary event 'b' is not attached to an activity (attachedToRef is missing).");
  });
});

describe('start events and executable processes', () => {
  it('no executable process', () => {
    const problems = problemsOf(bpmnDoc(chain([], []), { executable: false }));
    expect(problems).toEqual([{ message: `The model has no executable process: set isExecutable="true" on the process Orca should run (found 'p').` }]);
  });

  it('a process without isExecutable is not executable', () => {
    const xml = `<definitions xmlns="${BPMN}" id="d"><process id="p"><startEvent id="s"/></process></definitions>`;
    expect(problemsOf(xml)[0].message).toContain('no executable process');
  });

  it('non-executable processes next to an executable one are ignored with a warning', () => {
    const xml = bpmnDoc(chain([], []), {
      root: '<bpmn:process id="draft" isExecutable="false"><bpmn:serviceTask id="broken"/><bpmn:signalEventDefinition/></bpmn:process>',
    });
    const model = compileOk(xml);
    expect(model.processes.map((p) => p.id)).toEqual(['p']);
    expect(model.nonExecutableProcesses).toEqual(['draft']);
    expect(model.warnings).toEqual([
      { elementId: 'draft', code: 'PROCESS_NOT_EXECUTABLE', message: `Process 'draft' is not executable (isExecutable is not "true") and is ignored.` },
    ]);
  });

  it('a process with no start event at all', () => {
    expect(only(problemsOf(bpmnDoc('<bpmn:task id="t"/>')), 'p')).toBe(
      "Process 'p' has no start event: add a none start event, which is how POST /api/v1/process-instances starts an instance.",
    );
  });

  it('a process with only a message start deploys (a published message starts it, extension)', () => {
    const model = compileOk(bpmnDoc('<bpmn:startEvent id="ms"><bpmn:messageEventDefinition/></bpmn:startEvent>'));
    expect(model.processes[0].startEvents).toEqual(['ms']);
  });

  it('a message throw or end event needs a job type, like a send task', () => {
    const problems = problemsOf(bpmnDoc(chain(['t'], ['<bpmn:intermediateThrowEvent id="t"><bpmn:messageEventDefinition/></bpmn:intermediateThrowEvent>'])));
    expect(only(problems, 't')).toContain('has no job type: add <zeebe:taskDefinition type="…"/>');
  });

  it('two none start events', () => {
    expect(only(problemsOf(bpmnDoc('<bpmn:startEvent id="a"/><bpmn:startEvent id="b"/>')), 'p')).toContain('has 2 none start events (a, b); keep exactly one');
  });

  it('an embedded subprocess without a start event', () => {
    const xml = bpmnDoc(chain(['sub'], ['<bpmn:subProcess id="sub"><bpmn:task id="inner"/></bpmn:subProcess>']));
    expect(only(problemsOf(xml), 'sub')).toBe("Subprocess 'sub' has no start event: add a none start event inside it.");
  });

  it('a timer start inside an embedded subprocess is not valid there', () => {
    const xml = bpmnDoc(
      chain(
        ['sub'],
        [
          '<bpmn:subProcess id="sub"><bpmn:startEvent id="in"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent></bpmn:subProcess>',
        ],
      ),
    );
    expect(only(problemsOf(xml), 'in')).toBe("Timer start event 'in' is not valid here: an embedded subprocess starts with a single none start event.");
  });
});

describe('FEEL syntax at deploy time', () => {
  it('a condition that does not parse: element, expression and the parser reason', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g" default="d"/><bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="g"/>
      <bpmn:sequenceFlow id="c" sourceRef="g" targetRef="e"><bpmn:conditionExpression>=amount &gt;</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="d" sourceRef="g" targetRef="e"/>`);
    const message = only(problemsOf(xml), 'c');
    expect(message).toMatch(/^The condition of sequence flow 'c' is not valid FEEL: `amount >` \(.+\)\.$/);
  });

  it.each([
    [
      'an input mapping',
      `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="x"/><zeebe:ioMapping><zeebe:input source="=a +" target="v"/></zeebe:ioMapping>')}</bpmn:serviceTask>`,
      "The input mapping 'v' of service task 't'",
    ],
    [
      'an output mapping',
      `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="x"/><zeebe:ioMapping><zeebe:output source="=(" target="v"/></zeebe:ioMapping>')}</bpmn:serviceTask>`,
      "The output mapping 'v' of service task 't'",
    ],
    ['a FEEL job type', `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="=1 2"/>')}</bpmn:serviceTask>`, "The job type of service task 't'"],
    ['FEEL retries', `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="x" retries="=)"/>')}</bpmn:serviceTask>`, "The retries of service task 't'"],
    [
      'a script expression',
      `<bpmn:scriptTask id="t">${ext('<zeebe:script expression="=if" resultVariable="r"/>')}</bpmn:scriptTask>`,
      "The script expression of script task 't'",
    ],
    [
      'a loop input collection',
      `<bpmn:task id="t"><bpmn:multiInstanceLoopCharacteristics>${ext('<zeebe:loopCharacteristics inputCollection="=[1,"/>')}</bpmn:multiInstanceLoopCharacteristics></bpmn:task>`,
      "The input collection of task 't'",
    ],
  ])('%s', (_label, element, start) => {
    const messages = messagesFor(problemsOf(bpmnDoc(chain(['t'], [element]))), 't');
    expect(messages.some((m) => m.startsWith(start) && m.includes('is not valid FEEL'))).toBe(true);
  });

  it('a message correlation key, reported on the message', () => {
    const xml = bpmnDoc(chain(['w'], ['<bpmn:intermediateCatchEvent id="w"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>']), {
      root: `<bpmn:message id="m" name="n">${ext('<zeebe:subscription correlationKey="=order."/>')}</bpmn:message>`,
    });
    expect(only(problemsOf(xml), 'm')).toContain("The correlation key of message 'm' is not valid FEEL: `order.`");
  });

  it('long expressions are shown on one line and cut', () => {
    const long = `=${'&#34;x&#34; + '.repeat(100)}`;
    const xml = bpmnDoc(
      chain(
        ['t'],
        [
          `<bpmn:serviceTask id="t">${ext(`<zeebe:taskDefinition type="x"/><zeebe:ioMapping><zeebe:input source="${long}" target="v"/></zeebe:ioMapping>`)}</bpmn:serviceTask>`,
        ],
      ),
    );
    const message = only(problemsOf(xml), 't');
    expect(message).toContain('…');
    expect(message.length).toBeLessThan(300);
  });

  it('valid FEEL passes', () => {
    const xml = bpmnDoc(
      chain(
        ['t'],
        [
          `<bpmn:serviceTask id="t">${ext('<zeebe:taskDefinition type="=&#34;a&#34; + b"/><zeebe:ioMapping><zeebe:input source="=some x in xs satisfies x &gt; 1" target="v"/></zeebe:ioMapping>')}</bpmn:serviceTask>`,
        ],
      ),
    );
    expect(compileBpmn(xml).ok).toBe(true);
  });
});

describe('other structural problems', () => {
  it('duplicate ids', () => {
    expect(messagesFor(problemsOf(bpmnDoc(chain(['t'], ['<bpmn:task id="t"/><bpmn:task id="t"/>']))), 't')).toEqual([
      "The id 't' is used by more than one element in process 'p'; ids must be unique.",
    ]);
  });

  it('an io mapping without a target', () => {
    const xml = bpmnDoc(chain(['t'], [`<bpmn:task id="t">${ext('<zeebe:ioMapping><zeebe:input source="=1"/></zeebe:ioMapping>')}</bpmn:task>`]));
    expect(only(problemsOf(xml), 't')).toBe("Task 't' has an input mapping without a target variable.");
  });

  it('a timer without a time expression', () => {
    const xml = bpmnDoc(chain(['w'], ['<bpmn:intermediateCatchEvent id="w"><bpmn:timerEventDefinition/></bpmn:intermediateCatchEvent>']));
    expect(messagesFor(problemsOf(xml), 'w')).toContain("Intermediate catch event 'w' has a timer without a time: set a duration, a date or a cycle.");
  });
});

describe('all problems are reported together', () => {
  it('lists every problem of a model, not just the first', () => {
    const xml = bpmnDoc(
      `
      <bpmn:startEvent id="s"/>
      <bpmn:serviceTask id="noType"/>
      <bpmn:exclusiveGateway id="g"/>
      <bpmn:task id="a"/><bpmn:task id="b"/>
      <bpmn:intermediateThrowEvent id="sig"><bpmn:signalEventDefinition/></bpmn:intermediateThrowEvent>
      <bpmn:complexGateway id="cg"/>
      <bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="noType"/>
      <bpmn:sequenceFlow id="f2" sourceRef="noType" targetRef="g"/>
      <bpmn:sequenceFlow id="f3" sourceRef="g" targetRef="a"><bpmn:conditionExpression>=x &lt;</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="f4" sourceRef="g" targetRef="b"/>
      <bpmn:sequenceFlow id="f5" sourceRef="a" targetRef="nowhere"/>
      <bpmn:sequenceFlow id="f6" sourceRef="b" targetRef="e"/>
      <bpmn:task id="z" zeebe:modelerTemplate="t"/>`,
      { zeebe: false },
    );
    const problems = problemsOf(xml);
    const ids = new Set(problems.map((p) => p.elementId));
    expect([...ids].sort()).toEqual(['cg', 'f3', 'f5', 'g', 'noType', 'sig', 'z'].sort());
    expect(messagesFor(problems, 'sig')).toEqual(["Intermediate throw event 'sig' names no signal: it needs a signalRef to a bpmn:signal with a name."]);
  });
});
