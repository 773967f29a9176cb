// A failed job's retryBackOff (extension): with retries left the job is
// offered again once the back-off has passed, not at once; without one, at
// once (SPEC.md); the back-off timer goes with its element, so a completion
// during it or a cancel leaves nothing to fire.
import { describe, expect, it } from 'vitest';
import { end, engineWith, fakeClock, flow, processXml, service, start } from './testing.ts';

const xml = processXml('p', start() + service('t', 'work') + end() + flow('f1', 'start', 't') + flow('f2', 't', 'end'));

describe('retryBackOff on fail', () => {
  it('offers the job again when the back-off has passed, not before', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('work', 1);
    engine.failJob(job.key, 2, 'flaky', 5_000);
    expect(engine.activate('work', 1)).toHaveLength(0);
    expect(engine.nextTimerDue()).toBe(clock.now() + 5_000);
    clock.advance(4_999);
    expect(engine.fireDueTimers()).toBe(0);
    expect(engine.activate('work', 1)).toHaveLength(0);
    clock.advance(1);
    expect(engine.fireDueTimers()).toBe(1);
    const [again] = engine.activate('work', 1);
    expect(again).toMatchObject({ key: job.key, retries: 2 });
    engine.completeJob(again.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.timers).toEqual({});
  });

  it('without a back-off (or 0) offers it at once, as SPEC.md says', () => {
    const engine = engineWith(xml);
    engine.start('p');
    const [job] = engine.activate('work', 1);
    engine.failJob(job.key, 1, 'flaky', 0);
    expect(engine.activate('work', 1)).toHaveLength(1);
  });

  it('a completion during the back-off or a cancel withdraws its timer; no retries left is an incident at once', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const done = engine.start('p');
    const [job] = engine.activate('work', 1);
    engine.failJob(job.key, 1, 'flaky', 60_000);
    engine.completeJob(job.key);
    expect(engine.instance(done)!.state).toBe('COMPLETED');
    expect(engine.nextTimerDue()).toBeUndefined();

    const cancelled = engine.start('p');
    engine.failJob(engine.activate('work', 1)[0].key, 1, 'flaky', 60_000);
    engine.cancel(cancelled);
    expect(engine.nextTimerDue()).toBeUndefined();

    const failed = engine.start('p');
    engine.failJob(engine.activate('work', 1)[0].key, 0, 'broken', 60_000);
    expect(engine.instance(failed)!.state).toBe('INCIDENT');
    expect(engine.nextTimerDue()).toBeUndefined();
  });

  it('refuses a back-off that is not a whole number of milliseconds, changing nothing', () => {
    const engine = engineWith(xml);
    engine.start('p');
    const [job] = engine.activate('work', 1);
    expect(() => engine.failJob(job.key, 1, 'flaky', -1)).toThrow(/retryBackOff/);
    expect(() => engine.failJob(job.key, 1, 'flaky', 1.5)).toThrow(/retryBackOff/);
    engine.completeJob(job.key);
  });
});
