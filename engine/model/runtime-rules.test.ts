// Models that Camunda 8 rejects at deploy and that engine/runtime would run
// into trouble with: each is a deploy-time problem naming the element and the
// reason (runtime-rules.ts, and the timer and error/escalation checks in
// events.ts).
import { describe, expect, it } from 'vitest';
import { bpmnDoc, chain, compileOk, messagesFor, problemsOf } from './test-fixtures.ts';

const ext = (inner: string) => `<bpmn:extensionElements>${inner}</bpmn:extensionElements>`;
const ROOT =
  '<bpmn:message id="m" name="msg"/><bpmn:error id="err" errorCode="E"/><bpmn:error id="noCode" name="No code"/>' +
  '<bpmn:error id="feelCode" errorCode="=code"/><bpmn:escalation id="esc" escalationCode="X"/><bpmn:escalation id="noEsc" name="No code"/>';
const doc = (body: string) => bpmnDoc(body, { root: ROOT });
const timerOf = (type: 'Duration' | 'Date' | 'Cycle', text: string) =>
  `<bpmn:timerEventDefinition><bpmn:time${type}>${text}</bpmn:time${type}></bpmn:timerEventDefinition>`;
const task = (id: string) => `<bpmn:serviceTask id="${id}">${ext('<zeebe:taskDefinition type="work"/>')}</bpmn:serviceTask>`;

/** The single problem about `id`. */
function only(xml: string, id: string): string {
  const problems = problemsOf(xml);
  const messages = messagesFor(problems, id);
  expect(messages, JSON.stringify(problems, null, 1)).toHaveLength(1);
  expect(
    problems.filter((p) => p.elementId !== id),
    'problems about other elements',
  ).toEqual([]);
  return messages[0];
}

describe('call activities', () => {
  it('without zeebe:calledElement', () => {
    expect(only(doc(chain(['c'], ['<bpmn:callActivity id="c"/>'])), 'c')).toBe(
      `Call activity 'c' does not say which process to call: add <zeebe:calledElement processId="…"/> to its extensionElements.`,
    );
  });

  it('with zeebe:calledElement but no processId', () => {
    expect(
      only(doc(chain(['c'], [`<bpmn:callActivity id="c">${ext('<zeebe:calledElement propagateAllChildVariables="false"/>')}</bpmn:callActivity>`])), 'c'),
    ).toContain('does not say which process to call');
  });

  it('with an empty processId', () => {
    expect(only(doc(chain(['c'], [`<bpmn:callActivity id="c">${ext('<zeebe:calledElement processId="  "/>')}</bpmn:callActivity>`])), 'c')).toBe(
      "Call activity 'c' has an empty processId in zeebe:calledElement: set it to the id of the process to call.",
    );
  });

  it('a literal, a FEEL or a BPMN calledElement process id is fine', () => {
    compileOk(doc(chain(['c'], [`<bpmn:callActivity id="c">${ext('<zeebe:calledElement processId="child"/>')}</bpmn:callActivity>`])));
    compileOk(doc(chain(['c'], [`<bpmn:callActivity id="c">${ext('<zeebe:calledElement processId="=target"/>')}</bpmn:callActivity>`])));
    compileOk(doc(chain(['c'], ['<bpmn:callActivity id="c" calledElement="child"/>'])));
  });
});

