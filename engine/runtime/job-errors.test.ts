// BPMN errors thrown by a worker for its job (extension): caught by the
// job's own error boundary by code or catch-all, by an enclosing
// subprocess's boundary or an error event subprocess, across a call
// activity; uncaught, an UNHANDLED_ERROR_EVENT incident naming the code.
import { describe, expect, it } from 'vitest';
import { CommandRejected } from './in-memory-engine.ts';
import { definitions, end, engineWith, flow, service, start, visited } from './testing.ts';

const errors = '<bpmn:error id="Err_Card" errorCode="CARD_DECLINED"/><bpmn:error id="Err_Stock" errorCode="NO_STOCK"/>';
const errorBoundary = (id: string, host: string, ref?: string) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${host}"><bpmn:errorEventDefinition${ref ? ` errorRef="${ref}"` : ''}/></bpmn:boundaryEvent>`;

/** start → charge (job `charge`) → end, with `boundaries` and their handlers. */
function charging(boundaries: string, extra = '') {
  return definitions(
    errors +
      '<bpmn:process id="p" isExecutable="true">' +
      start() +
      service('charge', 'charge') +
      end() +
      flow('f1', 'start', 'charge') +
      flow('f2', 'charge', 'end') +
      boundaries +
      extra +
      '</bpmn:process>',
  );
}

const handlers =
  service('onCardTask', 'on-card') + service('onAnyTask', 'on-any') + end('e2') + end('e3') + flow('h1', 'onCardTask', 'e2') + flow('h2', 'onAnyTask', 'e3');

