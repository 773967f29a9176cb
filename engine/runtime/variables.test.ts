import { describe, expect, it } from 'vitest';
import { end, engineWith, flow, ioMapping, processXml, service, start } from './testing.ts';

describe('variables and io mappings', () => {
  it('gives a task local inputs, maps outputs into the process, and keeps job variables local when outputs exist', () => {
    const xml = processXml(
      'p',
      start() +
        service(
          'task',
          'calc',
          ioMapping(
            [
              ['=order.total * 2', 'doubled'],
              ['="fixed"', 'label'],
            ],
            [['=result + 1', 'final']],
          ),
        ) +
        end() +
        flow('f1', 'start', 'task') +
        flow('f2', 'task', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { order: { total: 21 } });
    const [job] = engine.activate('calc', 1);
    expect(job.variables).toEqual({ order: { total: 21 }, doubled: 42, label: 'fixed' });
    engine.completeJob(job.key, { result: 99, scratch: 'x' });
    expect(engine.instance(key)!.variables[key]).toEqual({ order: { total: 21 }, final: 100 });
  });

  it('merges job completion variables into the process scope, overwriting', () => {
    const engine = engineWith(processXml('p', start() + service('t', 't') + end() + flow('f1', 'start', 't') + flow('f2', 't', 'end')));
    const key = engine.start('p', { a: 1, b: 1 });
    engine.completeJob(engine.activate('t', 1)[0].key, { b: 2, c: 3 });
    expect(engine.instance(key)!.variables[key]).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('writes an output to a nested path without touching sibling fields', () => {
    const xml = processXml(
      'p',
      start() + service('t', 't', ioMapping([], [['=42', 'order.total']])) + end() + flow('f1', 'start', 't') + flow('f2', 't', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { order: { id: 'A', total: 0 } });
    engine.completeJob(engine.activate('t', 1)[0].key);
    expect(engine.instance(key)!.variables[key]).toEqual({ order: { id: 'A', total: 42 } });
  });

  it('raises an incident naming the mapping when an input fails', () => {
    const xml = processXml(
      'p',
      start() + service('t', 't', ioMapping([['=substring(name, "x")', 'y']])) + end() + flow('f1', 'start', 't') + flow('f2', 't', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { name: 'abc' });
    const instance = engine.instance(key)!;
    if (instance.state === 'INCIDENT') {
      const [incident] = Object.values(instance.incidents);
      expect(incident).toMatchObject({ type: 'IO_MAPPING_ERROR', elementId: 't' });
      expect(incident.message).toContain('substring(name, "x")');
    } else {
      // feelin answers null (with a warning) for a bad argument: the mapping then yields null, as in Camunda 8.
      expect(engine.activate('t', 1)[0].variables.y).toBeNull();
    }
  });

  it('gives an embedded subprocess its own scope: locals stay inside, completion variables propagate out', () => {
    const xml = processXml(
      'p',
      start() +
        `<bpmn:subProcess id="sub"><bpmn:extensionElements>${ioMapping([['=10', 'limit']], [['=limit', 'usedLimit']])}</bpmn:extensionElements>` +
        start('subStart') +
        service('inner', 'inner') +
        end('subEnd') +
        flow('s1', 'subStart', 'inner') +
        flow('s2', 'inner', 'subEnd') +
        '</bpmn:subProcess>' +
        service('after', 'after') +
        end() +
        flow('f1', 'start', 'sub') +
        flow('f2', 'sub', 'after') +
        flow('f3', 'after', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { customer: 'c1' });
    const [inner] = engine.activate('inner', 1);
    expect(inner.variables).toEqual({ customer: 'c1', limit: 10 });
    engine.completeJob(inner.key, { limit: 20, approved: true });
    const [after] = engine.activate('after', 1);
    // `limit` existed in the subprocess scope, so the job's write landed there and left with it;
    // `approved` was new and propagated to the process.
    expect(after.variables).toEqual({ customer: 'c1', approved: true, usedLimit: 20 });
    engine.completeJob(after.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

describe('scopes seen through an element with input mappings', () => {
  it('an element with inputs inside a subprocess sees the subprocess scope, and a decision/job type reads it', () => {
    const xml = processXml(
      'p',
      start() +
        `<bpmn:subProcess id="sub"><bpmn:extensionElements>${ioMapping([['="inner"', 'where']])}</bpmn:extensionElements>` +
        start('ss') +
        service('t', '="work-" + where', ioMapping([['=where + "!"', 'mark']])) +
        end('se') +
        flow('s1', 'ss', 't') +
        flow('s2', 't', 'se') +
        '</bpmn:subProcess>' +
        end() +
        flow('f1', 'start', 'sub') +
        flow('f2', 'sub', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { top: 1 });
    const [job] = engine.activate('work-inner', 1);
    expect(job.variables).toEqual({ top: 1, where: 'inner', mark: 'inner!' });
    engine.completeJob(job.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});
