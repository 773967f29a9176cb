import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import { compileBpmn } from '../model/index.ts';
import { CommandRejected } from './in-memory-engine.ts';
import { end, engineWith, flow, processXml, service, start } from './testing.ts';

const oneTask = processXml('p', start() + service('task', 'work', '', '2') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

describe('job failure and incidents (SPEC.md States and transitions)', () => {
  it('offers a failed job again at once while retries remain', () => {
    const engine = engineWith(oneTask);
    engine.start('p');
    const [job] = engine.activate('work', 1);
    expect(engine.activate('work', 1)).toHaveLength(0);
    engine.failJob(job.key, 1, 'timeout talking to the bank');
    const [again] = engine.activate('work', 1);
    expect(again).toMatchObject({ key: job.key, retries: 1 });
  });

  it('raises an incident and moves the instance to INCIDENT when retries reach zero', () => {
    const engine = engineWith(oneTask);
    const key = engine.start('p');
    const [job] = engine.activate('work', 1);
    engine.failJob(job.key, 0, 'card declined');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident).toMatchObject({ type: 'JOB_NO_RETRIES', elementId: 'task', jobKey: job.key });
    expect(incident.message).toContain('card declined');
    expect(engine.activate('work', 1)).toHaveLength(0);
    expect(() => engine.completeJob(job.key)).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    expect(engine.instance(key)!.state).toBe('INCIDENT');
  });

  it('keeps the instance in INCIDENT while another branch goes on to its end', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:parallelGateway id="fork"/>' +
        service('a', 'a') +
        service('b', 'b') +
        end('ea') +
        end('eb') +
        flow('f0', 'start', 'fork') +
        flow('fa', 'fork', 'a') +
        flow('fb', 'fork', 'b') +
        flow('ga', 'a', 'ea') +
        flow('gb', 'b', 'eb'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    engine.failJob(engine.activate('a', 1)[0].key, 0);
    engine.completeJob(engine.activate('b', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('INCIDENT');
  });

  it('answers not found for a job that was completed, and for an unknown job', () => {
    const engine = engineWith(oneTask);
    engine.start('p');
    const [job] = engine.activate('work', 1);
    engine.completeJob(job.key);
    expect(() => engine.completeJob(job.key)).toThrow(CommandRejected);
    expect(() => engine.completeJob(job.key)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => engine.failJob('123', 1)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('rejects negative or fractional retries and leaves the job as it was', () => {
    const engine = engineWith(oneTask);
    engine.start('p');
    const [job] = engine.activate('work', 1);
    expect(() => engine.failJob(job.key, -1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => engine.failJob(job.key, 1.5)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    engine.completeJob(job.key);
  });

  it('rejects a command without changing the document', () => {
    const compiled = compileBpmn(oneTask);
    if (!compiled.ok) throw new Error('model rejected');
    let n = 0;
    const ctx = { model: compiled.model.processes[0], nextKey: () => String(++n), now: () => 1000 };
    const started = apply(null, { type: 'start', variables: { a: 1 } }, ctx);
    if (!started.ok) throw new Error(started.message);
    const before = structuredClone(started.instance);
    const rejected = apply(started.instance, { type: 'completeJob', jobKey: 'nope' }, ctx);
    expect(rejected).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(started.instance).toEqual(before);
  });

  it('is deterministic: the same commands with the same clock and keys give the same documents', () => {
    const compiled = compileBpmn(oneTask);
    if (!compiled.ok) throw new Error('model rejected');
    const run = () => {
      let n = 0;
      const ctx = { model: compiled.model.processes[0], nextKey: () => String(++n), now: () => 42 };
      const started = apply(null, { type: 'start', variables: { a: 1 } }, ctx);
      if (!started.ok) throw new Error(started.message);
      const jobKey = Object.keys(started.instance.jobs)[0];
      const done = apply(started.instance, { type: 'completeJob', jobKey, variables: { b: 2 } }, ctx);
      return JSON.stringify(done);
    };
    expect(run()).toEqual(run());
  });
});
