import { describe, expect, it } from 'vitest';
import { compileBpmn } from './compile.ts';
import { BPMN, ZEEBE, bpmnDoc, chain, compileOk, messagesFor, onlyProcess, problemsOf } from './test-fixtures.ts';
import { BPMN_NS, parseXml, ZEEBE_NS } from './xml.ts';

const SERVICE = (prefix: string, zeebePrefix = 'zeebe') =>
  `<${prefix}serviceTask id="t"><${prefix}extensionElements><${zeebePrefix}:taskDefinition type="work"/></${prefix}extensionElements></${prefix}serviceTask>`;

function docWithPrefix(prefix: string, declaration: string): string {
  const p = prefix === '' ? '' : `${prefix}:`;
  return `<?xml version="1.0"?>
<${p}definitions ${declaration} xmlns:zeebe="${ZEEBE}" id="d">
  <${p}process id="proc" isExecutable="true">
    <${p}startEvent id="s"/>
    ${SERVICE(p)}
    <${p}endEvent id="e"/>
    <${p}sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <${p}sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
  </${p}process>
</${p}definitions>`;
}

describe('namespace resolution', () => {
  it.each([
    ['bpmn', `xmlns:bpmn="${BPMN}"`],
    ['bpmn2', `xmlns:bpmn2="${BPMN}"`],
    ['semantic', `xmlns:semantic="${BPMN}"`],
    ['', `xmlns="${BPMN}"`],
  ])('reads BPMN bound to prefix %j', (prefix, declaration) => {
    const proc = onlyProcess(compileOk(docWithPrefix(prefix, declaration)));
    expect(proc.id).toBe('proc');
    expect(Object.keys(proc.elements)).toEqual(['s', 't', 'e']);
    expect(proc.elements.t.job?.type).toEqual({ kind: 'literal', value: 'work' });
  });

  it('resolves by URI, not by prefix: bpmn: bound to another namespace is not BPMN', () => {
    const xml = `<definitions xmlns="${BPMN}" xmlns:bpmn="http://example.com/not-bpmn" id="d">
      <process id="proc" isExecutable="true"><startEvent id="s"/><bpmn:task id="fake"/></process></definitions>`;
    const proc = onlyProcess(compileOk(xml));
    expect(Object.keys(proc.elements)).toEqual(['s']);
  });

  it('honours declarations on inner elements and rebinding of prefixes', () => {
    const xml = `<bpmn:definitions xmlns:bpmn="${BPMN}" xmlns:zeebe="${ZEEBE}" id="d">
      <b:process xmlns:b="${BPMN}" id="proc" isExecutable="true">
        <b:startEvent id="s"/>
        <b:serviceTask id="t"><b:extensionElements><z:taskDefinition xmlns:z="${ZEEBE}" type="inner"/></b:extensionElements></b:serviceTask>
        <b:sequenceFlow id="f" sourceRef="s" targetRef="t"/>
        <x:startEvent xmlns:x="http://example.com/other" id="ignored"/>
      </b:process>
    </bpmn:definitions>`;
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.t.job?.type).toEqual({ kind: 'literal', value: 'inner' });
    expect(proc.elements.ignored).toBeUndefined();
  });

  it('resolves the zeebe namespace under any prefix declared on definitions', () => {
    const xml = docWithPrefix('bpmn', `xmlns:bpmn="${BPMN}" xmlns:c8="${ZEEBE}"`).replace('zeebe:taskDefinition', 'c8:taskDefinition');
    expect(onlyProcess(compileOk(xml)).elements.t.job?.type).toEqual({ kind: 'literal', value: 'work' });
  });

  it('decodes XML entities and numeric character references (Camunda Modeler writes quotes as &#34;)', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:exclusiveGateway id="g" default="d"/>
      <bpmn:task id="a"><bpmn:extensionElements><zeebe:ioMapping>
        <zeebe:input source="=&#34;x&#34; + &quot;y&quot;" target="v"/>
      </zeebe:ioMapping></bpmn:extensionElements></bpmn:task>
      <bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="f0" sourceRef="s" targetRef="g"/>
      <bpmn:sequenceFlow id="c1" sourceRef="g" targetRef="a">
        <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">=amount &lt; 10 and name = &#x22;A&#x22;</bpmn:conditionExpression>
      </bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="c2" sourceRef="g" targetRef="a"><bpmn:conditionExpression><![CDATA[=amount > 100 and "<b>" != ""]]></bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="d" sourceRef="g" targetRef="e"/>
      <bpmn:sequenceFlow id="f1" sourceRef="a" targetRef="e"/>`);
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.a.inputs).toEqual([{ source: '"x" + "y"', target: 'v' }]);
    expect(proc.flows.c1.condition).toBe('amount < 10 and name = "A"');
    expect(proc.flows.c2.condition).toBe('amount > 100 and "<b>" != ""');
  });
});

describe('parseXml', () => {
  it('tolerates a byte order mark and whitespace before the XML declaration, and keeps error lines true', () => {
    const doc = `<?xml version="1.0" encoding="UTF-8"?>\n<definitions xmlns="${BPMN_NS}"><process id="p"/></definitions>`;
    expect(parseXml(`\uFEFF${doc}`).ok).toBe(true);
    expect(parseXml(`\n\n  ${doc}`).ok).toBe(true);
    const broken = parseXml(`\n\n${doc.replace('<process id="p"/>', '<process id="p">')}`);
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.problems[0].message).toContain('line 4');
  });

  it('keeps document order, text and qualified attributes', () => {
    const parsed = parseXml(
      `<bpmn:definitions xmlns:bpmn="${BPMN_NS}" xmlns:zeebe="${ZEEBE_NS}" zeebe:x="1"><bpmn:b/><bpmn:a>hi</bpmn:a><bpmn:c/></bpmn:definitions>`,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.root.children.map((c) => c.local)).toEqual(['b', 'a', 'c']);
    expect(parsed.root.children[1].text).toBe('hi');
    expect(parsed.root.nsAttrs).toEqual([{ ns: ZEEBE_NS, prefix: 'zeebe', local: 'x', value: '1' }]);
    expect(parsed.root.xmlns).toEqual({ bpmn: BPMN_NS, zeebe: ZEEBE_NS });
  });
});

describe('the zeebe namespace must be declared on definitions (SPEC.md)', () => {
  const body = chain(['t'], ['<bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="x"/></bpmn:extensionElements></bpmn:serviceTask>']);

  it('rejects zeebe: used without any declaration, naming the element and the xmlns to add', () => {
    const problems = problemsOf(bpmnDoc(body, { zeebe: false }));
    const messages = messagesFor(problems, 't');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("Service task 't' uses zeebe:taskDefinition");
    expect(messages[0]).toContain(`add xmlns:zeebe="${ZEEBE}" to the definitions element`);
  });

  it('rejects a declaration that sits only on an inner element', () => {
    const inner = body.replace('<zeebe:taskDefinition', `<zeebe:taskDefinition xmlns:zeebe="${ZEEBE}"`);
    const problems = problemsOf(bpmnDoc(inner, { zeebe: false }));
    expect(messagesFor(problems, 't')[0]).toContain('not declared on the definitions element');
  });

  it('also counts zeebe attributes (zeebe:modelerTemplate)', () => {
    const withAttr = chain(['t'], ['<bpmn:task id="t" zeebe:modelerTemplate="x"/>']);
    const problems = problemsOf(bpmnDoc(withAttr, { zeebe: false }));
    expect(messagesFor(problems, 't')[0]).toContain('uses zeebe:modelerTemplate');
  });

  it('accepts models without any zeebe usage and without the declaration', () => {
    expect(compileBpmn(bpmnDoc(chain(['t'], ['<bpmn:task id="t"/>']), { zeebe: false })).ok).toBe(true);
  });
});
