// Tenancy over real HTTP (DESIGN §5): a key of account B can neither see nor
// change anything of account A — definitions, instances, jobs, incidents,
// tasks, decisions — and A's data is exactly as it was afterwards. B gets
// 404 or an empty list, never 403, so B cannot even learn that a key exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import {
  activateOne,
  approvalDmn,
  balanceOf,
  deployXml,
  instanceInState,
  mustDeploy,
  serviceProcess,
  startInstance,
  userTaskProcess,
  type Json,
} from './workflow-support.ts';

let api: ApiFixture;
let a: { account: string; apiKey: string };
let b: { account: string; apiKey: string };
/** A's resources, made once. */
const mine = { activeKey: '', jobKey: '', incidentKey: '', incidentId: '', taskId: '', taskInstanceKey: '' };
/** A's view of its data before B tries anything. */
let snapshot: Record<string, Json>;

async function snapshotOf(apiKey: string): Promise<Record<string, Json>> {
  const get = async (path: string, query?: Record<string, string>) => (await api.call('GET', path, { apiKey, query })).json;
  return {
    definitions: await get('/api/v1/process-definitions'),
    secret: await get('/api/v1/process-definitions/secret'),
    secretXml: (await api.call('GET', '/api/v1/process-definitions/secret/xml', { apiKey })).text,
    instances: await get('/api/v1/process-instances'),
    active: await get(`/api/v1/process-instances/${mine.activeKey}`),
    incidentInstance: await get(`/api/v1/process-instances/${mine.incidentKey}`),
    incidents: await get('/api/v1/incidents'),
    incident: await get(`/api/v1/incidents/${mine.incidentId}`),
    tasks: await get('/api/v1/tasks'),
    task: await get(`/api/v1/tasks/${mine.taskId}`),
    decisions: await get('/api/v1/decisions'),
  };
}

beforeAll(async () => {
  api = await apiFixture();
  a = await api.newAccount();
  b = await api.newAccount();
  await mustDeploy(api, a.apiKey, serviceProcess('secret', 'secret-work', 1));
  await mustDeploy(api, a.apiKey, userTaskProcess('human'));
  await mustDeploy(api, a.apiKey, approvalDmn('approval'), '/api/v1/models');

  mine.incidentKey = await startInstance(api, a.apiKey, 'secret', { orderId: 'A-incident' });
  const doomed = await activateOne(api, a.apiKey, 'secret-work');
  await api.call('POST', `/api/v1/jobs/${doomed.key}/fail`, { apiKey: a.apiKey, json: { retries: 0, errorMessage: 'nope' } });
  await instanceInState(api, a.apiKey, mine.incidentKey, 'INCIDENT');
  mine.incidentId = (await api.call('GET', '/api/v1/incidents', { apiKey: a.apiKey })).json.items[0].id;

  // An activatable job B must not be able to take: started after the failed one was taken.
  mine.activeKey = await startInstance(api, a.apiKey, 'secret', { orderId: 'A-secret' });
  mine.taskInstanceKey = await startInstance(api, a.apiKey, 'human', { orderId: 'A-task' });
  mine.taskId = (await api.call('GET', '/api/v1/tasks', { apiKey: a.apiKey })).json.items[0].id;
  const active = await api.call('GET', `/api/v1/process-instances/${mine.activeKey}`, { apiKey: a.apiKey });
  mine.jobKey = active.json.jobs[0].key;
  snapshot = await snapshotOf(a.apiKey);
}, 60_000);
afterAll(() => api?.close());

function expectNotFound(res: { status: number; json: Json }): void {
  expect(res.status).toBe(404);
  expect(res.json.code).toBe('NOT_FOUND');
}