describe('link events', () => {
  const linkThrow = (id: string, name?: string) =>
    `<bpmn:intermediateThrowEvent id="${id}"><bpmn:linkEventDefinition${name === undefined ? '' : ` name="${name}"`}/></bpmn:intermediateThrowEvent>`;
  const linkCatch = (id: string, name?: string) =>
    `<bpmn:intermediateCatchEvent id="${id}"><bpmn:linkEventDefinition${name === undefined ? '' : ` name="${name}"`}/></bpmn:intermediateCatchEvent>`;
  const jump = (throwName: string | undefined, catches: string) =>
    doc(`<bpmn:startEvent id="s"/>${linkThrow('t', throwName)}${catches}<bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/><bpmn:sequenceFlow id="f2" sourceRef="c" targetRef="e"/>`);

  it('a throw and its catch of the same name are fine', () => {
    compileOk(jump('L', linkCatch('c', 'L')));
  });

  it('a throw without a catch of that name', () => {
    expect(only(jump('L', linkCatch('c', 'Other')), 't')).toBe(
      "Link intermediate throw event 't' jumps to link 'L', but there is no link catch event named 'L' in process 'p'.",
    );
  });

  it('a throw whose catch is in another scope, which a link cannot reach', () => {
    const xml = doc(`<bpmn:startEvent id="s"/>${linkThrow('t', 'L')}
      <bpmn:subProcess id="sub"><bpmn:startEvent id="ss"/>${linkCatch('c', 'L')}<bpmn:endEvent id="se"/>
        <bpmn:sequenceFlow id="sf1" sourceRef="ss" targetRef="se"/><bpmn:sequenceFlow id="sf2" sourceRef="c" targetRef="se"/></bpmn:subProcess>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>`);
    expect(only(xml, 't')).toBe(
      "Link intermediate throw event 't' jumps to link 'L', but there is no link catch event named 'L' in process 'p'; link catch event 'c' has that name but is in subprocess 'sub', and a link cannot cross a subprocess boundary.",
    );
  });

  it('two catches of the same name in one scope are ambiguous', () => {
    const xml = doc(`<bpmn:startEvent id="s"/>${linkThrow('t', 'L')}${linkCatch('c', 'L')}${linkCatch('c2', 'L')}<bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/><bpmn:sequenceFlow id="f2" sourceRef="c" targetRef="e"/><bpmn:sequenceFlow id="f3" sourceRef="c2" targetRef="e"/>`);
    expect(only(xml, 'c2')).toBe(
      "Link catch events 'c' and 'c2' in process 'p' are both named 'L', so a link throw event named 'L' could not tell which to jump to; rename one.",
    );
  });

  it('catches of the same name in different scopes are fine', () => {
    compileOk(
      doc(`<bpmn:startEvent id="s"/>${linkThrow('t', 'L')}${linkCatch('c', 'L')}<bpmn:endEvent id="e"/>
      <bpmn:subProcess id="sub"><bpmn:startEvent id="ss"/>${linkThrow('st', 'L')}${linkCatch('sc', 'L')}<bpmn:endEvent id="se"/>
        <bpmn:sequenceFlow id="sf1" sourceRef="ss" targetRef="st"/><bpmn:sequenceFlow id="sf2" sourceRef="sc" targetRef="se"/></bpmn:subProcess>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/><bpmn:sequenceFlow id="f2" sourceRef="c" targetRef="sub"/><bpmn:sequenceFlow id="f3" sourceRef="sub" targetRef="e"/>`),
    );
  });

  it('a throw and a catch without a link name', () => {
    const problems = problemsOf(jump(undefined, linkCatch('c')));
    expect(messagesFor(problems, 't')).toEqual([
      "Link intermediate throw event 't' has no link name: name its linkEventDefinition like the link catch event it jumps to.",
    ]);
    expect(messagesFor(problems, 'c')).toEqual([
      "Link intermediate catch event 'c' has no link name: name its linkEventDefinition like the link throw events that jump to it.",
    ]);
  });

  it('a throw with outgoing flows, which no token would take', () => {
    const xml = doc(`<bpmn:startEvent id="s"/>${linkThrow('t', 'L')}${linkCatch('c', 'L')}<bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/><bpmn:sequenceFlow id="f2" sourceRef="c" targetRef="e"/><bpmn:sequenceFlow id="f3" sourceRef="t" targetRef="e"/>`);
    expect(only(xml, 't')).toBe(
      "Link intermediate throw event 't' has outgoing sequence flows ('f3'), which no token would take: the token jumps to the link catch event instead.",
    );
  });
});

