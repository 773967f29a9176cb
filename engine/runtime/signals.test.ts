import { describe, expect, it } from 'vitest';
import { SIGNAL_START_GENERATIONS } from '../limits.ts';
import { compileBpmn } from '../model/index.ts';
import { CommandRejected, InMemoryEngine } from './in-memory-engine.ts';
import { definitions, end, engineWith, flow, service, start, visited } from './testing.ts';

const signals = '<bpmn:signal id="S" name="go"/><bpmn:signal id="T" name="stop"/>';
const signalDef = (ref = 'S') => `<bpmn:signalEventDefinition signalRef="${ref}"/>`;
const catchEvent = (id: string, ref = 'S') => `<bpmn:intermediateCatchEvent id="${id}">${signalDef(ref)}</bpmn:intermediateCatchEvent>`;
const boundary = (id: string, host: string, interrupting: boolean) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${host}" cancelActivity="${interrupting}">${signalDef()}</bpmn:boundaryEvent>`;
const proc = (id: string, body: string) => `<bpmn:process id="${id}" isExecutable="true">${body}</bpmn:process>`;
const model = (...processes: string[]) => definitions(signals + processes.join(''));

/** start → w → end, the wait given (its id `w`); element ids other than the wait's are prefixed by the process id, so processes share a file. */
const waitProcess = (id: string, wait: string) =>
  proc(id, start(`${id}Start`) + wait + end(`${id}End`) + flow(`${id}F1`, `${id}Start`, 'w') + flow(`${id}F2`, 'w', `${id}End`));

describe('signals (extension): catching', () => {
  it('a signal catch event waits without a job and completes on a broadcast of its name, with the variables, in every waiting instance', () => {
    const engine = engineWith(model(waitProcess('p', catchEvent('w'))));
    const a = engine.start('p');
    const b = engine.start('p');
    expect(engine.instance(a)!.jobs).toEqual({});
    engine.broadcastSignal('stop');
    expect(engine.instance(a)!.state).toBe('ACTIVE');
    const { startedInstances } = engine.broadcastSignal('go', { level: 3 });
    expect(startedInstances).toEqual([]);
    for (const key of [a, b]) {
      expect(engine.instance(key)!.state).toBe('COMPLETED');
      expect(engine.instance(key)!.variables[key]).toEqual({ level: 3 });
      expect(
        engine
          .history(key)
          .filter((r) => r.type === 'SIGNAL_RECEIVED')
          .map((r) => r.elementId),
      ).toEqual(['w']);
    }
    // Not buffered: an instance that starts waiting afterwards still waits.
    expect(engine.instance(engine.start('p'))!.state).toBe('ACTIVE');
  });

  it('an interrupting signal boundary ends its host and takes the boundary path; the host job is withdrawn', () => {
    const body =
      start() +
      service('task', 'work') +
      boundary('b', 'task', true) +
      end() +
      end('afterSignal') +
      flow('f1', 'start', 'task') +
      flow('f2', 'task', 'end') +
      flow('f3', 'b', 'afterSignal');
    const engine = engineWith(model(proc('p', body)));
    const key = engine.start('p');
    engine.broadcastSignal('go', { why: 'recall' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key)).toEqual(['start', 'b', 'afterSignal']);
    expect(engine.instance(key)!.variables[key]).toEqual({ why: 'recall' });
    expect(engine.activate('work', 10)).toEqual([]);
  });

  it('a non-interrupting signal boundary starts a token beside its host on each broadcast, and closes with the host', () => {
    const body =
      start() +
      service('task', 'work') +
      boundary('b', 'task', false) +
      end() +
      end('side') +
      flow('f1', 'start', 'task') +
      flow('f2', 'task', 'end') +
      flow('f3', 'b', 'side');
    const engine = engineWith(model(proc('p', body)));
    const key = engine.start('p');
    engine.broadcastSignal('go');
    engine.broadcastSignal('go');
    expect(visited(engine, key).filter((id) => id === 'side')).toHaveLength(2);
    const [job] = engine.activate('work', 1);
    engine.completeJob(job.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.instance(key)!.subscriptions).toEqual({});
  });

  it.each([
    ['interrupting', true, ['start', 'sigStart', 'espEnd', 'esp']],
    ['non-interrupting', false, ['start', 'sigStart', 'espEnd', 'esp']],
  ])('an %s event subprocess with a signal start runs on a broadcast', (_label, interrupting, expected) => {
    const esp =
      `<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="sigStart" isInterrupting="${interrupting}">${signalDef()}</bpmn:startEvent>` +
      `${end('espEnd')}${flow('e1', 'sigStart', 'espEnd')}</bpmn:subProcess>`;
    const body = start() + service('task', 'work') + end() + esp + flow('f1', 'start', 'task') + flow('f2', 'task', 'end');
    const engine = engineWith(model(proc('p', body)));
    const key = engine.start('p');
    engine.broadcastSignal('go');
    expect(visited(engine, key)).toEqual(expected);
    expect(engine.instance(key)!.state).toBe(interrupting ? 'COMPLETED' : 'ACTIVE');
    expect(engine.activate('work', 10)).toHaveLength(interrupting ? 0 : 1);
  });

  it('an event-based gateway takes its signal branch on a broadcast and withdraws the other', () => {
    const timer =
      '<bpmn:intermediateCatchEvent id="t"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>';
    const body =
      start() +
      '<bpmn:eventBasedGateway id="g"/>' +
      catchEvent('s') +
      timer +
      end('viaSignal') +
      end('viaTimer') +
      flow('f1', 'start', 'g') +
      flow('f2', 'g', 's') +
      flow('f3', 'g', 't') +
      flow('f4', 's', 'viaSignal') +
      flow('f5', 't', 'viaTimer');
    const engine = engineWith(model(proc('p', body)));
    const key = engine.start('p');
    engine.broadcastSignal('go');
    expect(visited(engine, key)).toEqual(['start', 'g', 's', 'viaSignal']);
    expect(engine.instance(key)!.timers).toEqual({});
    expect(engine.nextTimerDue()).toBeUndefined();
  });

  it('a signal start event starts an instance of each process that has one, with the variables', () => {
    const starter = proc('s', `<bpmn:startEvent id="ss">${signalDef()}</bpmn:startEvent>${end()}${flow('f', 'ss', 'end')}`);
    const engine = engineWith(model(starter, waitProcess('p', catchEvent('w'))));
    const waiting = engine.start('p');
    const { startedInstances } = engine.broadcastSignal('go', { n: 1 });
    expect(startedInstances).toHaveLength(1);
    expect(engine.instance(startedInstances[0])!.bpmnProcessId).toBe('s');
    expect(engine.instance(startedInstances[0])!.variables[startedInstances[0]]).toEqual({ n: 1 });
    expect(engine.instance(waiting)!.state).toBe('COMPLETED');
  });

  it('a signal reaches an instance once: the same signal key again is refused', () => {
    const engine = engineWith(model(waitProcess('p', catchEvent('w'))));
    const key = engine.start('p');
    const before = structuredClone(engine.instance(key)!);
    engine.command(key, { type: 'receiveSignal', signalKey: 'sig-1', name: 'go' });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(() => engine.command(key, { type: 'receiveSignal', signalKey: 'sig-1', name: 'go' })).toThrow(CommandRejected);
    expect(before.state).toBe('ACTIVE');
  });
});