describe('errors thrown by workers', () => {
  it("is caught by the job's error boundary with the code, else by its catch-all, interrupting the task", () => {
    const engine = engineWith(
      charging(
        errorBoundary('onCard', 'charge', 'Err_Card') +
          errorBoundary('onAny', 'charge') +
          flow('b1', 'onCard', 'onCardTask') +
          flow('b2', 'onAny', 'onAnyTask'),
        handlers,
      ),
    );
    const key = engine.start('p', { amount: 5 });
    const [job] = engine.activate('charge', 1);
    engine.throwJobError(job.key, 'CARD_DECLINED', 'insufficient funds', { reason: 'funds' });
    const [handler] = engine.activate('on-card', 1);
    expect(handler.variables).toEqual({ amount: 5, reason: 'funds' });
    expect(engine.activate('on-any', 1)).toHaveLength(0);
    expect(engine.instance(key)!.jobs).not.toHaveProperty(job.key);
    expect(visited(engine, key)).toEqual(['start', 'onCard']);
    expect(Object.values(engine.instance(key)!.elements).map((ei) => ei.elementId)).toEqual(['onCardTask']);
    // The job is gone: completing it now is refused, as for any withdrawn job.
    expect(() => engine.completeJob(job.key)).toThrow(CommandRejected);

    const other = engine.start('p');
    engine.throwJobError(engine.activate('charge', 1)[0].key, 'SOMETHING_ELSE');
    expect(engine.activate('on-any', 1)[0].processInstanceKey).toBe(other);
  });

  it('is caught by an enclosing subprocess boundary, or by an error event subprocess', () => {
    const inSub = definitions(
      errors +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:subProcess id="sub">' +
        start('ss') +
        service('charge', 'charge') +
        end('se') +
        flow('s1', 'ss', 'charge') +
        flow('s2', 'charge', 'se') +
        '</bpmn:subProcess>' +
        errorBoundary('onStock', 'sub', 'Err_Stock') +
        service('restock', 'restock') +
        end() +
        end('e2') +
        flow('f1', 'start', 'sub') +
        flow('f2', 'sub', 'end') +
        flow('b1', 'onStock', 'restock') +
        flow('b2', 'restock', 'e2') +
        '<bpmn:subProcess id="onError" triggeredByEvent="true"><bpmn:startEvent id="es"><bpmn:errorEventDefinition errorRef="Err_Card"/></bpmn:startEvent>' +
        service('recover', 'recover') +
        end('ee') +
        flow('r1', 'es', 'recover') +
        flow('r2', 'recover', 'ee') +
        '</bpmn:subProcess>' +
        '</bpmn:process>',
    );
    const engine = engineWith(inSub);
    const stock = engine.start('p');
    engine.throwJobError(engine.activate('charge', 1)[0].key, 'NO_STOCK');
    expect(engine.instance(stock)!.elements).not.toHaveProperty('sub');
    engine.completeJob(engine.activate('restock', 1)[0].key);
    expect(engine.instance(stock)!.state).toBe('COMPLETED');

    const card = engine.start('p');
    engine.throwJobError(engine.activate('charge', 1)[0].key, 'CARD_DECLINED', undefined, { declined: true });
    const [recover] = engine.activate('recover', 1);
    expect(recover.variables).toEqual({ declined: true });
    engine.completeJob(recover.key);
    expect(engine.instance(card)!.state).toBe('COMPLETED');
    expect(visited(engine, card)).not.toContain('restock');
  });

  it("crosses a call activity: the parent's boundary catches the child's job error", () => {
    const child =
      '<bpmn:process id="child" isExecutable="true">' +
      start('cs') +
      service('ct', 'child-work') +
      end('ce') +
      flow('c1', 'cs', 'ct') +
      flow('c2', 'ct', 'ce') +
      '</bpmn:process>';
    const parent =
      '<bpmn:process id="parent" isExecutable="true">' +
      start() +
      '<bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child"/></bpmn:extensionElements></bpmn:callActivity>' +
      errorBoundary('onCard', 'call', 'Err_Card') +
      service('after', 'after') +
      service('handle', 'handle') +
      end() +
      end('e2') +
      flow('f1', 'start', 'call') +
      flow('f2', 'call', 'after') +
      flow('f3', 'after', 'end') +
      flow('b1', 'onCard', 'handle') +
      flow('b2', 'handle', 'e2') +
      '</bpmn:process>';
    const engine = engineWith(definitions(errors + parent + child));
    const key = engine.start('parent', { orderId: 'A1' });
    const [kid] = engine.children(key);
    engine.throwJobError(engine.activate('child-work', 1)[0].key, 'CARD_DECLINED', 'declined', { why: 'limit' });
    expect(engine.instance(kid.key)!.state).toBe('TERMINATED');
    const [handle] = engine.activate('handle', 1);
    expect(handle.variables).toEqual({ orderId: 'A1', why: 'limit' });
    expect(engine.activate('after', 1)).toHaveLength(0);
  });

  it("from one instance of a multi-instance task, is caught by the task's boundary, ending every instance", () => {
    const loop =
      '<bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=items" inputElement="item"/>' +
      '</bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>';
    const xml = charging(errorBoundary('onCard', 'charge', 'Err_Card') + flow('b1', 'onCard', 'onCardTask'), handlers).replace(
      '<bpmn:extensionElements><zeebe:taskDefinition type="charge"/></bpmn:extensionElements></bpmn:serviceTask>',
      `<bpmn:extensionElements><zeebe:taskDefinition type="charge"/></bpmn:extensionElements>${loop}</bpmn:serviceTask>`,
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { items: [1, 2, 3] });
    const jobs = engine.activate('charge', 3);
    expect(jobs).toHaveLength(3);
    engine.throwJobError(jobs[1].key, 'CARD_DECLINED');
    expect(engine.activate('on-card', 1)).toHaveLength(1);
    expect(engine.instance(key)!.jobs).not.toHaveProperty(jobs[0].key);
    expect(engine.instance(key)!.jobs).not.toHaveProperty(jobs[2].key);
    expect(() => engine.completeJob(jobs[0].key)).toThrow(CommandRejected);
  });

  it('uncaught, is an UNHANDLED_ERROR_EVENT incident naming the code, in the instance that threw it', () => {
    const engine = engineWith(
      charging(errorBoundary('onCard', 'charge', 'Err_Card') + service('h', 'h') + end('e2') + flow('b1', 'onCard', 'h') + flow('b2', 'h', 'e2')),
    );
    const key = engine.start('p');
    const [job] = engine.activate('charge', 1);
    engine.throwJobError(job.key, 'NO_STOCK', 'out of stock');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident).toMatchObject({ type: 'UNHANDLED_ERROR_EVENT', elementId: 'charge' });
    expect(incident.message).toContain("'NO_STOCK'");
    expect(incident.message).toContain('out of stock');
    expect(instance.jobs).toEqual({});
    expect(() => engine.throwJobError(job.key, 'NO_STOCK')).toThrow(/not found/);
  });

  it('refuses a job that is gone or that failed for good, and variables that are not an object, changing nothing', () => {
    const engine = engineWith(charging(errorBoundary('onAny', 'charge') + service('h', 'h') + end('e2') + flow('b1', 'onAny', 'h') + flow('b2', 'h', 'e2')));
    const key = engine.start('p');
    const [job] = engine.activate('charge', 1);
    expect(() => engine.throwJobError(job.key, 'X', undefined, [] as never)).toThrow(/variables must be a JSON object/);
    engine.failJob(job.key, 0, 'broken');
    expect(() => engine.throwJobError(job.key, 'X')).toThrow(/failed with no retries left/);
    expect(engine.instance(key)!.jobs).toHaveProperty(job.key);
    expect(engine.activate('h', 1)).toHaveLength(0);
    expect(() => engine.throwJobError('999', 'X')).toThrow(CommandRejected);
  });
});