describe('errors and escalations that are thrown need a code', () => {
  const end = (definition: string) => doc(chain([], []).replace('<bpmn:endEvent id="e"/>', `<bpmn:endEvent id="e">${definition}</bpmn:endEvent>`));

  it('an error end event without errorRef', () => {
    expect(only(end('<bpmn:errorEventDefinition/>'), 'e')).toBe(
      "Error end event 'e' throws no error: set errorRef to a bpmn:error with an errorCode, the code that boundary events and event subprocesses catch.",
    );
  });

  it('an error end event whose error has no errorCode', () => {
    expect(only(end('<bpmn:errorEventDefinition errorRef="noCode"/>'), 'e')).toBe(
      "Error end event 'e' throws error 'noCode', which has no errorCode: give the error an errorCode, the code that boundary events and event subprocesses catch.",
    );
  });

  it('an error end event with an unknown error is reported once, as unknown', () => {
    expect(only(end('<bpmn:errorEventDefinition errorRef="ghost"/>'), 'e')).toBe("End event 'e' refers to error 'ghost', which is not defined in this file.");
  });

  it('an escalation end event without escalationRef, and one whose escalation has no code', () => {
    expect(only(end('<bpmn:escalationEventDefinition/>'), 'e')).toBe(
      "Escalation end event 'e' throws no escalation: set escalationRef to a bpmn:escalation with an escalationCode, the code that boundary events and event subprocesses catch.",
    );
    expect(only(end('<bpmn:escalationEventDefinition escalationRef="noEsc"/>'), 'e')).toContain("throws escalation 'noEsc', which has no escalationCode");
  });

  it('an escalation intermediate throw event without a code', () => {
    const xml = doc(
      chain(['x'], ['<bpmn:intermediateThrowEvent id="x"><bpmn:escalationEventDefinition escalationRef="noEsc"/></bpmn:intermediateThrowEvent>']),
    );
    expect(only(xml, 'x')).toBe(
      "Escalation intermediate throw event 'x' throws escalation 'noEsc', which has no escalationCode: give the escalation an escalationCode, the code that boundary events and event subprocesses catch.",
    );
  });

  it('an error code written as FEEL, which Orca would compare as text', () => {
    expect(only(end('<bpmn:errorEventDefinition errorRef="feelCode"/>'), 'e')).toBe(
      "Error end event 'e' uses error 'feelCode', whose errorCode '=code' is a FEEL expression; Orca matches error codes as written and does not evaluate them, so give the error a fixed errorCode.",
    );
  });

  it('catches without a code catch everything and stay valid', () => {
    const xml = doc(`${chain(['host'], [task('host')])}
      <bpmn:boundaryEvent id="anyError" attachedToRef="host"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>
      <bpmn:boundaryEvent id="noCodeError" attachedToRef="host" cancelActivity="true"><bpmn:escalationEventDefinition escalationRef="noEsc"/></bpmn:boundaryEvent>
      <bpmn:subProcess id="handler" triggeredByEvent="true"><bpmn:startEvent id="hs"><bpmn:errorEventDefinition errorRef="noCode"/></bpmn:startEvent>
        <bpmn:endEvent id="he"/><bpmn:sequenceFlow id="hf" sourceRef="hs" targetRef="he"/></bpmn:subProcess>`);
    const proc = compileOk(xml).processes[0];
    expect(proc.elements.anyError.eventDefinition).toEqual({ kind: 'error' });
    expect(proc.elements.hs.eventDefinition).toEqual({ kind: 'error', errorName: 'No code' });
  });

  it('a thrown error with a code compiles', () => {
    expect(compileOk(end('<bpmn:errorEventDefinition errorRef="err"/>')).processes[0].elements.e.eventDefinition).toEqual({ kind: 'error', errorCode: 'E' });
  });
});

