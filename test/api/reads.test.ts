// The console's read APIs over real HTTP (issue #17): instance lists with
// every filter and cursor paging newest first, incidents by instance and
// process, per-element statistics of a definition version and of an
// instance, and an instance's element history — after a known workload, on
// real Postgres when DATABASE_URL is set and on PGlite otherwise. Another
// account sees none of it (404 or an empty list), and nonsense in a filter
// is a 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, instanceInState, mustDeploy, serviceProcess, startInstance, type Json } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;
let otherKey: string;
/** The workload's instances of `order` v1, by how each ends up. */
const order = { completed: '', incident: '', terminated: '', active: '' };
let parentKey = '';
let leafKey = '';
let incidentId = '';

/** start → sub (s-start → s-task "inner" → s-end) → call (leaf) → end. */
const PARENT = processXml(
  'parent',
  start() +
    '<bpmn:subProcess id="sub">' +
    start('s-start') +
    service('s-task', 'inner') +
    end('s-end') +
    flow('s-f1', 's-start', 's-task') +
    flow('s-f2', 's-task', 's-end') +
    '</bpmn:subProcess>' +
    '<bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="leaf"/></bpmn:extensionElements></bpmn:callActivity>' +
    end() +
    flow('f1', 'start', 'sub') +
    flow('f2', 'sub', 'call') +
    flow('f3', 'call', 'end'),
);
const LEAF = processXml('leaf', start() + end() + flow('f1', 'start', 'end'));

async function get(path: string, query?: Record<string, string | number>, key = apiKey): Promise<{ status: number; json: Json }> {
  const res = await api.call('GET', path, { apiKey: key, query });
  return { status: res.status, json: res.json };
}

/** Every item of a list, following nextCursor with `limit` per page. */
async function all(path: string, query: Record<string, string | number>, limit: number): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const res = await get(path, { ...query, limit, ...(cursor === undefined ? {} : { cursor }) });
    expect(res.status).toBe(200);
    expect(res.json.items.length).toBeLessThanOrEqual(limit);
    items.push(...res.json.items);
    if (res.json.nextCursor === null) return items;
    cursor = res.json.nextCursor;
  }
  throw new Error('more than 100 pages');
}

const keysOf = (items: Json[]) => items.map((i: Json) => i.processInstanceKey as string).sort();

