// A job's activation timeout (extension): a job activated with a timeout and
// neither completed nor failed by then is offered again; a fail gives it
// back (and withdraws the deadline); a completion, late or not, is taken
// while the job exists, after which any other answer for it is NOT_FOUND.
// Without a timeout nothing changes (SPEC.md: no lock period).
import { describe, expect, it } from 'vitest';
import { CommandRejected } from './in-memory-engine.ts';
import { end, engineWith, fakeClock, flow, processXml, service, start } from './testing.ts';

const xml = processXml('p', start() + service('t', 'work') + end() + flow('f1', 'start', 't') + flow('f2', 't', 'end'));

describe('activation timeout', () => {
  it('offers a job again once its activation timeout has passed, not before', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('work', 1, { timeout: 30_000, worker: 'a' });
    expect(engine.instance(key)!.jobs[job.key].held).toMatchObject({ worker: 'a', at: clock.now() });
    expect(engine.nextTimerDue()).toBe(clock.now() + 30_000);
    clock.advance(29_999);
    expect(engine.fireDueTimers()).toBe(0);
    expect(engine.activate('work', 1)).toHaveLength(0);
    clock.advance(1);
    expect(engine.fireDueTimers()).toBe(1);
    expect(engine.instance(key)!.jobs[job.key].held).toBeUndefined();
    const [again] = engine.activate('work', 1, { worker: 'b' });
    expect(again).toMatchObject({ key: job.key, retries: job.retries });
    // Worker a answers late: the job still exists, so its completion is taken (first completion wins, as in Zeebe) ...
    engine.completeJob(job.key, { by: 'a' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    // ... and worker b, now holding a job that is gone, is told NOT_FOUND.
    expect(() => engine.completeJob(again.key)).toThrow(CommandRejected);
    expect(() => engine.failJob(again.key, 1)).toThrow(/not found/);
  });

  it('a fail withdraws the deadline; a completion in time leaves no timer', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('work', 1, { timeout: 10_000 });
    engine.failJob(job.key, 2, 'flaky');
    expect(engine.nextTimerDue()).toBeUndefined();
    const [again] = engine.activate('work', 1, { timeout: 10_000 });
    expect(again.key).toBe(job.key);
    engine.completeJob(again.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.timers).toEqual({});
    expect(engine.nextTimerDue()).toBeUndefined();
  });

  it('a re-activation replaces the deadline; a cancel withdraws it', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('work', 1, { timeout: 10_000 });
    clock.advance(10_000);
    expect(engine.fireDueTimers()).toBe(1);
    engine.activate('work', 1, { timeout: 60_000, worker: 'b' });
    expect(Object.values(engine.instance(key)!.timers)).toHaveLength(1);
    expect(engine.instance(key)!.jobs[job.key].held?.worker).toBe('b');
    engine.cancel(key);
    expect(engine.nextTimerDue()).toBeUndefined();
  });

  it('without a timeout nothing is held and nothing is offered again (SPEC.md: no lock period)', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('work', 1);
    expect(engine.instance(key)!.jobs[job.key].held).toBeUndefined();
    expect(engine.nextTimerDue()).toBeUndefined();
    clock.advance(86_400_000);
    expect(engine.fireDueTimers()).toBe(0);
    expect(engine.activate('work', 1)).toHaveLength(0);
  });

  it('refuses a timeout that is not a whole number of milliseconds above 0, changing nothing', () => {
    const engine = engineWith(xml);
    const key = engine.start('p');
    const [job] = engine.activate('work', 1);
    for (const timeout of [-5, 1.5]) {
      expect(() => engine.command(key, { type: 'holdJob', jobKey: job.key, worker: 'a', timeout })).toThrow(/timeout/);
    }
    expect(engine.instance(key)!.jobs[job.key].held).toBeUndefined();
    expect(engine.instance(key)!.timers).toEqual({});
  });
});