describe('multi-instance', () => {
  const mi = (loop: string, inner = '') =>
    doc(chain(['m'], [`<bpmn:userTask id="m"><bpmn:multiInstanceLoopCharacteristics>${loop}</bpmn:multiInstanceLoopCharacteristics>${inner}</bpmn:userTask>`]));
  const zeebe = (attrs: string) => ext(`<zeebe:loopCharacteristics ${attrs}/>`);

  it('without an input collection', () => {
    expect(only(mi(''), 'm')).toBe(
      "Multi-instance user task 'm' has no input collection: set inputCollection in <zeebe:loopCharacteristics>, the list with one item per instance (for example =items).",
    );
    expect(only(mi(zeebe('inputElement="item"')), 'm')).toContain('has no input collection');
  });

  it('a classic loopCardinality alone is fine: the runtime runs that many instances', () => {
    expect(compileOk(mi('<bpmn:loopCardinality>3</bpmn:loopCardinality>')).processes[0].elements.m.loop).toEqual({ sequential: false, loopCardinality: '3' });
  });

  it('an output collection without an output element, and the reverse', () => {
    expect(only(mi(zeebe('inputCollection="=items" outputCollection="results"')), 'm')).toBe(
      "Multi-instance user task 'm' has the output collection 'results' but no output element: set outputElement in <zeebe:loopCharacteristics>, the value each instance adds to the collection.",
    );
    expect(only(mi(zeebe('inputCollection="=items" outputElement="=result"')), 'm')).toBe(
      "Multi-instance user task 'm' has an output element but no output collection: set outputCollection in <zeebe:loopCharacteristics>, the variable that collects the values.",
    );
  });

  it('input and output together compile', () => {
    compileOk(mi(zeebe('inputCollection="=items" inputElement="item" outputCollection="results" outputElement="=result"')));
  });
});

describe('business rule tasks calling a decision', () => {
  const brt = (attrs: string) => doc(chain(['b'], [`<bpmn:businessRuleTask id="b">${ext(`<zeebe:calledDecision ${attrs}/>`)}</bpmn:businessRuleTask>`]));

  it('without a decisionId', () => {
    expect(only(brt('resultVariable="r"'), 'b')).toBe(
      "Business rule task 'b' calls no decision: set decisionId in zeebe:calledDecision to the id of the DMN decision to evaluate.",
    );
    expect(only(brt('decisionId="" resultVariable="r"'), 'b')).toContain('calls no decision');
  });

  it('without a resultVariable', () => {
    expect(only(brt('decisionId="d"'), 'b')).toBe(
      "Business rule task 'b' has no result variable: set resultVariable in zeebe:calledDecision, the variable that receives the decision's result.",
    );
    expect(only(brt('decisionId="d" resultVariable=" "'), 'b')).toContain('has no result variable');
  });

  it('with both it compiles', () => {
    compileOk(brt('decisionId="d" resultVariable="r"'));
  });
});

