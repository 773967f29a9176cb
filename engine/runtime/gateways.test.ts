import { describe, expect, it } from 'vitest';
import { end, engineWith, flow, processXml, service, start, visited } from './testing.ts';

const exclusive = (defaultFlow?: string) =>
  processXml(
    'p',
    start() +
      `<bpmn:exclusiveGateway id="gw"${defaultFlow ? ` default="${defaultFlow}"` : ''}/>` +
      service('big', 'big') +
      service('small', 'small') +
      service('other', 'other') +
      end('e1') +
      flow('f0', 'start', 'gw') +
      flow('toBig', 'gw', 'big', '=amount > 1000') +
      flow('toSmall', 'gw', 'small', '=amount <= 1000 and amount > 0') +
      (defaultFlow ? flow('toOther', 'gw', 'other') : '') +
      flow('b1', 'big', 'e1') +
      flow('b2', 'small', 'e1') +
      (defaultFlow ? flow('b3', 'other', 'e1') : ''),
  );

describe('exclusive gateway', () => {
  it('takes the first flow whose condition is true', () => {
    const engine = engineWith(exclusive('toOther'));
    engine.start('p', { amount: 5000 });
    engine.start('p', { amount: 10 });
    expect(engine.activate('big', 10)).toHaveLength(1);
    expect(engine.activate('small', 10)).toHaveLength(1);
    expect(engine.activate('other', 10)).toHaveLength(0);
  });

  it('takes the default flow when no condition is true', () => {
    const engine = engineWith(exclusive('toOther'));
    const key = engine.start('p', { amount: -1 });
    expect(engine.activate('other', 10)).toHaveLength(1);
    expect(
      engine
        .history(key)
        .filter((r) => r.type === 'SEQUENCE_FLOW_TAKEN')
        .map((r) => r.elementId),
    ).toEqual(['f0', 'toOther']);
  });

  it('raises an incident when no condition is true and there is no default flow', () => {
    const engine = engineWith(exclusive());
    const key = engine.start('p', { amount: -1 });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident).toMatchObject({ type: 'CONDITION_ERROR', elementId: 'gw' });
    expect(incident.message).toContain('no default flow');
  });

  it('raises an incident naming the expression when a condition does not give a boolean', () => {
    const engine = engineWith(exclusive('toOther'));
    const key = engine.start('p', {});
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident.type).toBe('CONDITION_ERROR');
    expect(incident.message).toContain('amount > 1000');
    expect(incident.message).toContain('toBig');
  });

  it('merges several incoming flows without waiting', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:parallelGateway id="fork"/><bpmn:exclusiveGateway id="merge"/>' +
        service('after', 'after') +
        end() +
        flow('f0', 'start', 'fork') +
        flow('a', 'fork', 'merge') +
        flow('b', 'fork', 'merge') +
        flow('m', 'merge', 'after') +
        flow('e', 'after', 'end'),
    );
    const engine = engineWith(xml);
    engine.start('p');
    expect(engine.activate('after', 10)).toHaveLength(2);
  });
});

describe('parallel gateway', () => {
  const xml = processXml(
    'p',
    start() +
      '<bpmn:parallelGateway id="fork"/><bpmn:parallelGateway id="join"/>' +
      service('a', 'a') +
      service('b', 'b') +
      service('c', 'c') +
      service('after', 'after') +
      end() +
      flow('f0', 'start', 'fork') +
      flow('fa', 'fork', 'a') +
      flow('fb', 'fork', 'b') +
      flow('fc', 'fork', 'c') +
      flow('ja', 'a', 'join') +
      flow('jb', 'b', 'join') +
      flow('jc', 'c', 'join') +
      flow('fj', 'join', 'after') +
      flow('fe', 'after', 'end'),
  );

  it('forks to every outgoing flow and joins once all arrive', () => {
    const engine = engineWith(xml);
    const key = engine.start('p');
    const jobs = ['a', 'b', 'c'].map((t) => engine.activate(t, 5));
    expect(jobs.map((j) => j.length)).toEqual([1, 1, 1]);
    engine.completeJob(jobs[0][0].key);
    engine.completeJob(jobs[2][0].key);
    expect(engine.activate('after', 5)).toHaveLength(0);
    expect(engine.instance(key)!.joins).not.toEqual({});
    engine.completeJob(jobs[1][0].key);
    const [after] = engine.activate('after', 5);
    expect(after).toBeDefined();
    expect(engine.instance(key)!.joins).toEqual({});
    engine.completeJob(after.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key).filter((id) => id === 'join')).toHaveLength(1);
  });
});