describe("a second account cannot see or change the first's", () => {
  it('process definitions: empty list, 404 on read and XML; deploying the same id makes B its own', async () => {
    expect((await api.call('GET', '/api/v1/process-definitions', { apiKey: b.apiKey })).json).toEqual({ items: [], nextCursor: null });
    expectNotFound(await api.call('GET', '/api/v1/process-definitions/secret', { apiKey: b.apiKey }));
    expectNotFound(await api.call('GET', '/api/v1/process-definitions/secret/xml', { apiKey: b.apiKey }));
    const own = await deployXml(api, b.apiKey, serviceProcess('secret', 'b-work'), 'b.bpmn');
    expect(own.json.deployments[0]).toMatchObject({ bpmnProcessId: 'secret', version: 1, isNew: true });
  });

  it("process instances: empty list, no match on A's variables, 404 on read and cancel", async () => {
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey: b.apiKey })).json.items).toEqual([]);
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey: b.apiKey, query: { 'filter.variable': 'orderId:A-secret' } })).json.items).toEqual([]);
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey: b.apiKey, query: { 'filter.state': 'INCIDENT' } })).json.items).toEqual([]);
    expectNotFound(await api.call('GET', `/api/v1/process-instances/${mine.activeKey}`, { apiKey: b.apiKey }));
    expectNotFound(await api.call('POST', `/api/v1/process-instances/${mine.activeKey}/cancel`, { apiKey: b.apiKey }));
  });

  it("starting A's process is 404 for B (A's 'human' is not B's) and costs B nothing", async () => {
    const before = await balanceOf(api, b.account);
    expectNotFound(await api.call('POST', '/api/v1/process-instances', { apiKey: b.apiKey, json: { bpmnProcessId: 'human' } }));
    expect(await balanceOf(api, b.account)).toBe(before);
  });

  it("jobs: B activates none of A's, and completing or failing A's job is 404", async () => {
    const res = await api.call('POST', '/api/v1/jobs/activate', { apiKey: b.apiKey, json: { type: 'secret-work', maxJobsToActivate: 100 } });
    expect(res.json.jobs).toEqual([]);
    expect((await api.call('POST', '/api/v1/jobs/activate', { apiKey: b.apiKey, json: { type: 'userTask', maxJobsToActivate: 100 } })).json.jobs).toEqual([]);
    expectNotFound(await api.call('POST', `/api/v1/jobs/${mine.jobKey}/complete`, { apiKey: b.apiKey, json: { variables: { hacked: true } } }));
    expectNotFound(await api.call('POST', `/api/v1/jobs/${mine.jobKey}/fail`, { apiKey: b.apiKey, json: { retries: 0 } }));
    expectNotFound(await api.call('POST', `/api/v1/jobs/${mine.taskId}/complete`, { apiKey: b.apiKey, json: {} }));
  });

  it('incidents: empty list, 404 on read and PATCH', async () => {
    expect((await api.call('GET', '/api/v1/incidents', { apiKey: b.apiKey })).json.items).toEqual([]);
    expect((await api.call('GET', '/api/v1/incidents', { apiKey: b.apiKey, query: { 'filter.processInstanceKey': mine.incidentKey } })).json.items).toEqual([]);
    expectNotFound(await api.call('GET', `/api/v1/incidents/${mine.incidentId}`, { apiKey: b.apiKey }));
    expectNotFound(await api.call('PATCH', `/api/v1/incidents/${mine.incidentId}`, { apiKey: b.apiKey }));
  });

  it('tasks: empty list, 404 on read, claim, assign and complete (at no cost to B)', async () => {
    expect((await api.call('GET', '/api/v1/tasks', { apiKey: b.apiKey })).json.items).toEqual([]);
    expect((await api.call('GET', '/api/v1/tasks', { apiKey: b.apiKey, query: { 'filter.processInstanceKey': mine.taskInstanceKey } })).json.items).toEqual([]);
    expectNotFound(await api.call('GET', `/api/v1/tasks/${mine.taskId}`, { apiKey: b.apiKey }));
    expectNotFound(await api.call('POST', `/api/v1/tasks/${mine.taskId}/claim`, { apiKey: b.apiKey, json: { assignee: 'mallory' } }));
    expectNotFound(await api.call('POST', `/api/v1/tasks/${mine.taskId}/assign`, { apiKey: b.apiKey, json: { assignee: 'mallory' } }));
    const before = await balanceOf(api, b.account);
    expectNotFound(await api.call('POST', `/api/v1/tasks/${mine.taskId}/complete`, { apiKey: b.apiKey, json: { variables: { hacked: true } } }));
    expect(await balanceOf(api, b.account)).toBe(before);
  });

  it('decisions: empty list, 404 on read and evaluate', async () => {
    expect((await api.call('GET', '/api/v1/decisions', { apiKey: b.apiKey })).json.items).toEqual([]);
    expectNotFound(await api.call('GET', '/api/v1/decisions/approval', { apiKey: b.apiKey }));
    expectNotFound(await api.call('POST', '/api/v1/decisions/approval/evaluate', { apiKey: b.apiKey, json: { variables: { amount: 1 } } }));
  });

  it("leaves A's data exactly as it was, and A can still use all of it", async () => {
    expect(await snapshotOf(a.apiKey)).toEqual(snapshot);
    expect(snapshot.incident.state).toBe('OPEN');
    expect(snapshot.task.assignee).toBeNull();
    const job = await activateOne(api, a.apiKey, 'secret-work');
    expect(job.key).toBe(mine.jobKey);
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey: a.apiKey, json: {} })).status).toBe(204);
    expect((await instanceInState(api, a.apiKey, mine.activeKey, 'COMPLETED')).variables).toEqual({ orderId: 'A-secret' });
    const evaluated = await api.call('POST', '/api/v1/decisions/approval/evaluate', { apiKey: a.apiKey, json: { variables: { amount: 1 } } });
    expect(evaluated.json.result).toBe('auto');
  });
});