describe('timers', () => {
  const catchEvent = (definition: string) => doc(chain(['w'], [`<bpmn:intermediateCatchEvent id="w">${definition}</bpmn:intermediateCatchEvent>`]));

  it("a literal duration that does not parse, with the parser's sentence", () => {
    expect(only(catchEvent(timerOf('Duration', 'ten minutes')), 'w')).toMatch(
      /^Intermediate catch event 'w' has a timer duration Orca cannot schedule: 'ten minutes' is not a valid ISO 8601 duration: .+\.$/,
    );
  });

  it('a literal date that does not parse', () => {
    expect(only(catchEvent(timerOf('Date', '2026-13-01T10:00:00Z')), 'w')).toMatch(
      /timer date Orca cannot schedule: '2026-13-01T10:00:00Z' is not a valid ISO 8601 date-time/,
    );
  });

  it('a literal cycle that does not parse', () => {
    const xml = doc(`${chain([], [])}<bpmn:startEvent id="nightly">${timerOf('Cycle', 'every night')}</bpmn:startEvent>`);
    expect(only(xml, 'nightly')).toMatch(/^Start event 'nightly' has a timer cycle Orca cannot schedule: 'every night' is not a valid cron expression/);
  });

  it('Camunda 7 expression text gets a hint about FEEL', () => {
    expect(only(catchEvent(timerOf('Date', '${dueDate}')), 'w')).toMatch(/Camunda 8 reads expressions only as FEEL with a leading '='/);
  });

  it('literal timers that parse, and FEEL timers (evaluated at run time), compile', () => {
    compileOk(catchEvent(timerOf('Duration', 'PT10M')));
    compileOk(catchEvent(timerOf('Date', '2026-01-01T10:00:00@Europe/Berlin')));
    compileOk(catchEvent(timerOf('Duration', '=duration(wait)')));
  });

  it('a process-level timer start with a FEEL expression is fine (the runtime evaluates it at deploy)', () => {
    compileOk(doc(`${chain([], [])}<bpmn:startEvent id="soon">${timerOf('Date', '=now() + duration("PT1M")')}</bpmn:startEvent>`));
  });

  it('a timer start event of an event subprocess inside an embedded subprocess is fine', () => {
    const xml = doc(
      `${chain(
        ['sub'],
        [
          `<bpmn:subProcess id="sub"><bpmn:startEvent id="ss"/>${task('work')}<bpmn:endEvent id="se"/>
      <bpmn:sequenceFlow id="sf1" sourceRef="ss" targetRef="work"/><bpmn:sequenceFlow id="sf2" sourceRef="work" targetRef="se"/>
      <bpmn:subProcess id="late" triggeredByEvent="true"><bpmn:startEvent id="ls" isInterrupting="false">${timerOf('Cycle', 'R3/PT1H')}</bpmn:startEvent>
        <bpmn:endEvent id="le"/><bpmn:sequenceFlow id="lf" sourceRef="ls" targetRef="le"/></bpmn:subProcess></bpmn:subProcess>`,
        ],
      )}`,
    );
    expect(compileOk(xml).processes[0].elements.sub.eventSubProcesses).toEqual(['late']);
  });

  describe('where a timer fires once, a cycle cannot repeat', () => {
    it('a cycle on an intermediate catch event', () => {
      expect(only(catchEvent(timerOf('Cycle', 'R3/PT1H')), 'w')).toBe(
        "Timer intermediate catch event 'w' has a timer cycle, but the token waits for one firing only: give it a duration or a date.",
      );
    });

    it('a cycle on an interrupting boundary event; non-interrupting is fine', () => {
      const boundary = (attrs: string) =>
        doc(`${chain(['host'], [task('host')])}<bpmn:boundaryEvent id="b" attachedToRef="host"${attrs}>${timerOf('Cycle', 'R/PT1H')}</bpmn:boundaryEvent>
        <bpmn:endEvent id="be"/><bpmn:sequenceFlow id="bf" sourceRef="b" targetRef="be"/>`);
      expect(only(boundary(''), 'b')).toBe(
        "Timer boundary event 'b' has a timer cycle, but it interrupts its activity at the first firing: give it a duration or a date, or make it non-interrupting to fire on every cycle.",
      );
      compileOk(boundary(' cancelActivity="false"'));
    });

    it('a cycle on an interrupting timer start of an event subprocess; non-interrupting is fine', () => {
      const esp = (attrs: string) =>
        doc(`${chain([], [])}<bpmn:subProcess id="x" triggeredByEvent="true"><bpmn:startEvent id="xs"${attrs}>${timerOf('Cycle', 'R/PT1H')}</bpmn:startEvent>
        <bpmn:endEvent id="xe"/><bpmn:sequenceFlow id="xf" sourceRef="xs" targetRef="xe"/></bpmn:subProcess>`);
      expect(only(esp(''), 'xs')).toContain("Timer start event 'xs' has a timer cycle, but it interrupts its scope at the first firing");
      compileOk(esp(' isInterrupting="false"'));
    });

    it('a duration on a process-level timer start event', () => {
      expect(only(doc(`${chain([], [])}<bpmn:startEvent id="t">${timerOf('Duration', 'PT1H')}</bpmn:startEvent>`), 't')).toBe(
        "Timer start event 't' has a timer duration, which has nothing to count from before the process exists: give it a date (start once) or a cycle (start repeatedly).",
      );
    });
  });
});