describe('inclusive gateway', () => {
  const xml = processXml(
    'p',
    start() +
      '<bpmn:inclusiveGateway id="fork" default="fd"/><bpmn:inclusiveGateway id="join"/>' +
      service('ship', 'ship') +
      service('invoice', 'invoice') +
      service('gift', 'gift') +
      service('plain', 'plain') +
      service('after', 'after') +
      end() +
      flow('f0', 'start', 'fork') +
      flow('f1', 'fork', 'ship', '=physical') +
      flow('f2', 'fork', 'invoice', '=billable') +
      flow('f3', 'fork', 'gift', '=gift') +
      flow('fd', 'fork', 'plain') +
      flow('j1', 'ship', 'join') +
      flow('j2', 'invoice', 'join') +
      flow('j3', 'gift', 'join') +
      flow('j4', 'plain', 'join') +
      flow('fa', 'join', 'after') +
      flow('fe', 'after', 'end'),
  );

  it('forks to every true condition and joins when no other token can arrive', () => {
    const engine = engineWith(xml);
    const key = engine.start('p', { physical: true, billable: true, gift: false });
    const ship = engine.activate('ship', 5);
    const invoice = engine.activate('invoice', 5);
    expect([ship.length, invoice.length, engine.activate('gift', 5).length, engine.activate('plain', 5).length]).toEqual([1, 1, 0, 0]);
    engine.completeJob(ship[0].key);
    expect(engine.activate('after', 5)).toHaveLength(0);
    engine.completeJob(invoice[0].key);
    const after = engine.activate('after', 5);
    expect(after).toHaveLength(1);
    engine.completeJob(after[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('takes the default flow when no condition holds, and a single token passes the join at once', () => {
    const engine = engineWith(xml);
    engine.start('p', { physical: false, billable: false, gift: false });
    const plain = engine.activate('plain', 5);
    expect(plain).toHaveLength(1);
    engine.completeJob(plain[0].key);
    expect(engine.activate('after', 5)).toHaveLength(1);
  });

  it('raises an incident when no condition holds and there is no default', () => {
    const engine = engineWith(xml.replace(' default="fd"', '').replace(flowTag('fd'), '').replace(flowTag('j4'), ''));
    const key = engine.start('p', { physical: false, billable: false, gift: false });
    expect(Object.values(engine.instance(key)!.incidents)[0]).toMatchObject({ type: 'CONDITION_ERROR', elementId: 'fork' });
  });

  it('joins without waiting for a branch whose token ended elsewhere', () => {
    const model = processXml(
      'p',
      start() +
        '<bpmn:inclusiveGateway id="fork"/><bpmn:exclusiveGateway id="check" default="cj"/><bpmn:inclusiveGateway id="join"/>' +
        service('a', 'a') +
        service('b', 'b') +
        service('after', 'after') +
        end('early') +
        end() +
        flow('f0', 'start', 'fork') +
        flow('fa', 'fork', 'a', '=true') +
        flow('fb', 'fork', 'b', '=true') +
        flow('ja', 'a', 'join') +
        flow('bc', 'b', 'check') +
        flow('ce', 'check', 'early', '=skip') +
        flow('cj', 'check', 'join') +
        flow('fj', 'join', 'after') +
        flow('fe', 'after', 'end'),
    );
    const engine = engineWith(model);
    const key = engine.start('p', { skip: true });
    engine.completeJob(engine.activate('a', 1)[0].key);
    expect(engine.activate('after', 5)).toHaveLength(0);
    engine.completeJob(engine.activate('b', 1)[0].key);
    const after = engine.activate('after', 5);
    expect(after).toHaveLength(1);
    engine.completeJob(after[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

function flowTag(id: string): string {
  return `<bpmn:sequenceFlow id="${id}" sourceRef="plain" targetRef="join"/>`.replace(
    /sourceRef="plain" targetRef="join"/,
    id === 'fd' ? 'sourceRef="fork" targetRef="plain"' : 'sourceRef="plain" targetRef="join"',
  );
}
