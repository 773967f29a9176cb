import { describe, expect, it } from 'vitest';
import { CommandRejected } from './in-memory-engine.ts';
import { definitions, end, engineWith, fakeClock, flow, service, start, visited } from './testing.ts';

const message = (id: string, name: string, key = '=orderId') =>
  `<bpmn:message id="${id}" name="${name}"><bpmn:extensionElements><zeebe:subscription correlationKey="${key}"/></bpmn:extensionElements></bpmn:message>`;
const catchEvent = (id: string, ref: string) =>
  `<bpmn:intermediateCatchEvent id="${id}"><bpmn:messageEventDefinition messageRef="${ref}"/></bpmn:intermediateCatchEvent>`;
const receive = (id: string, ref: string) => `<bpmn:receiveTask id="${id}" messageRef="${ref}"/>`;
const boundary = (id: string, host: string, ref: string, interrupting = true) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${host}" cancelActivity="${interrupting}"><bpmn:messageEventDefinition messageRef="${ref}"/></bpmn:boundaryEvent>`;
const proc = (body: string, messages = message('M', 'paid')) => definitions(`${messages}<bpmn:process id="p" isExecutable="true">${body}</bpmn:process>`);

/** start → wait (a catch event or a receive task) → end */
const waitModel = (wait: string) => proc(start() + wait + end() + flow('f1', 'start', 'w') + flow('f2', 'w', 'end'));

