import { describe, expect, it } from 'vitest';
import { MINUTE, definitions, end, engineWith, fakeClock, flow, service, start, timerCatch, visited } from './testing.ts';

const errors = '<bpmn:error id="Err_Card" errorCode="CARD_DECLINED"/><bpmn:error id="Err_Other" errorCode="OTHER"/>';
const errorEnd = (id: string, ref: string) => `<bpmn:endEvent id="${id}"><bpmn:errorEventDefinition errorRef="${ref}"/></bpmn:endEvent>`;
const errorBoundary = (id: string, host: string, ref?: string) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${host}"><bpmn:errorEventDefinition${ref ? ` errorRef="${ref}"` : ''}/></bpmn:boundaryEvent>`;

/** A subprocess whose path ends in an error end event chosen by variable `code`. */
function withSub(boundaries: string, extra = '') {
  return definitions(
    errors +
      '<bpmn:process id="p" isExecutable="true">' +
      start() +
      '<bpmn:subProcess id="sub">' +
      start('ss') +
      '<bpmn:exclusiveGateway id="which" default="toOther"/>' +
      errorEnd('declined', 'Err_Card') +
      errorEnd('other', 'Err_Other') +
      flow('s1', 'ss', 'which') +
      flow('toCard', 'which', 'declined', '=code = "card"') +
      flow('toOther', 'which', 'other') +
      '</bpmn:subProcess>' +
      boundaries +
      service('handle', 'handle') +
      service('handleAny', 'handleAny') +
      end() +
      end('e2') +
      flow('f1', 'start', 'sub') +
      flow('f2', 'sub', 'end') +
      flow('h1', 'handle', 'end') +
      flow('h2', 'handleAny', 'e2') +
      extra +
      '</bpmn:process>',
  );
}

