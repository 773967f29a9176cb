// Ad-hoc subprocesses (Zeebe 8.8): the BPMN implementation (active elements
// collection, completion condition, output collection, paths) and the job
// worker one (a job result naming the elements to activate).
import { describe, expect, it } from 'vitest';
import { CommandRejected } from './in-memory-engine.ts';
import { MINUTE, end, engineWith, escapeXml, fakeClock, flow, processXml, service, start, timerBoundary, visited } from './testing.ts';

interface AdHocOptions {
  active?: string;
  condition?: string;
  cancelRemaining?: boolean;
  output?: boolean;
  job?: string;
  extra?: string;
}

/** start → adhoc(a, b → b2, c) → end; `a`, `b`, `c` are service tasks of their own ids' types. */
function model(o: AdHocOptions = {}): string {
  const adHocAttrs = [
    o.active === undefined ? '' : `activeElementsCollection="${escapeXml(o.active)}"`,
    o.output ? 'outputCollection="results" outputElement="=result"' : '',
  ].join(' ');
  const job = o.job === undefined ? '' : `<zeebe:taskDefinition type="${o.job}"/>`;
  const cancel = o.cancelRemaining === undefined ? '' : ` cancelRemainingInstances="${o.cancelRemaining}"`;
  const condition = o.condition === undefined ? '' : `<bpmn:completionCondition>${escapeXml(o.condition)}</bpmn:completionCondition>`;
  return processXml(
    'p',
    start() +
      `<bpmn:adHocSubProcess id="adhoc"${cancel}><bpmn:extensionElements><zeebe:adHoc ${adHocAttrs}/>${job}</bpmn:extensionElements>` +
      condition +
      service('a', 'a') +
      service('b', 'b') +
      service('b2', 'b2') +
      service('c', 'c') +
      flow('fb', 'b', 'b2') +
      '</bpmn:adHocSubProcess>' +
      (o.extra ?? '') +
      end() +
      flow('f1', 'start', 'adhoc') +
      flow('f2', 'adhoc', 'end'),
  );
}

function completeAll(engine: ReturnType<typeof engineWith>, type: string, variables?: Record<string, unknown>): void {
  for (const job of engine.activate(type, 10)) engine.completeJob(job.key, variables);
}

describe('ad-hoc subprocess, BPMN implementation', () => {
  it('activates the listed elements, follows their flows, and completes when nothing is active', () => {
    const engine = engineWith(model({ active: '=["a", "b"]' }));
    const key = engine.start('p');
    expect(engine.activate('c', 10)).toEqual([]);
    completeAll(engine, 'a');
    completeAll(engine, 'b');
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    completeAll(engine, 'b2');
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key)).toContain('adhoc');
  });

  it('with no collection (or an empty one) it activates nothing and stays active', () => {
    const engine = engineWith(model({ extra: timerBoundary('t', 'adhoc', 'timeDuration', 'PT1M') + end('late') + flow('f3', 't', 'late') }));
    const key = engine.start('p');
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    expect(Object.values(engine.instance(key)!.elements).map((e) => e.elementId)).toEqual(['adhoc']);
  });

  it('an id that is not an activatable inner element is an incident', () => {
    const engine = engineWith(model({ active: '=["a", "b2"]' }));
    const key = engine.start('p');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    expect(Object.values(instance.incidents)[0].message).toMatch(/names 'b2', not among the elements it can activate \(a, b, c\)/);
  });

  it('a completion condition met terminates the remaining paths (cancelRemainingInstances defaults to true)', () => {
    const engine = engineWith(model({ active: '=["a", "c"]', condition: '=done = true' }));
    const key = engine.start('p');
    for (const job of engine.activate('a', 10)) engine.completeJob(job.key, { done: true });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(engine.activate('c', 10)).toEqual([]);
    expect(engine.history(key).some((r) => r.type === 'ELEMENT_TERMINATED' && r.elementId === 'c')).toBe(true);
  });

  it('with cancelRemainingInstances="false" it waits for the remaining paths', () => {
    const engine = engineWith(model({ active: '=["a", "c"]', condition: '=done = true', cancelRemaining: false }));
    const key = engine.start('p');
    for (const job of engine.activate('a', 10)) engine.completeJob(job.key, { done: true });
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    completeAll(engine, 'c');
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it('a condition not met leaves it active when nothing is', () => {
    const engine = engineWith(model({ active: '=["a"]', condition: '=done = true' }));
    const key = engine.start('p');
    completeAll(engine, 'a', { done: false });
    expect(engine.instance(key)!.state).toBe('ACTIVE');
  });

  it('collects each path’s output element and sets the collection in the parent scope', () => {
    const engine = engineWith(model({ active: '=["a", "c"]', output: true }));
    const key = engine.start('p');
    completeAll(engine, 'c', { result: 'from c' });
    completeAll(engine, 'a', { result: 'from a' });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.variables[key].results).toEqual(['from c', 'from a']);
  });

  it('an interrupting boundary event ends it with everything inside', () => {
    const clock = fakeClock();
    const extra = timerBoundary('t', 'adhoc', 'timeDuration', 'PT1M') + end('late') + flow('f3', 't', 'late');
    const engine = engineWith(model({ active: '=["a"]', extra }), { now: clock.now });
    const key = engine.start('p');
    clock.advance(MINUTE);
    engine.fireDueTimers();
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key)).toContain('late');
    expect(engine.activate('a', 10)).toEqual([]);
  });
});