describe('messages (extension): waits SPEC.md makes jobs', () => {
  it.each([
    ['message catch event', catchEvent('w', 'M'), 'event:message:w'],
    ['receive task', receive('w', 'M'), 'message:paid'],
  ])('a published message completes a %s and withdraws its job, with its variables', (_kind, wait, type) => {
    const engine = engineWith(waitModel(wait));
    const key = engine.start('p', { orderId: 'o-1' });
    const other = engine.start('p', { orderId: 'o-2' });
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1', variables: { amount: 7 } });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.variables[key]).toEqual({ orderId: 'o-1', amount: 7 });
    expect(engine.instance(other)!.state).toBe('ACTIVE');
    // The correlated wait's job is withdrawn: only the other instance's is left, and completing the old one is refused.
    const jobs = engine.activate(type, 10);
    expect(jobs.map((j) => j.processInstanceKey)).toEqual([other]);
    const withdrawn = engine.history(key).find((r) => r.type === 'JOB_CANCELED')!.jobKey!;
    expect(() => engine.completeJob(withdrawn)).toThrow(CommandRejected);
  });

  it('a worker may still complete the wait job itself, as documented, and the subscription closes', () => {
    const engine = engineWith(waitModel(catchEvent('w', 'M')));
    const key = engine.start('p', { orderId: 'o-1' });
    const [job] = engine.activate('event:message:w', 1);
    expect(job.message).toEqual({ name: 'paid', correlationKey: 'o-1' });
    engine.completeJob(job.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.subscriptions).toEqual({});
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1' });
    expect(engine.history(key).filter((r) => r.type === 'MESSAGE_CORRELATED')).toHaveLength(0);
  });

  it('a message whose name or correlation key does not match reaches nothing, and without a TTL is gone', () => {
    const engine = engineWith(waitModel(catchEvent('w', 'M')));
    const key = engine.start('p', { orderId: 'o-1' });
    engine.publishMessage({ name: 'paid', correlationKey: 'o-2' });
    engine.publishMessage({ name: 'shipped', correlationKey: 'o-1' });
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    const late = engine.start('p', { orderId: 'o-2' });
    expect(engine.instance(late)!.state).toBe('ACTIVE');
  });

  it('the correlation key is the one evaluated when the wait began: changing the variable later does not move it', () => {
    // start → fork: one branch waits for the message, the other's job changes orderId meanwhile → join → end
    const engine = engineWith(
      proc(
        start() +
          '<bpmn:parallelGateway id="fork"/>' +
          catchEvent('w', 'M') +
          service('change', 'change') +
          '<bpmn:parallelGateway id="join"/>' +
          end() +
          flow('f1', 'start', 'fork') +
          flow('f2', 'fork', 'w') +
          flow('f3', 'fork', 'change') +
          flow('f4', 'w', 'join') +
          flow('f5', 'change', 'join') +
          flow('f6', 'join', 'end'),
      ),
    );
    const key = engine.start('p', { orderId: 'before' });
    const [job] = engine.activate('change', 1);
    engine.completeJob(job.key, { orderId: 'after' });
    expect(engine.instance(key)!.variables[key].orderId).toBe('after');
    engine.publishMessage({ name: 'paid', correlationKey: 'after' });
    expect(engine.history(key).filter((r) => r.type === 'MESSAGE_CORRELATED')).toHaveLength(0);
    engine.publishMessage({ name: 'paid', correlationKey: 'before' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('a numeric correlation key matches its decimal text', () => {
    const engine = engineWith(waitModel(catchEvent('w', 'M')));
    const key = engine.start('p', { orderId: 42 });
    engine.publishMessage({ name: 'paid', correlationKey: '42' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('one message reaches the first waiting instance of a process, not the others (Zeebe 8: one per process)', () => {
    const engine = engineWith(waitModel(catchEvent('w', 'M')));
    const a = engine.start('p', { orderId: 'o' });
    const b = engine.start('p', { orderId: 'o' });
    engine.publishMessage({ name: 'paid', correlationKey: 'o' });
    expect([engine.instance(a)!.state, engine.instance(b)!.state]).toEqual(['COMPLETED', 'ACTIVE']);
    engine.publishMessage({ name: 'paid', correlationKey: 'o' });
    expect(engine.instance(b)!.state).toBe('COMPLETED');
  });

  it('an event-based gateway takes the branch of the message that arrives', () => {
    const engine = engineWith(
      proc(
        start() +
          '<bpmn:eventBasedGateway id="g"/>' +
          catchEvent('onPaid', 'M') +
          catchEvent('onCancel', 'C') +
          end() +
          end('cancelled') +
          flow('f1', 'start', 'g') +
          flow('f2', 'g', 'onPaid') +
          flow('f3', 'g', 'onCancel') +
          flow('f4', 'onPaid', 'end') +
          flow('f5', 'onCancel', 'cancelled'),
        message('M', 'paid') + message('C', 'cancel'),
      ),
    );
    const key = engine.start('p', { orderId: 'o-1' });
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1' });
    expect(visited(engine, key)).toContain('cancelled');
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.activate('event:message:onPaid', 1)).toHaveLength(0);
  });
});

describe('messages (extension): buffering, TTL, messageId, at most once', () => {
  it('a message with a time to live correlates to a subscription opened later within it', () => {
    const clock = fakeClock();
    const engine = engineWith(waitModel(catchEvent('w', 'M')), { now: clock.now });
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1', timeToLive: 60_000, variables: { early: true } });
    clock.advance(30_000);
    const key = engine.start('p', { orderId: 'o-1' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.variables[key].early).toBe(true);
  });

  it('an expired message correlates to nothing', () => {
    const clock = fakeClock();
    const engine = engineWith(waitModel(catchEvent('w', 'M')), { now: clock.now });
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1', timeToLive: 1_000 });
    clock.advance(1_000);
    const key = engine.start('p', { orderId: 'o-1' });
    expect(engine.instance(key)!.state).toBe('ACTIVE');
  });

  it('a second publish with the same messageId while the first is buffered is refused; after expiry it is accepted', () => {
    const clock = fakeClock();
    const engine = engineWith(waitModel(catchEvent('w', 'M')), { now: clock.now });
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1', timeToLive: 1_000, messageId: 'm1' });
    expect(() => engine.publishMessage({ name: 'paid', correlationKey: 'o-1', timeToLive: 1_000, messageId: 'm1' })).toThrow(
      expect.objectContaining({ code: 'ALREADY_EXISTS' }),
    );
    // Another correlation key is another message.
    engine.publishMessage({ name: 'paid', correlationKey: 'o-2', timeToLive: 1_000, messageId: 'm1' });
    clock.advance(1_000);
    expect(engine.publishMessage({ name: 'paid', correlationKey: 'o-1', messageId: 'm1' }).messageKey).toMatch(/^\d+$/);
  });

  it('a buffered message correlates to an instance at most once, even when it waits again', () => {
    const engine = engineWith(
      proc(start() + catchEvent('w', 'M') + catchEvent('w2', 'M') + end() + flow('f1', 'start', 'w') + flow('f2', 'w', 'w2') + flow('f3', 'w2', 'end')),
    );
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1', timeToLive: 60_000 });
    const key = engine.start('p', { orderId: 'o-1' });
    expect(Object.values(engine.instance(key)!.elements).map((e) => e.elementId)).toEqual(['w2']);
    engine.publishMessage({ name: 'paid', correlationKey: 'o-1' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

describe('messages (extension): boundary events and event subprocesses', () => {
  const withBoundary = (interrupting: boolean) =>
    proc(
      start() +
        service('work', 'work') +
        boundary('b', 'work', 'C', interrupting) +
        service('handle', 'handle') +
        end() +
        end('e2') +
        flow('f1', 'start', 'work') +
        flow('f2', 'work', 'end') +
        flow('f3', 'b', 'handle') +
        flow('f4', 'handle', 'e2'),
      message('C', 'cancel'),
    );

  it('an interrupting message boundary ends its host and takes the token', () => {
    const engine = engineWith(withBoundary(true));
    const key = engine.start('p', { orderId: 'o-1' });
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1', variables: { why: 'late' } });
    expect(engine.activate('work', 1)).toHaveLength(0);
    const [handle] = engine.activate('handle', 1);
    expect(handle.variables.why).toBe('late');
    engine.completeJob(handle.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('a non-interrupting message boundary starts a token beside its host, and may trigger again', () => {
    const engine = engineWith(withBoundary(false));
    const key = engine.start('p', { orderId: 'o-1' });
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1' });
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1' });
    expect(engine.activate('handle', 5)).toHaveLength(2);
    const [work] = engine.activate('work', 1);
    engine.completeJob(work.key);
    // The host left: its subscription is closed.
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1' });
    expect(engine.activate('handle', 5)).toHaveLength(0);
    expect(engine.instance(key)!.subscriptions).toEqual({});
  });

  const withEventSubProcess = (interrupting: boolean) =>
    proc(
      start() +
        service('work', 'work') +
        end() +
        flow('f1', 'start', 'work') +
        flow('f2', 'work', 'end') +
        `<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="es" isInterrupting="${interrupting}"><bpmn:messageEventDefinition messageRef="C"/></bpmn:startEvent>` +
        service('handle', 'handle') +
        end('ee') +
        flow('r1', 'es', 'handle') +
        flow('r2', 'handle', 'ee') +
        '</bpmn:subProcess>',
      message('C', 'cancel'),
    );

  it('an interrupting message event subprocess ends the rest of its scope', () => {
    const engine = engineWith(withEventSubProcess(true));
    const key = engine.start('p', { orderId: 'o-1' });
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1' });
    expect(engine.activate('work', 1)).toHaveLength(0);
    const [handle] = engine.activate('handle', 1);
    engine.completeJob(handle.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('a non-interrupting message event subprocess runs beside the rest', () => {
    const engine = engineWith(withEventSubProcess(false));
    const key = engine.start('p', { orderId: 'o-1' });
    engine.publishMessage({ name: 'cancel', correlationKey: 'o-1' });
    const [handle] = engine.activate('handle', 1);
    engine.completeJob(handle.key);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    const [work] = engine.activate('work', 1);
    engine.completeJob(work.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('without a published message the events never fire and the model runs as documented', () => {
    const engine = engineWith(withBoundary(true));
    const key = engine.start('p', {});
    const [work] = engine.activate('work', 1);
    engine.completeJob(work.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

describe('messages (extension): message start, throw and end events', () => {
  const startModel = proc(
    '<bpmn:startEvent id="ms"><bpmn:messageEventDefinition messageRef="M"/></bpmn:startEvent>' +
      service('work', 'work') +
      end() +
      flow('f1', 'ms', 'work') +
      flow('f2', 'work', 'end'),
    '<bpmn:message id="M" name="order placed"/>',
  );

  it('a message start event starts an instance of the latest version with the message variables', () => {
    const engine = engineWith(startModel);
    const { startedInstances } = engine.publishMessage({ name: 'order placed', variables: { orderId: 'o-9' } });
    expect(startedInstances).toHaveLength(1);
    const [work] = engine.activate('work', 1);
    expect(work.variables).toEqual({ orderId: 'o-9' });
    expect(engine.publishMessage({ name: 'other' }).startedInstances).toEqual([]);
  });

  it('a process with only a message start is not started by a request', () => {
    const engine = engineWith(startModel);
    expect(() => engine.start('p')).toThrow(/no none start event/);
  });

  it('message throw and end events are jobs of their task definition type, like send tasks', () => {
    const engine = engineWith(
      proc(
        start() +
          '<bpmn:intermediateThrowEvent id="t"><bpmn:extensionElements><zeebe:taskDefinition type="notify"/></bpmn:extensionElements><bpmn:messageEventDefinition messageRef="M"/></bpmn:intermediateThrowEvent>' +
          '<bpmn:endEvent id="end"><bpmn:extensionElements><zeebe:taskDefinition type="reply"/></bpmn:extensionElements><bpmn:messageEventDefinition messageRef="M"/></bpmn:endEvent>' +
          flow('f1', 'start', 't') +
          flow('f2', 't', 'end'),
      ),
    );
    const key = engine.start('p');
    const [notify] = engine.activate('notify', 1);
    engine.completeJob(notify.key);
    const [reply] = engine.activate('reply', 1);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    engine.completeJob(reply.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

describe("messages (extension): Zeebe's cardinality — one instance per process", () => {
  const waits = (id: string) =>
    `<bpmn:process id="${id}" isExecutable="true">` +
    start(`${id}-start`) +
    catchEvent(`${id}-w`, 'M') +
    end(`${id}-end`) +
    flow(`${id}-f1`, `${id}-start`, `${id}-w`) +
    flow(`${id}-f2`, `${id}-w`, `${id}-end`) +
    '</bpmn:process>';
  const starts = (id: string) =>
    `<bpmn:process id="${id}" isExecutable="true">` +
    `<bpmn:startEvent id="${id}-ms"><bpmn:messageEventDefinition messageRef="M"/></bpmn:startEvent>` +
    service(`${id}-work`, 'work') +
    flow(`${id}-f1`, `${id}-ms`, `${id}-work`) +
    '</bpmn:process>';
  const twoProcesses = definitions(message('M', 'paid') + waits('p') + waits('q'));

  it('a message reaches one waiting instance of each process: the first of p and the one of q', () => {
    const engine = engineWith(twoProcesses);
    const [p1, p2] = [engine.start('p', { orderId: 'o' }), engine.start('p', { orderId: 'o' })];
    const q1 = engine.start('q', { orderId: 'o' });
    engine.publishMessage({ name: 'paid', correlationKey: 'o' });
    expect([p1, p2, q1].map((k) => engine.instance(k)!.state)).toEqual(['COMPLETED', 'ACTIVE', 'COMPLETED']);
  });

  it('a buffered message goes to one instance of each process, however many open a wait for it later', () => {
    const clock = fakeClock();
    const engine = engineWith(twoProcesses, { now: clock.now });
    engine.publishMessage({ name: 'paid', correlationKey: 'o', timeToLive: 60_000, variables: { early: true } });
    const p1 = engine.start('p', { orderId: 'o' });
    const p2 = engine.start('p', { orderId: 'o' });
    const q1 = engine.start('q', { orderId: 'o' });
    expect([p1, p2, q1].map((k) => engine.instance(k)!.state)).toEqual(['COMPLETED', 'ACTIVE', 'COMPLETED']);
    // A second buffered message is the next one p2 may have.
    engine.publishMessage({ name: 'paid', correlationKey: 'o', timeToLive: 60_000 });
    expect(engine.instance(p2)!.state).toBe('COMPLETED');
    const p3 = engine.start('p', { orderId: 'o' });
    expect(engine.instance(p3)!.state).toBe('ACTIVE');
  });

  it('a process whose waiting instance had the message starts none by it; another process with a message start does', () => {
    const engine = engineWith(definitions(message('M', 'paid') + waits('p') + starts('s')));
    const waiting = engine.start('p', { orderId: 'o' });
    const { startedInstances } = engine.publishMessage({ name: 'paid', correlationKey: 'o' });
    expect(engine.instance(waiting)!.state).toBe('COMPLETED');
    expect(startedInstances.map((k) => engine.instance(k)!.bpmnProcessId)).toEqual(['s']);
  });
});