describe('event-based gateways', () => {
  const timerCatch = (id: string) => `<bpmn:intermediateCatchEvent id="${id}">${timerOf('Duration', 'PT1M')}</bpmn:intermediateCatchEvent>`;
  const messageCatch = (id: string) => `<bpmn:intermediateCatchEvent id="${id}"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>`;
  /** start → g → each target → end. */
  const gateway = (targets: [id: string, element: string][], extra = '') =>
    doc(`<bpmn:startEvent id="s"/><bpmn:eventBasedGateway id="g"/><bpmn:endEvent id="e"/>${targets.map(([, el]) => el).join('')}
      <bpmn:sequenceFlow id="f0" sourceRef="s" targetRef="g"/>
      ${targets.map(([id], i) => `<bpmn:sequenceFlow id="g${i}" sourceRef="g" targetRef="${id}"/><bpmn:sequenceFlow id="o${i}" sourceRef="${id}" targetRef="e"/>`).join('')}${extra}`);

  it('between a timer and a message catch event it compiles', () => {
    compileOk(
      gateway([
        ['t', timerCatch('t')],
        ['m1', messageCatch('m1')],
      ]),
    );
  });

  it('with a receive task after it: not supported, says to use a message catch event', () => {
    expect(
      only(
        gateway([
          ['t', timerCatch('t')],
          ['r', '<bpmn:receiveTask id="r" messageRef="m"/>'],
        ]),
        'g',
      ),
    ).toBe(
      "Event-based gateway 'g' leads to receive task 'r'; Orca does not support receive tasks after an event-based gateway: use a message intermediate catch event instead.",
    );
  });

  it('with a task or a link catch after it', () => {
    expect(
      only(
        gateway([
          ['t', timerCatch('t')],
          ['w', task('w')],
        ]),
        'g',
      ),
    ).toBe("Event-based gateway 'g' leads to service task 'w'; an event-based gateway can only wait for timer and message intermediate catch events.");
    const link = '<bpmn:intermediateCatchEvent id="l"><bpmn:linkEventDefinition name="L"/></bpmn:intermediateCatchEvent>';
    expect(
      only(
        gateway([
          ['t', timerCatch('t')],
          ['l', link],
        ]),
        'g',
      ),
    ).toContain("leads to link intermediate catch event 'l'");
  });

  it('with fewer than two outgoing flows', () => {
    expect(only(gateway([['t', timerCatch('t')]]), 'g')).toBe(
      "Event-based gateway 'g' has only one outgoing flow; it needs at least two, each to an event it waits for (a timer or a message intermediate catch event).",
    );
  });

  it('whose event is also reached by another flow', () => {
    const xml = gateway(
      [
        ['t', timerCatch('t')],
        ['m1', messageCatch('m1')],
      ],
      '<bpmn:sequenceFlow id="back" sourceRef="s" targetRef="m1"/>',
    );
    expect(only(xml, 'g')).toBe(
      "Event-based gateway 'g' leads to 'm1', which has other incoming flows ('back'); an event after an event-based gateway must be reached only through that one flow.",
    );
  });
});

describe('event subprocesses', () => {
  const esp = (inner: string, flows = '') =>
    doc(`${chain([], [])}<bpmn:subProcess id="x" triggeredByEvent="true">${inner}<bpmn:endEvent id="xe"/></bpmn:subProcess>${flows}`);
  const errorStart = (id: string) => `<bpmn:startEvent id="${id}"><bpmn:errorEventDefinition errorRef="err"/></bpmn:startEvent>`;

  it('without a start event', () => {
    expect(only(esp(''), 'x')).toBe("Event subprocess 'x' has no start event: add the timer, error or escalation start event that triggers it.");
  });

  it('with two start events', () => {
    expect(
      only(
        esp(
          `${errorStart('a')}${errorStart('b')}<bpmn:sequenceFlow id="xa" sourceRef="a" targetRef="xe"/><bpmn:sequenceFlow id="xb" sourceRef="b" targetRef="xe"/>`,
        ),
        'x',
      ),
    ).toBe("Event subprocess 'x' has 2 start events ('a', 'b'); an event subprocess has exactly one, the event that triggers it.");
  });

  it('connected by sequence flows', () => {
    const xml = doc(`<bpmn:startEvent id="s"/><bpmn:endEvent id="e"/><bpmn:subProcess id="x" triggeredByEvent="true">${errorStart('a')}<bpmn:endEvent id="xe"/>
      <bpmn:sequenceFlow id="xa" sourceRef="a" targetRef="xe"/></bpmn:subProcess>
      <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="x"/><bpmn:sequenceFlow id="f2" sourceRef="x" targetRef="e"/>`);
    expect(only(xml, 'x')).toBe(
      "Event subprocess 'x' is connected by sequence flows ('f1', 'f2'); an event subprocess starts only through its start event and cannot have incoming or outgoing flows.",
    );
  });
});

