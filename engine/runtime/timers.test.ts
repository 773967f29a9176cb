import { describe, expect, it } from 'vitest';
import { CommandRejected } from './in-memory-engine.ts';
import { MINUTE, end, engineWith, escapeXml, fakeClock, flow, processXml, service, start, timerBoundary, timerCatch, visited } from './testing.ts';

describe('timer intermediate catch events', () => {
  it('waits for a duration and goes on when the timer fires', () => {
    const clock = fakeClock();
    const engine = engineWith(
      processXml('p', start() + timerCatch('wait', 'timeDuration', 'PT10M') + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end')),
      { now: clock.now },
    );
    const key = engine.start('p');
    expect(engine.nextTimerDue()).toBe(clock.now() + 10 * MINUTE);
    clock.advance(10 * MINUTE - 1);
    expect(engine.fireDueTimers()).toBe(0);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    clock.advance(1);
    expect(engine.fireDueTimers()).toBe(1);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.timers).toEqual({});
  });

  it('fires a date in the past at once', () => {
    const clock = fakeClock();
    const engine = engineWith(
      processXml('p', start() + timerCatch('wait', 'timeDate', '2020-01-01T00:00:00Z') + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end')),
      { now: clock.now },
    );
    const key = engine.start('p');
    expect(engine.fireDueTimers()).toBe(1);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('evaluates a FEEL timer expression against the variables', () => {
    const clock = fakeClock();
    const engine = engineWith(
      processXml('p', start() + timerCatch('wait', 'timeDuration', '=delay') + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end')),
      { now: clock.now },
    );
    engine.start('p', { delay: 'PT2H' });
    expect(engine.nextTimerDue()).toBe(clock.now() + 120 * MINUTE);
  });

  it('takes FEEL durations and dates and times as well as strings, as Camunda 8 does', () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const xml = (kind: 'timeDuration' | 'timeDate', text: string) =>
      processXml('p', start() + timerCatch('wait', kind, text) + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end'));
    const byDuration = engineWith(xml('timeDuration', '=duration("PT" + string(seconds) + "S")'), { now: clock.now });
    byDuration.start('p', { seconds: 90 });
    expect(byDuration.nextTimerDue()).toBe(clock.now() + 90_000);
    const byDate = engineWith(xml('timeDate', '=date and time("2026-01-01T10:00:00@Europe/Berlin")'), { now: clock.now });
    byDate.start('p');
    expect(byDate.nextTimerDue()).toBe(Date.UTC(2026, 0, 1, 9));
  });

  it('raises an incident for a FEEL value that is no string, duration or date and time', () => {
    const engine = engineWith(
      processXml('p', start() + timerCatch('wait', 'timeDuration', '=delay') + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end')),
    );
    const key = engine.start('p', { delay: 10 });
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident).toMatchObject({ type: 'EXTRACT_VALUE_ERROR', elementId: 'wait' });
    expect(incident.message).toContain('number 10, not a string, duration or date and time');
  });

  it('raises an incident naming the element for an unusable timer value', () => {
    const engine = engineWith(
      processXml('p', start() + timerCatch('wait', 'timeDuration', '=delay') + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end')),
    );
    const key = engine.start('p', { delay: 'ten minutes' });
    const [incident] = Object.values(engine.instance(key)!.incidents);
    expect(incident).toMatchObject({ type: 'EXTRACT_VALUE_ERROR', elementId: 'wait' });
    expect(incident.message).toContain('ten minutes');
  });
});

describe('timer boundary events', () => {
  const deadline = (interrupting: boolean, text: string, kind: 'timeDuration' | 'timeCycle' = 'timeDuration') =>
    processXml(
      'p',
      start() +
        service('task', 'work') +
        timerBoundary('deadline', 'task', kind, text, interrupting) +
        service('escalate', 'escalate') +
        end() +
        end('late') +
        flow('f1', 'start', 'task') +
        flow('f2', 'task', 'end') +
        flow('f3', 'deadline', 'escalate') +
        flow('f4', 'escalate', 'late'),
    );

  it('interrupting: cancels the job, so completing it later answers not found', () => {
    const clock = fakeClock();
    const engine = engineWith(deadline(true, 'PT1H'), { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('work', 1);
    clock.advance(60 * MINUTE);
    engine.fireDueTimers();
    expect(engine.instance(key)!.jobs[job.key]).toBeUndefined();
    expect(() => engine.completeJob(job.key)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    const [escalate] = engine.activate('escalate', 1);
    engine.completeJob(escalate.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key)).toEqual(['start', 'deadline', 'escalate', 'late']);
  });

  it('is disarmed when the task completes first', () => {
    const clock = fakeClock();
    const engine = engineWith(deadline(true, 'PT1H'), { now: clock.now });
    const key = engine.start('p');
    engine.completeJob(engine.activate('work', 1)[0].key);
    expect(engine.nextTimerDue()).toBeUndefined();
    clock.advance(120 * MINUTE);
    expect(engine.fireDueTimers()).toBe(0);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('non-interrupting cycle: fires repeatedly while the task runs, and the task stays', () => {
    const clock = fakeClock();
    const engine = engineWith(deadline(false, 'R3/PT10M', 'timeCycle'), { now: clock.now });
    const key = engine.start('p');
    for (let i = 0; i < 5; i++) {
      clock.advance(10 * MINUTE);
      engine.fireDueTimers();
    }
    expect(engine.activate('escalate', 10)).toHaveLength(3);
    const [work] = engine.activate('work', 1);
    expect(work).toBeDefined();
    engine.completeJob(work.key);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
  });

  it('cancelling the instance cancels the boundary timer', () => {
    const clock = fakeClock();
    const engine = engineWith(deadline(true, 'PT1H'), { now: clock.now });
    const key = engine.start('p');
    engine.cancel(key);
    expect(engine.nextTimerDue()).toBeUndefined();
    expect(engine.instance(key)!.state).toBe('TERMINATED');
  });
});

describe('timer start events and event subprocesses', () => {
  it('starts instances on a timer start event cycle; a new version replaces the schedule', () => {
    const clock = fakeClock();
    const xml = (cycle: string) =>
      processXml(
        'tick',
        `<bpmn:startEvent id="every"><bpmn:timerEventDefinition><bpmn:timeCycle>${cycle}</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>` +
          service('t', 'tick') +
          flow('f1', 'every', 't'),
      );
    const engine = engineWith(xml('R2/PT1M'), { now: clock.now });
    clock.advance(MINUTE);
    engine.fireDueTimers();
    clock.advance(MINUTE);
    engine.fireDueTimers();
    clock.advance(MINUTE);
    engine.fireDueTimers();
    expect(engine.activate('tick', 10)).toHaveLength(2);
    expect(engine.nextTimerDue()).toBeUndefined();
  });

  it('evaluates a FEEL timer start event at deploy time, without variables', () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    const xml = (date: string) =>
      processXml(
        'later',
        `<bpmn:startEvent id="at"><bpmn:timerEventDefinition><bpmn:timeDate>${escapeXml(date)}</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:startEvent>` +
          service('t', 'later') +
          flow('f1', 'at', 't'),
      );
    const engine = engineWith(xml('=date and time("2026-01-01T00:00:00Z") + duration("PT2M")'), { now: clock.now });
    expect(engine.nextTimerDue()).toBe(clock.now() + 2 * MINUTE);
    clock.advance(2 * MINUTE);
    expect(engine.fireDueTimers()).toBe(1);
    expect(engine.activate('later', 10)).toHaveLength(1);
    expect(engine.nextTimerDue()).toBeUndefined();
    expect(() => engineWith(xml('=startAt'))).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining("Timer start event 'at'") }),
    );
  });

  it('an interrupting timer event subprocess ends the main path', () => {
    const clock = fakeClock();
    const xml = processXml(
      'p',
      start() +
        service('task', 'work') +
        end() +
        flow('f1', 'start', 'task') +
        flow('f2', 'task', 'end') +
        '<bpmn:subProcess id="timeout" triggeredByEvent="true">' +
        `<bpmn:startEvent id="ts"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:startEvent>` +
        service('cleanup', 'cleanup') +
        end('te') +
        flow('t1', 'ts', 'cleanup') +
        flow('t2', 'cleanup', 'te') +
        '</bpmn:subProcess>',
    );
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [work] = engine.activate('work', 1);
    clock.advance(60 * MINUTE);
    engine.fireDueTimers();
    expect(() => engine.completeJob(work.key)).toThrow(CommandRejected);
    engine.completeJob(engine.activate('cleanup', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('a non-interrupting timer event subprocess runs beside the main path, and the instance waits for both', () => {
    const clock = fakeClock();
    const xml = processXml(
      'p',
      start() +
        service('task', 'work') +
        end() +
        flow('f1', 'start', 'task') +
        flow('f2', 'task', 'end') +
        '<bpmn:subProcess id="remind" triggeredByEvent="true">' +
        `<bpmn:startEvent id="rs" isInterrupting="false"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:startEvent>` +
        service('nudge', 'nudge') +
        end('re') +
        flow('r1', 'rs', 'nudge') +
        flow('r2', 'nudge', 're') +
        '</bpmn:subProcess>',
    );
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    clock.advance(60 * MINUTE);
    engine.fireDueTimers();
    engine.completeJob(engine.activate('work', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    engine.completeJob(engine.activate('nudge', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

describe('firing timers', () => {
  it('refuses a fire before the timer is due, changing nothing', () => {
    const clock = fakeClock();
    const engine = engineWith(
      processXml('p', start() + timerCatch('wait', 'timeDuration', 'PT10M') + end() + flow('f1', 'start', 'wait') + flow('f2', 'wait', 'end')),
      { now: clock.now },
    );
    const key = engine.start('p');
    const [timerKey] = Object.keys(engine.instance(key)!.timers);
    expect(() => engine.command(key, { type: 'fireTimer', timerKey })).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    expect(engine.instance(key)!.timers[timerKey]).toBeDefined();
    clock.advance(10 * MINUTE);
    engine.command(key, { type: 'fireTimer', timerKey });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});
