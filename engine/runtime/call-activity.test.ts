import { describe, expect, it } from 'vitest';
import { definitions, end, engineWith, flow, ioMapping, service, start } from './testing.ts';

const child = (id = 'child') =>
  `<bpmn:process id="${id}" isExecutable="true">` +
  start('cs') +
  service('ct', 'childWork') +
  end('ce') +
  flow('c1', 'cs', 'ct') +
  flow('c2', 'ct', 'ce') +
  '</bpmn:process>';

const parent = (called: string, extensions = '') =>
  `<bpmn:process id="parent" isExecutable="true">` +
  start() +
  `<bpmn:callActivity id="call"><bpmn:extensionElements>${called}${extensions}</bpmn:extensionElements></bpmn:callActivity>` +
  service('after', 'after') +
  end() +
  flow('f1', 'start', 'call') +
  flow('f2', 'call', 'after') +
  flow('f3', 'after', 'end') +
  '</bpmn:process>';

describe('call activities', () => {
  it('starts the called process as an instance of its own key and waits for it', () => {
    const engine = engineWith(definitions(parent('<zeebe:calledElement processId="child"/>') + child()));
    const key = engine.start('parent', { orderId: 'A1' });
    const [kid] = engine.children(key);
    expect(kid.key).not.toBe(key);
    expect(kid.parent).toMatchObject({ instanceKey: key });
    const [job] = engine.activate('childWork', 1);
    expect(job.processInstanceKey).toBe(kid.key);
    expect(job.variables).toEqual({ orderId: 'A1' });
    expect(engine.activate('after', 1)).toHaveLength(0);
    engine.completeJob(job.key, { shipped: true });
    expect(engine.instance(kid.key)!.state).toBe('COMPLETED');
    const [after] = engine.activate('after', 1);
    expect(after.variables).toEqual({ orderId: 'A1', shipped: true });
  });

  it('propagates only mapped variables when both propagation flags are off', () => {
    const engine = engineWith(
      definitions(
        parent(
          '<zeebe:calledElement processId="child" propagateAllChildVariables="false" propagateAllParentVariables="false"/>',
          ioMapping([['=orderId', 'id']], [['=shipped', 'childShipped']]),
        ) + child(),
      ),
    );
    engine.start('parent', { orderId: 'A1', secret: 's' });
    const [job] = engine.activate('childWork', 1);
    expect(job.variables).toEqual({ id: 'A1' });
    engine.completeJob(job.key, { shipped: true, noise: 1 });
    const [after] = engine.activate('after', 1);
    expect(after.variables).toEqual({ orderId: 'A1', secret: 's', childShipped: true });
  });

  it('resolves a FEEL process id, and raises an incident when the called process is not deployed', () => {
    const engine = engineWith(definitions(parent('<zeebe:calledElement processId="=target"/>') + child()));
    engine.start('parent', { target: 'child' });
    expect(engine.activate('childWork', 1)).toHaveLength(1);
    const missing = engine.start('parent', { target: 'nope' });
    const [incident] = Object.values(engine.instance(missing)!.incidents);
    expect(incident).toMatchObject({ type: 'CALLED_ELEMENT_ERROR', elementId: 'call' });
    expect(incident.message).toContain("'nope'");
  });

  it('limits how deep calls nest: a process that calls itself ends in an incident instead of recursing forever', () => {
    const recursive = definitions(
      '<bpmn:process id="self" isExecutable="true">' +
        start() +
        '<bpmn:callActivity id="again"><bpmn:extensionElements><zeebe:calledElement processId="self"/></bpmn:extensionElements></bpmn:callActivity>' +
        end() +
        flow('f1', 'start', 'again') +
        flow('f2', 'again', 'end') +
        '</bpmn:process>',
    );
    const engine = engineWith(recursive, { maxCallDepth: 3 });
    const root = engine.start('self');
    const second = engine.children(root)[0];
    const third = engine.children(second.key)[0];
    expect([engine.instance(root)!.depth, second.depth, third.depth]).toEqual([undefined, 1, 2]);
    expect(engine.children(third.key)).toHaveLength(0);
    expect([engine.instance(root)!.state, second.state, third.state]).toEqual(['ACTIVE', 'ACTIVE', 'INCIDENT']);
    const [incident] = Object.values(third.incidents);
    expect(incident).toMatchObject({ type: 'CALLED_ELEMENT_ERROR', elementId: 'again' });
    expect(incident.message).toContain('that would nest 4 process instances through call activities, more than the 3 allowed');
  });

  it('cancelling the parent terminates the child', () => {
    const engine = engineWith(definitions(parent('<zeebe:calledElement processId="child"/>') + child()));
    const key = engine.start('parent');
    const [kid] = engine.children(key);
    engine.cancel(key);
    expect(engine.instance(kid.key)!.state).toBe('TERMINATED');
    expect(engine.activate('childWork', 1)).toHaveLength(0);
  });

  it('an incident in the child is visible from the parent', () => {
    const engine = engineWith(definitions(parent('<zeebe:calledElement processId="child"/>') + child()));
    const key = engine.start('parent');
    engine.failJob(engine.activate('childWork', 1)[0].key, 0, 'boom');
    const incidents = engine.children(key).flatMap((c) => Object.values(c.incidents));
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ type: 'JOB_NO_RETRIES', message: expect.stringContaining('boom') });
  });

  it('an error thrown in the child is caught by an error boundary on the call activity, which terminates the child', () => {
    const failingChild =
      '<bpmn:process id="child" isExecutable="true">' +
      start('cs') +
      service('ct', 'childWork') +
      '<bpmn:endEvent id="fail"><bpmn:errorEventDefinition errorRef="E"/></bpmn:endEvent>' +
      '<bpmn:parallelGateway id="fork"/>' +
      service('other', 'otherWork') +
      flow('c0', 'cs', 'fork') +
      flow('c1', 'fork', 'ct') +
      flow('c3', 'fork', 'other') +
      flow('c2', 'ct', 'fail') +
      '</bpmn:process>';
    const withBoundary = (caught: boolean) =>
      definitions(
        '<bpmn:error id="E" errorCode="NO_STOCK"/>' +
          parent('<zeebe:calledElement processId="child"/>').replace(
            '</bpmn:process>',
            (caught
              ? '<bpmn:boundaryEvent id="noStock" attachedToRef="call"><bpmn:errorEventDefinition errorRef="E"/></bpmn:boundaryEvent>' +
                service('reorder', 'reorder') +
                flow('b1', 'noStock', 'reorder')
              : '') + '</bpmn:process>',
          ) +
          failingChild,
      );
    const engine = engineWith(withBoundary(true));
    const key = engine.start('parent');
    const [kid] = engine.children(key);
    engine.completeJob(engine.activate('childWork', 1)[0].key);
    expect(engine.activate('reorder', 1)).toHaveLength(1);
    expect(engine.instance(kid.key)!.state).toBe('TERMINATED');
    expect(engine.activate('otherWork', 1)).toHaveLength(0);

    const uncaught = engineWith(withBoundary(false));
    const parentKey = uncaught.start('parent');
    const [uncaughtKid] = uncaught.children(parentKey);
    uncaught.completeJob(uncaught.activate('childWork', 1)[0].key);
    const [incident] = Object.values(uncaught.instance(uncaughtKid.key)!.incidents);
    expect(incident).toMatchObject({ type: 'UNHANDLED_ERROR_EVENT', elementId: 'fail' });
    expect(uncaught.instance(parentKey)!.state).toBe('ACTIVE');
  });
});