describe('signals (extension): throwing', () => {
  const waiter = waitProcess('waiter', catchEvent('w'));

  it('a signal intermediate throw event broadcasts with the variables it sees, and the token goes on', () => {
    const thrower = proc(
      'thrower',
      start() +
        `<bpmn:intermediateThrowEvent id="throw">${signalDef()}</bpmn:intermediateThrowEvent>` +
        end() +
        flow('f1', 'start', 'throw') +
        flow('f2', 'throw', 'end'),
    );
    const engine = engineWith(model(thrower, waiter));
    const a = engine.start('waiter');
    const t = engine.start('thrower', { orderId: 'o-1' });
    expect(engine.instance(t)!.state).toBe('COMPLETED');
    expect(visited(engine, t)).toEqual(['start', 'throw', 'end']);
    expect(engine.instance(a)!.state).toBe('COMPLETED');
    expect(engine.instance(a)!.variables[a]).toEqual({ orderId: 'o-1' });
  });

  it('a signal end event broadcasts and ends its token, and starts an instance of each process with a signal start of its name', () => {
    const thrower = proc('thrower', start() + `<bpmn:endEvent id="end">${signalDef()}</bpmn:endEvent>` + flow('f1', 'start', 'end'));
    const starter = proc(
      'starter',
      `<bpmn:startEvent id="ss">${signalDef()}</bpmn:startEvent>${service('serve', 'serve')}${end('se')}${flow('f', 'ss', 'serve')}${flow('g', 'serve', 'se')}`,
    );
    const engine = engineWith(model(thrower, starter, waiter));
    const a = engine.start('waiter');
    const t = engine.start('thrower', { x: 1 });
    expect(engine.instance(t)!.state).toBe('COMPLETED');
    expect(engine.instance(a)!.state).toBe('COMPLETED');
    expect(engine.instance(a)!.variables[a]).toEqual({ x: 1 });
    const [job, ...more] = engine.activate('serve', 10);
    expect(more).toEqual([]);
    expect(job).toMatchObject({ bpmnProcessId: 'starter', variables: { x: 1 } });
    // One generation past its thrower's (0).
    expect(engine.instance(job.processInstanceKey)!.signalGeneration).toBe(1);
    expect(engine.instance(t)!.signalGeneration).toBeUndefined();
  });

  it('a signal thrown in one branch reaches a catch waiting in a parallel branch of the same instance', () => {
    const body =
      start() +
      '<bpmn:parallelGateway id="fork"/>' +
      catchEvent('w') +
      `<bpmn:intermediateThrowEvent id="throw">${signalDef()}</bpmn:intermediateThrowEvent>` +
      '<bpmn:parallelGateway id="join"/>' +
      end() +
      flow('f1', 'start', 'fork') +
      flow('f2', 'fork', 'w') +
      flow('f3', 'fork', 'throw') +
      flow('f4', 'w', 'join') +
      flow('f5', 'throw', 'join') +
      flow('f6', 'join', 'end');
    const engine = engineWith(model(proc('p', body)));
    const key = engine.start('p');
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});

describe('signals (extension): a model that throws in a loop', () => {
  it('stops the in-memory engine with a rejection instead of never returning', () => {
    const body =
      start() +
      '<bpmn:exclusiveGateway id="merge"/>' +
      `<bpmn:intermediateThrowEvent id="throw">${signalDef()}</bpmn:intermediateThrowEvent>` +
      catchEvent('w') +
      flow('f1', 'start', 'merge') +
      flow('f2', 'merge', 'throw') +
      flow('f3', 'throw', 'w') +
      flow('f4', 'w', 'merge');
    const engine = engineWith(model(proc('p', body)), { keepHistory: false });
    expect(() => engine.start('p')).toThrow(/signals in a loop/);
  });
});

describe('signals (extension): a signal start chain', () => {
  /** Started by `go`, throws `go`, then waits at a job of `type`; `inner` goes between the start and the throw. */
  const chain = (id: string, type: string, inner = '', innerFlows = flow(`${id}F0`, `${id}Start`, `${id}Throw`)) =>
    proc(
      id,
      `<bpmn:startEvent id="${id}Start">${signalDef()}</bpmn:startEvent>` +
        inner +
        `<bpmn:intermediateThrowEvent id="${id}Throw">${signalDef()}</bpmn:intermediateThrowEvent>` +
        service(`${id}Link`, type) +
        end(`${id}End`) +
        innerFlows +
        flow(`${id}F1`, `${id}Throw`, `${id}Link`) +
        flow(`${id}F2`, `${id}Link`, `${id}End`),
    );

  it(`stops at generation ${SIGNAL_START_GENERATIONS}: a process started by the signal it throws starts no more past it`, () => {
    const engine = engineWith(model(chain('p', 'link')), { keepHistory: false });
    expect(engine.broadcastSignal('go').startedInstances).toHaveLength(1);
    const generations = engine.activate('link', 100).map((job) => engine.instance(job.processInstanceKey)!.signalGeneration ?? 0);
    expect(generations.sort((x, y) => x - y)).toEqual(Array.from({ length: SIGNAL_START_GENERATIONS + 1 }, (_, i) => i));
  });

  it("a child of a call activity throws at its parent's generation, so a chain through a called process stops too", () => {
    const called = proc('called', start('cStart') + `<bpmn:endEvent id="cEnd">${signalDef()}</bpmn:endEvent>` + flow('c1', 'cStart', 'cEnd'));
    const call = '<bpmn:callActivity id="pCall"><bpmn:extensionElements><zeebe:calledElement processId="called"/></bpmn:extensionElements></bpmn:callActivity>';
    const caller = proc(
      'p',
      `<bpmn:startEvent id="pStart">${signalDef()}</bpmn:startEvent>` +
        call +
        service('pLink', 'link') +
        end('pEnd') +
        flow('p0', 'pStart', 'pCall') +
        flow('p1', 'pCall', 'pLink') +
        flow('p2', 'pLink', 'pEnd'),
    );
    const engine = engineWith(model(caller, called), { keepHistory: false });
    engine.broadcastSignal('go');
    expect(engine.activate('link', 100)).toHaveLength(SIGNAL_START_GENERATIONS + 1);
  });
});

describe('signals (extension): models', () => {
  it('deploy with a warning on each catch that only a broadcast fires, none on throws', () => {
    const thrower = proc('thrower', start() + `<bpmn:endEvent id="end">${signalDef()}</bpmn:endEvent>` + flow('f1', 'start', 'end'));
    const result = compileBpmn(model(thrower, waitProcess('p', catchEvent('w'))));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const warnings = result.model.warnings.filter((w) => w.code === 'SIGNAL_EVENT_NEEDS_EXTENSION');
    expect(warnings.map((w) => w.elementId)).toEqual(['w']);
    expect(warnings[0].message).toContain('POST /api/v1/signals');
  });

  it('refuse a signal event that names no signal', () => {
    const result = compileBpmn(
      definitions(waitProcess('p', '<bpmn:intermediateCatchEvent id="w"><bpmn:signalEventDefinition/></bpmn:intermediateCatchEvent>')),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.message)).toEqual(["Intermediate catch event 'w' names no signal: it needs a signalRef to a bpmn:signal with a name."]);
  });

  it('without a broadcast a signal wait never fires', () => {
    const engine = new InMemoryEngine();
    const compiled = compileBpmn(model(waitProcess('p', catchEvent('w'))));
    if (!compiled.ok) throw new Error('rejected');
    engine.deploy(compiled.model.processes[0]);
    const key = engine.start('p');
    expect(engine.fireDueTimers()).toBe(0);
    expect(engine.instance(key)!.state).toBe('ACTIVE');
  });
});