describe('BPMN errors', () => {
  it('an error end event is caught by the error boundary with its code, interrupting the subprocess', () => {
    const engine = engineWith(
      withSub(errorBoundary('onCard', 'sub', 'Err_Card') + errorBoundary('onAny', 'sub') + flow('b1', 'onCard', 'handle') + flow('b2', 'onAny', 'handleAny')),
    );
    const key = engine.start('p', { code: 'card' });
    expect(engine.activate('handle', 1)).toHaveLength(1);
    expect(engine.activate('handleAny', 1)).toHaveLength(0);
    expect(engine.instance(key)!.elements).not.toHaveProperty('sub');
    const other = engine.start('p', { code: 'x' });
    expect(engine.activate('handleAny', 1)).toHaveLength(1);
    expect(visited(engine, other)).toContain('onAny');
  });

  it('an error event subprocess catches an error thrown in its scope', () => {
    const xml = withSub(
      '',
      '<bpmn:subProcess id="onError" triggeredByEvent="true"><bpmn:startEvent id="es"><bpmn:errorEventDefinition errorRef="Err_Card"/></bpmn:startEvent>' +
        service('recover', 'recover') +
        end('ee') +
        flow('r1', 'es', 'recover') +
        flow('r2', 'recover', 'ee') +
        '</bpmn:subProcess>',
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { code: 'card' });
    engine.completeJob(engine.activate('recover', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('an error nobody catches is an UNHANDLED_ERROR_EVENT incident naming the code', () => {
    const engine = engineWith(withSub(errorBoundary('onCard', 'sub', 'Err_Card') + flow('b1', 'onCard', 'handle')));
    const key = engine.start('p', { code: 'x' });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident).toMatchObject({ type: 'UNHANDLED_ERROR_EVENT', elementId: 'other' });
    expect(incident.message).toContain("'OTHER'");
  });
});

describe('escalations', () => {
  const escalations = '<bpmn:escalation id="Esc" escalationCode="LATE"/>';
  it('a non-interrupting escalation boundary starts a parallel path and the thrower goes on', () => {
    const xml = definitions(
      escalations +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:subProcess id="sub">' +
        start('ss') +
        '<bpmn:intermediateThrowEvent id="raise"><bpmn:escalationEventDefinition escalationRef="Esc"/></bpmn:intermediateThrowEvent>' +
        service('inner', 'inner') +
        end('se') +
        flow('s1', 'ss', 'raise') +
        flow('s2', 'raise', 'inner') +
        flow('s3', 'inner', 'se') +
        '</bpmn:subProcess>' +
        '<bpmn:boundaryEvent id="onLate" attachedToRef="sub" cancelActivity="false"><bpmn:escalationEventDefinition escalationRef="Esc"/></bpmn:boundaryEvent>' +
        service('notify', 'notify') +
        end() +
        end('ne') +
        flow('f1', 'start', 'sub') +
        flow('f2', 'sub', 'end') +
        flow('b1', 'onLate', 'notify') +
        flow('b2', 'notify', 'ne') +
        '</bpmn:process>',
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    engine.completeJob(engine.activate('notify', 1)[0].key);
    engine.completeJob(engine.activate('inner', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('an escalation end event caught by an interrupting event subprocess; an uncaught one is no error', () => {
    const esp =
      '<bpmn:subProcess id="onEsc" triggeredByEvent="true"><bpmn:startEvent id="es"><bpmn:escalationEventDefinition escalationRef="Esc"/></bpmn:startEvent>' +
      service('handle', 'handle') +
      end('ee') +
      flow('r1', 'es', 'handle') +
      flow('r2', 'handle', 'ee') +
      '</bpmn:subProcess>';
    const body = (withEsp: boolean) =>
      definitions(
        escalations +
          '<bpmn:process id="p" isExecutable="true">' +
          start() +
          '<bpmn:parallelGateway id="fork"/>' +
          service('slow', 'slow') +
          end('se') +
          '<bpmn:endEvent id="up"><bpmn:escalationEventDefinition escalationRef="Esc"/></bpmn:endEvent>' +
          flow('f0', 'start', 'fork') +
          flow('f1', 'fork', 'slow') +
          flow('f2', 'fork', 'up') +
          flow('f3', 'slow', 'se') +
          (withEsp ? esp : '') +
          '</bpmn:process>',
      );
    const caught = engineWith(body(true));
    const key = caught.start('p');
    expect(caught.activate('slow', 1)).toHaveLength(0);
    caught.completeJob(caught.activate('handle', 1)[0].key);
    expect(caught.instance(key)!.state).toBe('COMPLETED');

    const uncaught = engineWith(body(false));
    const other = uncaught.start('p');
    expect(uncaught.instance(other)!.state).toBe('ACTIVE');
    uncaught.completeJob(uncaught.activate('slow', 1)[0].key);
    expect(uncaught.instance(other)!.state).toBe('COMPLETED');
  });
});

describe('link events', () => {
  it('a link throw continues at the link catch of the same name', () => {
    const xml = definitions(
      '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:intermediateThrowEvent id="goto"><bpmn:linkEventDefinition name="B"/></bpmn:intermediateThrowEvent>' +
        '<bpmn:intermediateCatchEvent id="labelB"><bpmn:linkEventDefinition name="B"/></bpmn:intermediateCatchEvent>' +
        service('t', 't') +
        end() +
        flow('f1', 'start', 'goto') +
        flow('f2', 'labelB', 't') +
        flow('f3', 't', 'end') +
        '</bpmn:process>',
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    engine.completeJob(engine.activate('t', 1)[0].key);
    expect(visited(engine, key)).toEqual(['start', 'goto', 'labelB', 't', 'end']);
  });
});

describe('event-based gateway', () => {
  const xml = definitions(
    '<bpmn:message id="m" name="payment"/>' +
      '<bpmn:process id="p" isExecutable="true">' +
      start() +
      '<bpmn:eventBasedGateway id="gw"/>' +
      '<bpmn:intermediateCatchEvent id="paid"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>' +
      timerCatch('timeout', 'timeDuration', 'PT1H') +
      end('ok') +
      end('expired') +
      flow('f0', 'start', 'gw') +
      flow('f1', 'gw', 'paid') +
      flow('f2', 'gw', 'timeout') +
      flow('f3', 'paid', 'ok') +
      flow('f4', 'timeout', 'expired') +
      '</bpmn:process>',
  );

  it('the message branch wins: its job completes and the timer is withdrawn', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('event:message:paid', 1);
    expect(job.elementId).toBe('paid');
    engine.completeJob(job.key, { amount: 3 });
    expect(engine.nextTimerDue()).toBeUndefined();
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.variables[key]).toEqual({ amount: 3 });
    expect(visited(engine, key)).toEqual(['start', 'gw', 'paid', 'ok']);
  });

  it('the timer wins: the message job is cancelled and completing it answers not found', () => {
    const clock = fakeClock();
    const engine = engineWith(xml, { now: clock.now });
    const key = engine.start('p');
    const [job] = engine.activate('event:message:paid', 1);
    clock.advance(60 * MINUTE);
    engine.fireDueTimers();
    expect(() => engine.completeJob(job.key)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(visited(engine, key)).toEqual(['start', 'gw', 'timeout', 'expired']);
  });

  it('cancelling the instance while the gateway waits withdraws the message job and the timer', () => {
    const engine = engineWith(xml, { now: fakeClock().now });
    const key = engine.start('p');
    engine.cancel(key);
    expect(engine.instance(key)!.state).toBe('TERMINATED');
    expect(engine.instance(key)!.jobs).toEqual({});
    expect(engine.activate('event:message:paid', 1)).toHaveLength(0);
    expect(engine.nextTimerDue()).toBeUndefined();
    const withdrawn = engine.history(key).filter((r) => r.type === 'JOB_CANCELED' || r.type === 'TIMER_CANCELED');
    expect(withdrawn.map((r) => [r.type, r.elementId])).toEqual([
      ['JOB_CANCELED', 'paid'],
      ['TIMER_CANCELED', 'timeout'],
    ]);
  });
});