describe('one catch per error or escalation code in a scope', () => {
  it('two error boundaries for the same code on one activity, and two catch-alls', () => {
    const boundary = (id: string, definition: string) =>
      `<bpmn:boundaryEvent id="${id}" attachedToRef="host">${definition}</bpmn:boundaryEvent><bpmn:sequenceFlow id="f_${id}" sourceRef="${id}" targetRef="e"/>`;
    const xml = doc(
      chain(['host'], [task('host')]) +
        boundary('b1', '<bpmn:errorEventDefinition errorRef="err"/>') +
        boundary('b2', '<bpmn:errorEventDefinition errorRef="err"/>') +
        boundary('b3', '<bpmn:errorEventDefinition/>') +
        boundary('b4', '<bpmn:errorEventDefinition/>') +
        boundary('b5', '<bpmn:escalationEventDefinition escalationRef="esc"/>'),
    );
    const problems = problemsOf(xml);
    expect(messagesFor(problems, 'b2')).toEqual([
      "'b1' and 'b2' both catch error code 'E' on service task 'host'; only one catch per error code is allowed there.",
    ]);
    expect(messagesFor(problems, 'b4')).toEqual([
      "'b3' and 'b4' both catch every error (no error code) on service task 'host'; only one catch per error code is allowed there.",
    ]);
    expect(problems).toHaveLength(2);
  });

  it('two event subprocesses for the same escalation code in one scope', () => {
    const handler = (id: string) =>
      `<bpmn:subProcess id="${id}" triggeredByEvent="true"><bpmn:startEvent id="${id}s" isInterrupting="false"><bpmn:escalationEventDefinition escalationRef="esc"/></bpmn:startEvent>
        <bpmn:endEvent id="${id}e"/><bpmn:sequenceFlow id="${id}f" sourceRef="${id}s" targetRef="${id}e"/></bpmn:subProcess>`;
    expect(only(doc(`${chain([], [])}${handler('h1')}${handler('h2')}`), 'h2s')).toBe(
      "'h1s' and 'h2s' both catch escalation code 'X' in the event subprocesses of process 'p'; only one catch per escalation code is allowed there.",
    );
  });

  it('different codes, and the same code in different scopes, are fine', () => {
    compileOk(
      doc(`${chain(['host'], [task('host')])}
        <bpmn:boundaryEvent id="b1" attachedToRef="host"><bpmn:errorEventDefinition errorRef="err"/></bpmn:boundaryEvent>
        <bpmn:boundaryEvent id="b2" attachedToRef="host"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>
        <bpmn:sequenceFlow id="fb1" sourceRef="b1" targetRef="e"/><bpmn:sequenceFlow id="fb2" sourceRef="b2" targetRef="e"/>
        <bpmn:subProcess id="h" triggeredByEvent="true"><bpmn:startEvent id="hs"><bpmn:errorEventDefinition errorRef="err"/></bpmn:startEvent>
          <bpmn:endEvent id="he"/><bpmn:sequenceFlow id="hf" sourceRef="hs" targetRef="he"/></bpmn:subProcess>`),
    );
  });
});
