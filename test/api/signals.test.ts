// Signals (extension, docs/signals.md) over real HTTP through the partition
// leaders (4 partitions: waiting instances on several of them, the signal
// broadcast from the partition its name hashes to): POST /api/v1/signals
// reaches signal catch events and boundaries on every partition, starts
// instances by signal start events (1 credit each), answers a retry under
// the same Idempotency-Key with its first result (charged once); a signal an
// instance throws reaches the waiting instances of every partition; bad
// input and a flood are a 4xx naming the cause and broadcast nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOfKey } from '../../engine/partition/keys.ts';
import { definitions, end, eventStartedTask, flow, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { activateOne, balanceOf, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;
let account: string;

const signal = (ref: string) => `<bpmn:signalEventDefinition signalRef="${ref}"/>`;
const signals = '<bpmn:signal id="Go" name="go"/><bpmn:signal id="Recall" name="recall"/><bpmn:signal id="Open" name="shop open"/>';

/** start → a signal catch (`go`) → end */
const waiter = definitions(
  signals +
    '<bpmn:process id="sig-waiter" isExecutable="true">' +
    start() +
    `<bpmn:intermediateCatchEvent id="waitGo">${signal('Go')}</bpmn:intermediateCatchEvent>` +
    end() +
    flow('f1', 'start', 'waitGo') +
    flow('f2', 'waitGo', 'end') +
    '</bpmn:process>',
);

/** start → work (a non-interrupting `recall` boundary → note) → end */
const recallable = definitions(
  signals +
    '<bpmn:process id="sig-recallable" isExecutable="true">' +
    start() +
    service('work', 'sig-work') +
    `<bpmn:boundaryEvent id="onRecall" attachedToRef="work" cancelActivity="false">${signal('Recall')}</bpmn:boundaryEvent>` +
    service('note', 'sig-note') +
    end() +
    end('e2') +
    flow('f1', 'start', 'work') +
    flow('f2', 'work', 'end') +
    flow('b1', 'onRecall', 'note') +
    flow('b2', 'note', 'e2') +
    '</bpmn:process>',
);

/** Started by the signal `shop open`. */
const started = definitions(signals + eventStartedTask('sig-started', 'ss', signal('Open'), 'serve', 'sig-serve'));

/** start → a signal end event throwing `go`, with its variables. */
const thrower = definitions(
  signals +
    '<bpmn:process id="sig-thrower" isExecutable="true">' +
    start() +
    `<bpmn:endEvent id="end">${signal('Go')}</bpmn:endEvent>` +
    flow('f1', 'start', 'end') +
    '</bpmn:process>',
);

const broadcast = (body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  api.call('POST', '/api/v1/signals', {
    apiKey: options.key ?? apiKey,
    json: body,
    ...(options.idempotencyKey === undefined ? {} : { headers: { 'Idempotency-Key': options.idempotencyKey } }),
  });

async function waitingAt(key: string, elementId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    if (res.json.activeElements?.some((e: { elementId: string }) => e.elementId === elementId)) return;
    if (Date.now() > deadline) throw new Error(`instance ${key} not waiting at ${elementId}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waiting instances of sig-waiter on at least two partitions. */
async function waitersOnSeveralPartitions(variables: Record<string, unknown> = {}): Promise<string[]> {
  const keys: string[] = [];
  while (keys.length < 8 || new Set(keys.map((k) => partitionOfKey(k))).size < 2) keys.push(await startInstance(api, apiKey, 'sig-waiter', variables));
  for (const key of keys) await waitingAt(key, 'waitGo');
  return keys;
}

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey, account } = await api.newAccount());
  await mustDeploy(api, apiKey, waiter);
  await mustDeploy(api, apiKey, recallable);
  await mustDeploy(api, apiKey, started);
  await mustDeploy(api, apiKey, thrower);
}, 60_000);
afterAll(() => api?.close());

describe('POST /api/v1/signals (extension)', () => {
  it('reaches the waiting signal catch events on every partition, with its variables', async () => {
    const keys = await waitersOnSeveralPartitions();
    const res = await broadcast({ name: 'go', variables: { level: 2 } });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ signalKey: expect.stringMatching(/^\d+$/), startedInstances: 0 });
    for (const key of keys) expect((await instanceInState(api, apiKey, key, 'COMPLETED')).variables).toEqual({ level: 2 });
  });

  it('a non-interrupting signal boundary starts its path beside the host on each broadcast', async () => {
    const key = await startInstance(api, apiKey, 'sig-recallable');
    const work = await activateOne(api, apiKey, 'sig-work');
    expect((await broadcast({ name: 'recall', variables: { why: 'audit' } })).status).toBe(201);
    const note = await activateOne(api, apiKey, 'sig-note');
    expect(note).toMatchObject({ processInstanceKey: key, variables: { why: 'audit' } });
    // The host goes on: its job can still be completed.
    expect((await api.call('POST', `/api/v1/jobs/${work.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    expect((await api.call('POST', `/api/v1/jobs/${note.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('a signal start event starts an instance of the latest version for 1 credit; a signal nothing starts costs nothing', async () => {
    const before = await balanceOf(api, account);
    const res = await broadcast({ name: 'shop open', variables: { shop: 'north' } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.startedInstances).toBe(1);
    const job = await activateOne(api, apiKey, 'sig-serve');
    expect(job).toMatchObject({ bpmnProcessId: 'sig-started', variables: { shop: 'north' } });
    expect(await balanceOf(api, account)).toBe(before - 1);
    expect((await broadcast({ name: 'nothing starts on this' })).status).toBe(201);
    expect(await balanceOf(api, account)).toBe(before - 1);
  });

  it('a retry under the same Idempotency-Key answers the first result, starts nothing more and is charged once', async () => {
    const before = await balanceOf(api, account);
    const first = await broadcast({ name: 'shop open' }, { idempotencyKey: 'open-1' });
    expect(first.status, first.text).toBe(201);
    const again = await broadcast({ name: 'shop open' }, { idempotencyKey: 'open-1' });
    expect(again.status, again.text).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(await balanceOf(api, account)).toBe(before - 1);
    await activateOne(api, apiKey, 'sig-serve');
    const none = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'sig-serve', maxJobsToActivate: 5, worker: 'w' } });
    expect(none.json.jobs).toHaveLength(0);
    // The same key with another body is another request: a 409, nothing broadcast.
    expectProblem(await broadcast({ name: 'shop open', variables: { other: true } }, { idempotencyKey: 'open-1' }), 409);
    expect(await balanceOf(api, account)).toBe(before - 1);
  });

  it('a signal end event of an instance reaches the waiting instances of every partition, with its variables', async () => {
    const keys = await waitersOnSeveralPartitions();
    const throwing = await startInstance(api, apiKey, 'sig-thrower', { from: 'thrower' });
    await instanceInState(api, apiKey, throwing, 'COMPLETED');
    for (const key of keys) expect((await instanceInState(api, apiKey, key, 'COMPLETED')).variables).toEqual({ from: 'thrower' });
  });

  it('refuses bad input with a 400 naming the field, and broadcasts nothing', async () => {
    const key = await startInstance(api, apiKey, 'sig-waiter');
    await waitingAt(key, 'waitGo');
    expectProblem(await broadcast({}), 400, 'body.name');
    expectProblem(await broadcast({ name: '' }), 400, 'body.name');
    expectProblem(await broadcast({ name: 7 }), 400, 'body.name');
    expectProblem(await broadcast({ name: 'go', variables: [1] }), 400, 'body.variables');
    expectProblem(await broadcast({ name: 'go', variables: 'x' }), 400, 'body.variables');
    expectProblem(await broadcast({ name: 'go', variables: { bad: 'a\u0000b' } }), 400, /^body\.variables/);
    expectProblem(await broadcast({ name: 'x'.repeat(1_001) }), 400, 'body.name');
    expectProblem(await broadcast({ name: 'go' }, { idempotencyKey: '' }), 400);
    // Another account's signal never reaches this account's instances.
    const other = await api.newAccount();
    expect((await broadcast({ name: 'go' }, { key: other.apiKey })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 200));
    await waitingAt(key, 'waitGo');
    expect((await broadcast({ name: 'go' })).status).toBe(201);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('a flood of broadcasts from one account is a 429 with Retry-After, and the refused ones broadcast nothing', async () => {
    const flood = await api.newAccount();
    // Each broadcast that goes through starts one instance of this, for a credit: what the refused ones did not do is countable.
    await mustDeploy(
      api,
      flood.apiKey,
      definitions('<bpmn:signal id="Flood" name="flood"/>' + eventStartedTask('flood-started', 'fs', signal('Flood'), 'f', 'flood-work')),
    );
    const balance = await balanceOf(api, flood.account);
    const answers = await Promise.all(Array.from({ length: 160 }, () => broadcast({ name: 'flood' }, { key: flood.apiKey })));
    const refused = answers.filter((r) => r.status === 429);
    const through = answers.filter((r) => r.status === 201);
    expect(refused.length).toBeGreaterThan(0);
    expect(through.length + refused.length).toBe(answers.length);
    expectProblem(refused[0], 429);
    expect(refused[0].headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused[0].json.detail).toContain('signal broadcasts');
    const listed = await api.call('GET', '/api/v1/process-instances', {
      apiKey: flood.apiKey,
      query: { 'filter.bpmnProcessId': 'flood-started', limit: 1000 },
    });
    expect(listed.json.items).toHaveLength(through.length);
    expect(await balanceOf(api, flood.account)).toBe(balance - through.length);
  });
});