function expectBadField(res: { status: number; json: Json }, field: string): void {
  expect(res.status).toBe(400);
  expect(res.json.code).toBe('INVALID_INPUT');
  expect(res.json.errors.map((e: { field: string }) => e.field)).toContain(field);
}

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  ({ apiKey: otherKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('order', 'charge', 1));
  await mustDeploy(api, apiKey, LEAF);
  await mustDeploy(api, apiKey, PARENT);

  order.completed = await startInstance(api, apiKey, 'order', { orderId: 'A1' });
  const job = await activateOne(api, apiKey, 'charge');
  expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables: { paid: true } } })).status).toBe(204);
  await instanceInState(api, apiKey, order.completed, 'COMPLETED');

  order.incident = await startInstance(api, apiKey, 'order', { orderId: 'A2' });
  const failing = await activateOne(api, apiKey, 'charge');
  const failed = await api.call('POST', `/api/v1/jobs/${failing.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'card declined' } });
  expect(failed.status).toBe(204);
  await instanceInState(api, apiKey, order.incident, 'INCIDENT');

  order.terminated = await startInstance(api, apiKey, 'order', { orderId: 'A3' });
  expect((await api.call('POST', `/api/v1/process-instances/${order.terminated}/cancel`, { apiKey })).status).toBe(204);
  await instanceInState(api, apiKey, order.terminated, 'TERMINATED');

  order.active = await startInstance(api, apiKey, 'order', { orderId: 'A4' });
  await activateOne(api, apiKey, 'charge');

  parentKey = await startInstance(api, apiKey, 'parent');
  const inner = await activateOne(api, apiKey, 'inner');
  expect((await api.call('POST', `/api/v1/jobs/${inner.key}/complete`, { apiKey, json: {} })).status).toBe(204);
  await instanceInState(api, apiKey, parentKey, 'COMPLETED');
  const children = await get('/api/v1/process-instances', { 'filter.parentProcessInstanceKey': parentKey });
  expect(children.json.items).toHaveLength(1);
  leafKey = children.json.items[0].processInstanceKey;

  const incidents = await get('/api/v1/incidents', { 'filter.processInstanceKey': order.incident });
  incidentId = incidents.json.items[0].id;
}, 120_000);
afterAll(() => api?.close());

describe('GET /api/v1/process-instances', () => {
  it('runs newest first by start, and cursor pages add up to the whole list with no repeats', async () => {
    const first = await get('/api/v1/process-instances');
    const items: Json[] = first.json.items;
    expect(items).toHaveLength(6);
    const order_ = [...items].sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : BigInt(b.processInstanceKey) > BigInt(a.processInstanceKey) ? 1 : -1,
    );
    expect(items.map((i) => i.processInstanceKey)).toEqual(order_.map((i) => i.processInstanceKey));
    expect(items[items.length - 1].processInstanceKey).toBe(order.completed);
    const paged = await all('/api/v1/process-instances', {}, 2);
    expect(paged.map((i) => i.processInstanceKey)).toEqual(items.map((i) => i.processInstanceKey));
  });

  it('filters by state, process and version, parent, and start and end ranges', async () => {
    expect(keysOf((await get('/api/v1/process-instances', { 'filter.state': 'INCIDENT' })).json.items)).toEqual([order.incident]);
    expect(keysOf(await all('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order', 'filter.version': 1 }, 3))).toEqual(Object.values(order).sort());
    expect((await get('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order', 'filter.version': 2 })).json.items).toEqual([]);
    const child = await get('/api/v1/process-instances', { 'filter.parentProcessInstanceKey': parentKey });
    expect(child.json.items).toMatchObject([{ processInstanceKey: leafKey, bpmnProcessId: 'leaf', version: 1, parentProcessInstanceKey: parentKey }]);

    const ended = keysOf(await all('/api/v1/process-instances', { 'filter.endedAfter': '2000-01-01T00:00:00Z' }, 2));
    expect(ended).toEqual([order.completed, order.terminated, parentKey, leafKey].sort());
    expect((await get('/api/v1/process-instances', { 'filter.endedBefore': '2000-01-01T00:00:00+02:00' })).json.items).toEqual([]);

    // A boundary between two starts: the ones at or after it, and the ones before it.
    const byStart = (await get('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order' })).json.items as Json[];
    const boundary = byStart.find((i) => i.processInstanceKey === order.terminated).createdAt as string;
    const after = keysOf((await get('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order', 'filter.startedAfter': boundary })).json.items);
    const before = keysOf((await get('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order', 'filter.startedBefore': boundary })).json.items);
    expect(after).toContain(order.terminated);
    expect(after).toContain(order.active);
    expect(before).toContain(order.completed);
    expect([...after, ...before].sort()).toEqual(Object.values(order).sort());
    expect(
      (await get('/api/v1/process-instances', { 'filter.state': 'ACTIVE', 'filter.variable': 'orderId:A4', 'filter.startedBefore': '2999-01-01T00:00:00Z' }))
        .json.items,
    ).toMatchObject([{ processInstanceKey: order.active }]);
  });

  it('refuses nonsense with a 400 naming the field', async () => {
    expectBadField(await get('/api/v1/process-instances', { 'filter.startedAfter': 'yesterday' }), 'query.filter.startedAfter');
    expectBadField(await get('/api/v1/process-instances', { 'filter.endedBefore': '2026-13-01T00:00:00Z' }), 'query.filter.endedBefore');
    expectBadField(await get('/api/v1/process-instances', { 'filter.state': 'SLEEPING' }), 'query.filter.state');
    expectBadField(await get('/api/v1/process-instances', { cursor: 'not-a-cursor' }), 'query.cursor');
    expectBadField(await get('/api/v1/process-instances', { 'filter.version': 1 }), 'query.filter.version');
    expectBadField(await get('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order', 'filter.version': 'two' }), 'query.filter.version');
    expectBadField(await get('/api/v1/process-instances', { 'filter.parentProcessInstanceKey': '12x' }), 'query.filter.parentProcessInstanceKey');
  });

  it('links a child instance to its parent, with the process and version its diagram needs', async () => {
    const leaf = await get(`/api/v1/process-instances/${leafKey}`);
    expect(leaf.json).toMatchObject({ parentProcessInstanceKey: parentKey, bpmnProcessId: 'leaf', version: 1 });
    const xml = await api.call('GET', '/api/v1/process-definitions/leaf/xml', { apiKey, query: { version: 1 } });
    expect(xml.text).toContain('<bpmn:process id="leaf"');
  });
});

describe('GET /api/v1/incidents', () => {
  it('filters by process, instance and state, and closing the record moves it from OPEN to RESOLVED', async () => {
    const byProcess = await get('/api/v1/incidents', { 'filter.bpmnProcessId': 'order' });
    expect(byProcess.json.items).toMatchObject([
      { id: incidentId, processInstanceKey: order.incident, bpmnProcessId: 'order', elementId: 'task', state: 'OPEN' },
    ]);
    expect((await get('/api/v1/incidents', { 'filter.bpmnProcessId': 'parent' })).json.items).toEqual([]);
    expect((await get('/api/v1/incidents', { 'filter.processInstanceKey': order.active })).json.items).toEqual([]);
    expectBadField(await get('/api/v1/incidents', { 'filter.state': 'CLOSED' }), 'query.filter.state');
    expectBadField(await get('/api/v1/incidents', { cursor: 'x' }), 'query.cursor');
  });
});

describe('statistics', () => {
  it('counts every element of a definition version across its instances', async () => {
    const res = await get('/api/v1/process-definitions/order/statistics');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      bpmnProcessId: 'order',
      version: 1,
      elements: [
        { elementId: 'end', active: 0, incidents: 0, completed: 1, canceled: 0 },
        { elementId: 'start', active: 0, incidents: 0, completed: 4, canceled: 0 },
        { elementId: 'task', active: 1, incidents: 1, completed: 1, canceled: 1 },
      ],
      instances: { active: 1, incidents: 1, completed: 1, canceled: 1 },
    });
    expect((await get('/api/v1/process-definitions/order/statistics', { version: 1 })).json).toEqual(res.json);
    const parent = await get('/api/v1/process-definitions/parent/statistics');
    expect(parent.json.elements.find((e: Json) => e.elementId === 's-task')).toEqual({
      elementId: 's-task',
      active: 0,
      incidents: 0,
      completed: 1,
      canceled: 0,
    });
    expect(parent.json.instances).toEqual({ active: 0, incidents: 0, completed: 1, canceled: 0 });
  });

  it('keeps an element stuck on an incident counted after its record is closed: the instance stays INCIDENT', async () => {
    expect((await api.call('PATCH', `/api/v1/incidents/${incidentId}`, { apiKey })).status).toBe(200);
    expect((await get('/api/v1/incidents', { 'filter.state': 'RESOLVED' })).json.items.map((i: Json) => i.id)).toEqual([incidentId]);
    const stats = await get('/api/v1/process-definitions/order/statistics');
    expect(stats.json.elements.find((e: Json) => e.elementId === 'task')).toMatchObject({ incidents: 1 });
  });

  it("counts one instance's elements and the sequence flows it took", async () => {
    const res = await get(`/api/v1/process-instances/${order.incident}/statistics`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      processInstanceKey: order.incident,
      elements: [
        { elementId: 'start', active: 0, incidents: 0, completed: 1, canceled: 0 },
        { elementId: 'task', active: 0, incidents: 1, completed: 0, canceled: 0 },
      ],
      sequenceFlows: [{ elementId: 'f1', taken: 1 }],
    });
    const done = await get(`/api/v1/process-instances/${parentKey}/statistics`);
    expect(done.json.sequenceFlows).toEqual([
      { elementId: 'f1', taken: 1 },
      { elementId: 'f2', taken: 1 },
      { elementId: 'f3', taken: 1 },
      { elementId: 's-f1', taken: 1 },
      { elementId: 's-f2', taken: 1 },
    ]);
    expect(done.json.elements.every((e: Json) => e.active === 0 && e.completed === 1)).toBe(true);
  });

  it('answers 404 for a process or version that is not deployed, and 400 for a bad version', async () => {
    expect((await get('/api/v1/process-definitions/nothing/statistics')).status).toBe(404);
    expect((await get('/api/v1/process-definitions/order/statistics', { version: 9 })).status).toBe(404);
    expectBadField(await get('/api/v1/process-definitions/order/statistics', { version: 'latest' }), 'query.version');
  });
});

describe('GET /api/v1/process-instances/{key}/history', () => {
  it('lists element instances in the order they started, with their scope and called instance', async () => {
    const items = await all(`/api/v1/process-instances/${parentKey}/history`, {}, 2);
    expect(items.map((i) => i.elementId)).toEqual(['start', 'sub', 's-start', 's-task', 's-end', 'call', 'end']);
    expect(items.every((i) => i.state === 'COMPLETED' && typeof i.endedAt === 'string' && i.endedAt >= i.startedAt)).toBe(true);
    const sub = items.find((i) => i.elementId === 'sub');
    expect(sub).toMatchObject({ elementType: 'subProcess', flowScopeKey: parentKey });
    expect(items.filter((i) => i.elementId.startsWith('s-')).every((i) => i.flowScopeKey === sub.elementInstanceKey)).toBe(true);
    expect(items.find((i) => i.elementId === 'call')).toMatchObject({ elementType: 'callActivity', calledProcessInstanceKey: leafKey });
    expect(items.find((i) => i.elementId === 'end')).not.toHaveProperty('calledProcessInstanceKey');
  });

  it('says ACTIVE, INCIDENT and TERMINATED in the engine’s words', async () => {
    const state = async (key: string) => (await get(`/api/v1/process-instances/${key}/history`)).json.items.map((i: Json) => `${i.elementId}:${i.state}`);
    expect(await state(order.active)).toEqual(['start:COMPLETED', 'task:ACTIVE']);
    expect(await state(order.incident)).toEqual(['start:COMPLETED', 'task:INCIDENT']);
    expect(await state(order.terminated)).toEqual(['start:COMPLETED', 'task:TERMINATED']);
    expectBadField(await get(`/api/v1/process-instances/${order.active}/history`, { cursor: 'nope' }), 'query.cursor');
  });
});

describe('tenancy', () => {
  it('shows another account none of it: 404 for its keys and processes, empty lists for its filters', async () => {
    for (const path of [
      `/api/v1/process-instances/${order.active}/statistics`,
      `/api/v1/process-instances/${order.active}/history`,
      `/api/v1/process-instances/${leafKey}`,
      '/api/v1/process-definitions/order/statistics',
    ]) {
      const res = await get(path, undefined, otherKey);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.json)).not.toContain('"elements"');
    }
    expect((await get('/api/v1/process-instances', { 'filter.parentProcessInstanceKey': parentKey }, otherKey)).json.items).toEqual([]);
    expect((await get('/api/v1/process-instances', { 'filter.bpmnProcessId': 'order' }, otherKey)).json.items).toEqual([]);
    expect((await get('/api/v1/incidents', { 'filter.bpmnProcessId': 'order' }, otherKey)).json.items).toEqual([]);
  });
});
