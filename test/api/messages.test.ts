// Messages (extension, docs/messages.md) over real HTTP through the
// partition leaders (4 partitions: instances on any of them, the message
// on the one its name and correlation key hash to): POST /api/v1/messages
// correlates to receive tasks and message catches (their jobs withdrawn),
// boundary events (interrupting and not) and message starts (1 credit each, one instance at a
// time per correlation key, a buffered start charged when it happens); a
// message with a timeToLive is buffered in Postgres and survives a restart
// before the wait opens, and once its time to live ran out reaches nothing;
// a messageId makes a second publish a 409; bad input is a 400
// naming the field and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions, end, flow, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { activateOne, balanceOf, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;
let account: string;

const message = (id: string, name: string) =>
  `<bpmn:message id="${id}" name="${name}"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>`;

/** start → a message catch event (`paid`) → a receive task (`shipped`) → end */
const waits = definitions(
  message('Paid', 'paid') +
    message('Shipped', 'shipped') +
    '<bpmn:process id="msg-waits" isExecutable="true">' +
    start() +
    '<bpmn:intermediateCatchEvent id="waitPaid"><bpmn:messageEventDefinition messageRef="Paid"/></bpmn:intermediateCatchEvent>' +
    '<bpmn:receiveTask id="waitShipped" messageRef="Shipped"/>' +
    end() +
    flow('f1', 'start', 'waitPaid') +
    flow('f2', 'waitPaid', 'waitShipped') +
    flow('f3', 'waitShipped', 'end') +
    '</bpmn:process>',
);

/** start → work (a `cancel` message boundary → handle) → end */
const cancellable = definitions(
  message('Cancel', 'cancel') +
    '<bpmn:process id="msg-cancellable" isExecutable="true">' +
    start() +
    service('work', 'msg-work') +
    '<bpmn:boundaryEvent id="onCancel" attachedToRef="work"><bpmn:messageEventDefinition messageRef="Cancel"/></bpmn:boundaryEvent>' +
    service('handle', 'msg-handle') +
    end() +
    end('e2') +
    flow('f1', 'start', 'work') +
    flow('f2', 'work', 'end') +
    flow('b1', 'onCancel', 'handle') +
    flow('b2', 'handle', 'e2') +
    '</bpmn:process>',
);

/** start → work (a non-interrupting `remind` message boundary → note) → end */
const remindable = definitions(
  message('Remind', 'remind') +
    '<bpmn:process id="msg-remindable" isExecutable="true">' +
    start() +
    service('work', 'msg-slow-work') +
    '<bpmn:boundaryEvent id="onRemind" attachedToRef="work" cancelActivity="false"><bpmn:messageEventDefinition messageRef="Remind"/></bpmn:boundaryEvent>' +
    service('note', 'msg-note') +
    end() +
    end('e2') +
    flow('f1', 'start', 'work') +
    flow('f2', 'work', 'end') +
    flow('b1', 'onRemind', 'note') +
    flow('b2', 'note', 'e2') +
    '</bpmn:process>',
);

/** Started by the message `order placed`. */
const started = definitions(
  '<bpmn:message id="Placed" name="order placed"/>' +
    '<bpmn:process id="msg-started" isExecutable="true">' +
    '<bpmn:startEvent id="ms"><bpmn:messageEventDefinition messageRef="Placed"/></bpmn:startEvent>' +
    service('fulfil', 'msg-fulfil') +
    end() +
    flow('f1', 'ms', 'fulfil') +
    flow('f2', 'fulfil', 'end') +
    '</bpmn:process>',
);

const publish = (body: unknown, key = apiKey) => api.call('POST', '/api/v1/messages', { apiKey: key, json: body });

