// What an activated job tells its worker: every job its custom headers,
// element, process id and version and instance key; the jobs of message
// waits (receive tasks, message catch events, an event-based gateway's
// message branches) also the message name and the correlation key as
// evaluated when the wait began (extension), left out when it gives
// neither a string nor a number.
import { describe, expect, it } from 'vitest';
import { definitions, end, engineWith, flow, start } from './testing.ts';

const subscription = (key: string) => `<bpmn:extensionElements><zeebe:subscription correlationKey="${key}"/></bpmn:extensionElements>`;

const messages =
  `<bpmn:message id="m-paid" name="order-paid">${subscription('=orderId')}</bpmn:message>` +
  `<bpmn:message id="m-shipped" name="shipped">${subscription('=customer.number')}</bpmn:message>` +
  '<bpmn:message id="m-plain" name="plain"/>' +
  `<bpmn:message id="m-dynamic" name="=&quot;cancel-&quot; + orderId">${subscription('=missing.value')}</bpmn:message>`;

describe('jobs of message waits', () => {
  it('carry the message name and the correlation key evaluated when the wait began', () => {
    const xml = definitions(
      messages +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:receiveTask id="paid" messageRef="m-paid"/>' +
        '<bpmn:intermediateCatchEvent id="shipped"><bpmn:messageEventDefinition messageRef="m-shipped"/></bpmn:intermediateCatchEvent>' +
        '<bpmn:receiveTask id="plain" messageRef="m-plain"/>' +
        '<bpmn:receiveTask id="dynamic" messageRef="m-dynamic"/>' +
        end() +
        flow('f1', 'start', 'paid') +
        flow('f2', 'paid', 'shipped') +
        flow('f3', 'shipped', 'plain') +
        flow('f4', 'plain', 'dynamic') +
        flow('f5', 'dynamic', 'end') +
        '</bpmn:process>',
    );
    const engine = engineWith(xml);
    const key = engine.start('p', { orderId: 'A-17', customer: { number: 42 } });
    const [paid] = engine.activate('message:order-paid', 1);
    expect(paid.message).toEqual({ name: 'order-paid', correlationKey: 'A-17' });
    // Evaluated when the wait began: a later change of orderId does not move it.
    engine.completeJob(paid.key, { orderId: 'B-2', customer: { number: 7 } });
    const [shipped] = engine.activate('event:message:shipped', 1);
    expect(shipped.message).toEqual({ name: 'shipped', correlationKey: '7' });
    engine.completeJob(shipped.key);
    const [plain] = engine.activate('message:plain', 1);
    expect(plain.message).toEqual({ name: 'plain' });
    engine.completeJob(plain.key);
    // A FEEL name is evaluated too; a key that gives null is left out, and the wait is a job as before.
    const [dynamic] = engine.activate('message:cancel-B-2', 1);
    expect(dynamic.message).toEqual({ name: 'cancel-B-2' });
    engine.completeJob(dynamic.key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });

  it("an event-based gateway's message branch carries its message", () => {
    const xml = definitions(
      messages +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:eventBasedGateway id="gw"/>' +
        '<bpmn:intermediateCatchEvent id="paid"><bpmn:messageEventDefinition messageRef="m-paid"/></bpmn:intermediateCatchEvent>' +
        '<bpmn:intermediateCatchEvent id="plain"><bpmn:messageEventDefinition messageRef="m-plain"/></bpmn:intermediateCatchEvent>' +
        end('e1') +
        end('e2') +
        flow('f0', 'start', 'gw') +
        flow('f1', 'gw', 'paid') +
        flow('f2', 'gw', 'plain') +
        flow('f3', 'paid', 'e1') +
        flow('f4', 'plain', 'e2') +
        '</bpmn:process>',
    );
    const engine = engineWith(xml);
    engine.start('p', { orderId: 'C-3' });
    expect(engine.activate('event:message:paid', 1)[0].message).toEqual({ name: 'order-paid', correlationKey: 'C-3' });
    expect(engine.activate('event:message:plain', 1)[0].message).toEqual({ name: 'plain' });
  });
});

describe('every job', () => {
  it('carries its custom headers, element, process id and version and instance key; no message unless it is a message wait', () => {
    const headers =
      '<bpmn:extensionElements><zeebe:taskDefinition type="charge"/><zeebe:taskHeaders><zeebe:header key="currency" value="EUR"/></zeebe:taskHeaders></bpmn:extensionElements>';
    const xml = definitions(
      '<bpmn:process id="p" isExecutable="true">' +
        start() +
        `<bpmn:serviceTask id="pay">${headers}</bpmn:serviceTask>` +
        end() +
        flow('f1', 'start', 'pay') +
        flow('f2', 'pay', 'end') +
        '</bpmn:process>',
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    const [job] = engine.activate('charge', 1);
    expect(job).toMatchObject({
      type: 'charge',
      processInstanceKey: key,
      bpmnProcessId: 'p',
      processDefinitionVersion: 1,
      elementId: 'pay',
      customHeaders: { currency: 'EUR' },
    });
    expect(job.elementInstanceKey).toMatch(/^\d+$/);
    expect(job).not.toHaveProperty('message');
  });
});
