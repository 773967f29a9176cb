import { describe, expect, it } from 'vitest';
import { fillUpstream } from './reachability.ts';
import { bpmnDoc, compileOk, onlyProcess, readFirstProcess } from './test-fixtures.ts';

const flows = (pairs: [string, string, string?][]) =>
  pairs
    .map(([s, t, cond], i) => {
      const condition = cond ? `<bpmn:conditionExpression>${cond}</bpmn:conditionExpression>` : '';
      return `<bpmn:sequenceFlow id="f${i}" sourceRef="${s}" targetRef="${t}">${condition}</bpmn:sequenceFlow>`;
    })
    .join('\n');

describe('upstream sets of inclusive joins', () => {
  it('a split and join: everything before the join', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:inclusiveGateway id="split"/>
      <bpmn:task id="a"/><bpmn:task id="b"/>
      <bpmn:inclusiveGateway id="join"/>
      <bpmn:endEvent id="e"/>
      ${flows([
        ['s', 'split'],
        ['split', 'a', '=x'],
        ['split', 'b', '=y'],
        ['a', 'join'],
        ['b', 'join'],
        ['join', 'e'],
      ])}`);
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.join.upstream).toEqual(['s', 'split', 'a', 'b']);
    // A split with one incoming flow is not a join: no upstream set.
    expect(proc.elements.split.upstream).toBeUndefined();
  });

  it('a loop through the join: nodes after it that lead back count, the join itself does not', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:inclusiveGateway id="join"/>
      <bpmn:task id="work"/>
      <bpmn:exclusiveGateway id="again" default="out"/>
      <bpmn:endEvent id="e"/>
      <bpmn:task id="side"/>
      <bpmn:sequenceFlow id="in" sourceRef="s" targetRef="join"/>
      <bpmn:sequenceFlow id="w" sourceRef="join" targetRef="work"/>
      <bpmn:sequenceFlow id="a" sourceRef="work" targetRef="again"/>
      <bpmn:sequenceFlow id="back" sourceRef="again" targetRef="join"><bpmn:conditionExpression>=retry</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="out" sourceRef="again" targetRef="e"/>`);
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.join.upstream).toEqual(['s', 'work', 'again']);
  });

  it('an activity reaches the join through its boundary events', () => {
    const p = readFirstProcess(
      bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:parallelGateway id="fork"/>
      <bpmn:task id="slow"/>
      <bpmn:boundaryEvent id="timeout" attachedToRef="slow"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
      <bpmn:task id="other"/>
      <bpmn:inclusiveGateway id="join"/>
      <bpmn:endEvent id="e1"/><bpmn:endEvent id="e2"/>
      ${flows([
        ['s', 'fork'],
        ['fork', 'slow'],
        ['fork', 'other'],
        ['slow', 'e1'],
        ['timeout', 'join'],
        ['other', 'join'],
        ['join', 'e2'],
      ])}`),
    );
    fillUpstream(p);
    expect(p.nodes.get('join')?.node.upstream).toEqual(['s', 'fork', 'slow', 'timeout', 'other']);
  });

  it('stays inside the gateway scope: a subprocess counts as one node', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:parallelGateway id="fork"/>
      <bpmn:subProcess id="sub">
        <bpmn:startEvent id="subStart"/><bpmn:task id="inner"/><bpmn:endEvent id="subEnd"/>
        <bpmn:sequenceFlow id="i1" sourceRef="subStart" targetRef="inner"/>
        <bpmn:sequenceFlow id="i2" sourceRef="inner" targetRef="subEnd"/>
      </bpmn:subProcess>
      <bpmn:task id="b"/>
      <bpmn:inclusiveGateway id="join"/>
      <bpmn:endEvent id="e"/>
      ${flows([
        ['s', 'fork'],
        ['fork', 'sub'],
        ['fork', 'b'],
        ['sub', 'join'],
        ['b', 'join'],
        ['join', 'e'],
      ])}`);
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.join.upstream).toEqual(['s', 'fork', 'sub', 'b']);
  });

  it('an inclusive join inside a subprocess only sees its siblings', () => {
    const xml = bpmnDoc(`
      <bpmn:startEvent id="s"/>
      <bpmn:task id="before"/>
      <bpmn:subProcess id="sub">
        <bpmn:startEvent id="in"/>
        <bpmn:inclusiveGateway id="split"/>
        <bpmn:task id="x"/><bpmn:task id="y"/>
        <bpmn:inclusiveGateway id="join"/>
        <bpmn:endEvent id="out"/>
        ${flows([
          ['in', 'split'],
          ['split', 'x', '=a'],
          ['split', 'y', '=b'],
          ['x', 'join'],
          ['y', 'join'],
          ['join', 'out'],
        ])}
      </bpmn:subProcess>
      <bpmn:endEvent id="e"/>
      <bpmn:sequenceFlow id="o1" sourceRef="s" targetRef="before"/>
      <bpmn:sequenceFlow id="o2" sourceRef="before" targetRef="sub"/>
      <bpmn:sequenceFlow id="o3" sourceRef="sub" targetRef="e"/>`);
    const proc = onlyProcess(compileOk(xml));
    expect(proc.elements.join.upstream).toEqual(['in', 'split', 'x', 'y']);
  });
});