async function waitingAt(key: string, elementId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    if (res.json.activeElements?.some((e: { elementId: string }) => e.elementId === elementId)) return;
    if (Date.now() > deadline) throw new Error(`instance ${key} not waiting at ${elementId}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey, account } = await api.newAccount());
  await mustDeploy(api, apiKey, waits);
  await mustDeploy(api, apiKey, cancellable);
  await mustDeploy(api, apiKey, remindable);
  await mustDeploy(api, apiKey, started);
}, 60_000);
afterAll(() => api?.close());

describe('POST /api/v1/messages (extension)', () => {
  it('completes a message catch event and a receive task of the instance whose correlation key matches, withdrawing their jobs', async () => {
    const key = await startInstance(api, apiKey, 'msg-waits', { orderId: 'A-1' });
    const other = await startInstance(api, apiKey, 'msg-waits', { orderId: 'A-2' });
    await waitingAt(key, 'waitPaid');
    await waitingAt(other, 'waitPaid');
    const res = await publish({ name: 'paid', correlationKey: 'A-1', variables: { amount: 30 } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ messageKey: expect.stringMatching(/^\d+$/), startedInstances: 0 });
    await waitingAt(key, 'waitShipped');
    // The catch event's job went with it; the other instance's is still offered.
    const job = await activateOne(api, apiKey, 'event:message:waitPaid');
    expect(job.processInstanceKey).toBe(other);
    expect(job.message).toEqual({ name: 'paid', correlationKey: 'A-2' });
    const shipping = await activateOne(api, apiKey, 'message:shipped');
    expect(shipping.processInstanceKey).toBe(key);
    expect((await publish({ name: 'shipped', correlationKey: 'A-1' })).status).toBe(201);
    const done = await instanceInState(api, apiKey, key, 'COMPLETED');
    expect(done.variables).toMatchObject({ orderId: 'A-1', amount: 30 });
    // The withdrawn receive-task job: a late completion is a 404.
    expectProblem(await api.call('POST', `/api/v1/jobs/${shipping.key}/complete`, { apiKey, json: {} }), 404);
    // A worker may still complete a wait's job itself, as documented.
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await waitingAt(other, 'waitShipped');
  });

  it('a numeric correlation key matches its text; a message no one waits for changes nothing', async () => {
    const key = await startInstance(api, apiKey, 'msg-waits', { orderId: 77 });
    await waitingAt(key, 'waitPaid');
    expect((await publish({ name: 'paid', correlationKey: 'nobody' })).status).toBe(201);
    expect((await publish({ name: 'paid', correlationKey: 77 })).status).toBe(201);
    await waitingAt(key, 'waitShipped');
  });

  it('an interrupting message boundary ends its host and takes its path with the variables', async () => {
    const key = await startInstance(api, apiKey, 'msg-cancellable', { orderId: 'C-1' });
    const work = await activateOne(api, apiKey, 'msg-work');
    expect((await publish({ name: 'cancel', correlationKey: 'C-1', variables: { why: 'customer' } })).status).toBe(201);
    const handle = await activateOne(api, apiKey, 'msg-handle');
    expect(handle).toMatchObject({ processInstanceKey: key, variables: { orderId: 'C-1', why: 'customer' } });
    expectProblem(await api.call('POST', `/api/v1/jobs/${work.key}/complete`, { apiKey, json: {} }), 404);
  });

  it('a non-interrupting message boundary starts its path beside the host for each message, and the host goes on', async () => {
    const key = await startInstance(api, apiKey, 'msg-remindable', { orderId: 'R-1' });
    const work = await activateOne(api, apiKey, 'msg-slow-work');
    for (const n of [1, 2]) expect((await publish({ name: 'remind', correlationKey: 'R-1', variables: { n } })).status).toBe(201);
    const notes = [await activateOne(api, apiKey, 'msg-note'), await activateOne(api, apiKey, 'msg-note')];
    expect(notes.map((j) => j.processInstanceKey)).toEqual([key, key]);
    for (const note of notes) expect((await api.call('POST', `/api/v1/jobs/${note.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    expect((await api.call('POST', `/api/v1/jobs/${work.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('a buffered message whose time to live ran out reaches no wait opened after', async () => {
    expect((await publish({ name: 'paid', correlationKey: 'T-1', timeToLive: 200, variables: { stale: true } })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 400));
    const key = await startInstance(api, apiKey, 'msg-waits', { orderId: 'T-1' });
    // A buffered message is offered in the batch that opens the wait: answered, the instance still waits at the catch.
    await waitingAt(key, 'waitPaid');
    expect((await publish({ name: 'paid', correlationKey: 'T-1', variables: { fresh: true } })).status).toBe(201);
    await waitingAt(key, 'waitShipped');
    const detail = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    expect(detail.json.variables).toMatchObject({ fresh: true });
    expect(detail.json.variables).not.toHaveProperty('stale');
  });

  it('a message start event starts an instance of the latest version for 1 credit', async () => {
    const before = await balanceOf(api, account);
    const res = await publish({ name: 'order placed', variables: { orderId: 'S-1' } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.startedInstances).toBe(1);
    const job = await activateOne(api, apiKey, 'msg-fulfil');
    expect(job).toMatchObject({ bpmnProcessId: 'msg-started', variables: { orderId: 'S-1' } });
    expect(await balanceOf(api, account)).toBe(before - 1);
    // A message nothing starts costs nothing.
    expect((await publish({ name: 'nothing starts on this' })).status).toBe(201);
    expect(await balanceOf(api, account)).toBe(before - 1);
  });

  it('a retry under the same Idempotency-Key answers the first result, starts nothing more and is charged once', async () => {
    const keyed = (body: unknown) => api.call('POST', '/api/v1/messages', { apiKey, json: body, headers: { 'Idempotency-Key': 'placed-1' } });
    const before = await balanceOf(api, account);
    const first = await keyed({ name: 'order placed', variables: { orderId: 'K-1' } });
    expect(first.status, first.text).toBe(201);
    const again = await keyed({ name: 'order placed', variables: { orderId: 'K-1' } });
    expect(again.status, again.text).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(await balanceOf(api, account)).toBe(before - 1);
    expect(await activateOne(api, apiKey, 'msg-fulfil')).toMatchObject({ variables: { orderId: 'K-1' } });
    const none = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'msg-fulfil', maxJobsToActivate: 5, worker: 'w' } });
    expect(none.json.jobs).toHaveLength(0);
    // The same key with another body is another request: a 409, nothing published.
    expectProblem(await keyed({ name: 'order placed', variables: { orderId: 'K-2' } }), 409);
    expect(await balanceOf(api, account)).toBe(before - 1);
  });

  it('a correlation key starts one instance at a time: a publish it holds back is refunded, a buffered one is charged when it starts', async () => {
    const before = await balanceOf(api, account);
    const first = await publish({ name: 'order placed', correlationKey: 'O-1', variables: { orderId: 'O-1', n: 1 } });
    expect(first.json.startedInstances, first.text).toBe(1);
    const held = await publish({ name: 'order placed', correlationKey: 'O-1', variables: { n: 2 } });
    expect(held.json.startedInstances, held.text).toBe(0);
    const buffered = await publish({ name: 'order placed', correlationKey: 'O-1', variables: { orderId: 'O-1', n: 3 }, timeToLive: 600_000 });
    expect(buffered.json.startedInstances, buffered.text).toBe(0);
    expect(await balanceOf(api, account)).toBe(before - 1);
    const job = await activateOne(api, apiKey, 'msg-fulfil');
    expect(job.variables).toEqual({ orderId: 'O-1', n: 1 });
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    // The first ended: the buffered message starts the next, charged by the engine.
    const next = await activateOne(api, apiKey, 'msg-fulfil');
    expect(next.variables).toEqual({ orderId: 'O-1', n: 3 });
    expect(await balanceOf(api, account)).toBe(before - 2);
    expect((await api.call('POST', `/api/v1/jobs/${next.key}/complete`, { apiKey, json: {} })).status).toBe(204);
  });

  it('buffers a message for its timeToLive; it survives a restart and correlates to a wait opened later, once', async () => {
    expect((await publish({ name: 'paid', correlationKey: 'B-1', timeToLive: 600_000, variables: { early: true } })).status).toBe(201);
    await api.restart();
    const key = await startInstance(api, apiKey, 'msg-waits', { orderId: 'B-1' });
    await waitingAt(key, 'waitShipped');
    const detail = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    expect(detail.json.variables).toMatchObject({ early: true });
    // Another instance of the process waiting for it later does not get it (one per process): a second message moves it.
    const second = await startInstance(api, apiKey, 'msg-waits', { orderId: 'B-1' });
    await waitingAt(second, 'waitPaid');
    expect((await publish({ name: 'paid', correlationKey: 'B-1', variables: { late: true } })).status).toBe(201);
    await waitingAt(second, 'waitShipped');
    const secondDetail = await api.call('GET', `/api/v1/process-instances/${second}`, { apiKey });
    expect(secondDetail.json.variables).toMatchObject({ late: true });
    expect(secondDetail.json.variables).not.toHaveProperty('early');
  });

  it('a second publish with the messageId of a buffered message is a 409 and publishes nothing', async () => {
    const body = { name: 'paid', correlationKey: 'D-1', timeToLive: 600_000, messageId: 'm-1' };
    const first = await publish(body);
    expect(first.status).toBe(201);
    const again = await publish({ ...body, variables: { second: true } });
    expectProblem(again, 409);
    expect(again.json.messageKey).toBe(first.json.messageKey);
    // The same messageId under another correlation key is another message.
    expect((await publish({ ...body, correlationKey: 'D-2' })).status).toBe(201);
    const key = await startInstance(api, apiKey, 'msg-waits', { orderId: 'D-1' });
    await waitingAt(key, 'waitShipped');
    const detail = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    expect(detail.json.variables).not.toHaveProperty('second');
  });

  it('refuses bad input with a 400 naming the field, and publishes nothing', async () => {
    const key = await startInstance(api, apiKey, 'msg-waits', { orderId: 'E-1' });
    await waitingAt(key, 'waitPaid');
    expectProblem(await publish({ correlationKey: 'E-1' }), 400, 'body.name');
    expectProblem(await publish({ name: '', correlationKey: 'E-1' }), 400, 'body.name');
    expectProblem(await publish({ name: 'paid', correlationKey: { id: 1 } }), 400, 'body.correlationKey');
    expectProblem(await publish({ name: 'paid', correlationKey: true }), 400, 'body.correlationKey');
    expectProblem(await publish({ name: 'paid', correlationKey: 'E-1', timeToLive: -1 }), 400, 'body.timeToLive');
    expectProblem(await publish({ name: 'paid', correlationKey: 'E-1', timeToLive: 8 * 86_400_000 }), 400, 'body.timeToLive');
    expectProblem(await publish({ name: 'paid', correlationKey: 'E-1', variables: [1] }), 400, 'body.variables');
    expectProblem(await publish({ name: 'paid', correlationKey: 'E-1', variables: { bad: 'a\u0000b' } }), 400, /^body\.variables/);
    expectProblem(await publish({ name: 'pa\u0000id', correlationKey: 'E-1' }), 400, 'body.name');
    await waitingAt(key, 'waitPaid');
    // Another account's message never reaches this account's instances.
    const other = await api.newAccount();
    expect((await publish({ name: 'paid', correlationKey: 'E-1' }, other.apiKey)).status).toBe(201);
    await waitingAt(key, 'waitPaid');
    expect((await publish({ name: 'paid', correlationKey: 'E-1' })).status).toBe(201);
    await waitingAt(key, 'waitShipped');
  });
});
