import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import { compileBpmn } from '../model/index.ts';
import { end, engineWith, flow, processXml, service, start, terminateEnd } from './testing.ts';

describe('terminate end, cancel and the step budget', () => {
  it('terminate end ends every other token and completes the instance', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:parallelGateway id="fork"/>' +
        service('slow', 'slow') +
        '<bpmn:exclusiveGateway id="x"/>' +
        terminateEnd('kill') +
        end() +
        flow('f0', 'start', 'fork') +
        flow('f1', 'fork', 'slow') +
        flow('f2', 'fork', 'x') +
        flow('f3', 'x', 'kill') +
        flow('f4', 'slow', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.jobs).toEqual({});
    expect(instance.elements).toEqual({});
    expect(engine.activate('slow', 1)).toHaveLength(0);
    expect(engine.history(key).some((r) => r.type === 'ELEMENT_TERMINATED' && r.elementId === 'slow')).toBe(true);
  });

  it('terminate end inside a subprocess ends that scope only', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:subProcess id="sub">' +
        start('ss') +
        '<bpmn:parallelGateway id="fork"/>' +
        service('inner', 'inner') +
        terminateEnd('kill') +
        end('se') +
        flow('s0', 'ss', 'fork') +
        flow('s1', 'fork', 'inner') +
        flow('s2', 'fork', 'kill') +
        flow('s3', 'inner', 'se') +
        '</bpmn:subProcess>' +
        service('after', 'after') +
        end() +
        flow('f0', 'start', 'sub') +
        flow('f1', 'sub', 'after') +
        flow('f2', 'after', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    expect(engine.activate('inner', 1)).toHaveLength(0);
    const after = engine.activate('after', 1);
    expect(after).toHaveLength(1);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    engine.completeJob(after[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('cancel terminates the instance and withdraws its jobs', () => {
    const compiled = compileBpmn(processXml('p', start() + service('t', 't') + end() + flow('f1', 'start', 't') + flow('f2', 't', 'end')));
    if (!compiled.ok) throw new Error('model rejected');
    let n = 0;
    const ctx = { model: compiled.model.processes[0], nextKey: () => String(++n), now: () => 7 };
    const started = apply(null, { type: 'start' }, ctx);
    if (!started.ok) throw new Error(started.message);
    const jobKey = Object.keys(started.instance.jobs)[0];
    const cancelled = apply(started.instance, { type: 'cancel' }, ctx);
    if (!cancelled.ok) throw new Error(cancelled.message);
    expect(cancelled.instance.state).toBe('TERMINATED');
    expect(cancelled.effects).toEqual([{ type: 'cancelJob', jobKey, jobType: 't' }]);
    expect(apply(cancelled.instance, { type: 'completeJob', jobKey }, ctx)).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(apply(cancelled.instance, { type: 'cancel' }, ctx)).toMatchObject({ ok: false, code: 'INVALID_STATE' });
  });

  it('stops a cycle of gateways with no wait state with an incident instead of hanging', () => {
    const xml = processXml(
      'p',
      start() + '<bpmn:exclusiveGateway id="a"/><bpmn:exclusiveGateway id="b"/>' + flow('f0', 'start', 'a') + flow('ab', 'a', 'b') + flow('ba', 'b', 'a'),
    );
    const engine = engineWith(xml, { stepBudget: 500 });
    const key = engine.start('p');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident.type).toBe('STEP_BUDGET_EXCEEDED');
    expect(incident.message).toContain('500 steps');
  });

  it('stops a forking cycle (token explosion) within the budget', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:exclusiveGateway id="merge"/><bpmn:parallelGateway id="fork"/>' +
        flow('f0', 'start', 'merge') +
        flow('mf', 'merge', 'fork') +
        flow('l1', 'fork', 'merge') +
        flow('l2', 'fork', 'merge'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    expect(engine.instance(key)!.state).toBe('INCIDENT');
    expect(Object.keys(engine.instance(key)!.elements).length).toBeLessThan(10);
  });

  it('refuses to start a process without a none start event', () => {
    const compiled = compileBpmn(processXml('p', start() + end() + flow('f', 'start', 'end')));
    if (!compiled.ok) throw new Error('model rejected');
    const model = { ...compiled.model.processes[0], noneStartEvent: undefined };
    expect(apply(null, { type: 'start' }, { model, nextKey: () => '1', now: () => 0 })).toMatchObject({ ok: false, code: 'INVALID_STATE' });
  });
});