describe('ad-hoc subprocess, job worker implementation', () => {
  it('a job on entry and whenever nothing is active; the result activates elements with local variables and completes it', () => {
    const engine = engineWith(model({ job: 'agent', output: true }));
    const key = engine.start('p', { question: 'q' });
    const [first] = engine.activate('agent', 10);
    expect(first.variables.question).toBe('q');
    engine.completeJob(first.key, { thought: 1 }, { type: 'adHocSubProcess', activateElements: [{ elementId: 'b', variables: { toolCall: { x: 1 } } }] });
    expect(engine.activate('agent', 10)).toEqual([]);
    const [b] = engine.activate('b', 10);
    expect(b.variables.toolCall).toEqual({ x: 1 });
    engine.completeJob(b.key);
    const [b2] = engine.activate('b2', 10);
    expect(b2.variables.toolCall).toEqual({ x: 1 });
    engine.completeJob(b2.key, { result: 'r' });
    const [second] = engine.activate('agent', 10);
    expect(second).toBeDefined();
    expect(engine.instance(key)!.variables[key].toolCall).toBeUndefined();
    engine.completeJob(second.key, {}, { type: 'adHocSubProcess', isCompletionConditionFulfilled: true });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.variables[key].results).toEqual(['r']);
  });

  it('fulfilled while paths are active: waits for them, or terminates them when asked', () => {
    for (const cancel of [false, true]) {
      const engine = engineWith(model({ job: 'agent' }));
      const key = engine.start('p');
      const [job] = engine.activate('agent', 10);
      engine.completeJob(
        job.key,
        {},
        { type: 'adHocSubProcess', activateElements: [{ elementId: 'a' }], isCompletionConditionFulfilled: true, isCancelRemainingInstances: cancel },
      );
      expect(engine.instance(key)!.state).toBe(cancel ? 'COMPLETED' : 'ACTIVE');
      if (!cancel) {
        completeAll(engine, 'a');
        expect(engine.instance(key)!.state).toBe('COMPLETED');
        expect(engine.activate('agent', 10)).toEqual([]);
      }
    }
  });

  it('a bad element id is rejected naming the field, and nothing changes', () => {
    const engine = engineWith(model({ job: 'agent' }));
    const key = engine.start('p');
    const [job] = engine.activate('agent', 10);
    const before = structuredClone(engine.instance(key));
    const attempt = () => engine.completeJob(job.key, {}, { type: 'adHocSubProcess', activateElements: [{ elementId: 'a' }, { elementId: 'b2' }] });
    expect(attempt).toThrow(CommandRejected);
    expect(attempt).toThrow(/result\.activateElements\[1\]\.elementId 'b2' is not an element ad-hoc subprocess 'adhoc' can activate/);
    expect(engine.instance(key)).toEqual(before);
  });

  it('a result for the job of a task is rejected', () => {
    const engine = engineWith(model({ active: '=["a"]' }));
    engine.start('p');
    const [job] = engine.activate('a', 10);
    expect(() => engine.completeJob(job.key, {}, { type: 'adHocSubProcess', isCompletionConditionFulfilled: true })).toThrow(
      /result is for the job of an ad-hoc subprocess/,
    );
  });
});

describe('ad-hoc subprocess, activated from outside (extension)', () => {
  it('starts a path at each element named, with its local variables; a bad id or key changes nothing', () => {
    const engine = engineWith(model({ condition: '=done = true' }));
    const key = engine.start('p');
    const adHoc = Object.values(engine.instance(key)!.elements).find((e) => e.elementId === 'adhoc')!;
    expect(() => engine.command(key, { type: 'activateAdHocElements', elementInstanceKey: adHoc.key, elements: [{ elementId: 'b2' }] })).toThrow(
      /elements\[0\]\.elementId 'b2' is not an element ad-hoc subprocess 'adhoc' can activate \(a, b, c\)/,
    );
    expect(() => engine.command(key, { type: 'activateAdHocElements', elementInstanceKey: key, elements: [{ elementId: 'a' }] })).toThrow(
      /No active ad-hoc subprocess/,
    );
    expect(engine.activate('a', 10)).toEqual([]);

    engine.command(key, { type: 'activateAdHocElements', elementInstanceKey: adHoc.key, elements: [{ elementId: 'b', variables: { call: 1 } }] });
    const [b] = engine.activate('b', 10);
    expect(b.variables).toMatchObject({ call: 1 });
    engine.completeJob(b.key, {});
    completeAll(engine, 'b2', { done: true });
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});
