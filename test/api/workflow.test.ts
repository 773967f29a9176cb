// The workflow REST API over real HTTP (SPEC.md Endpoints, States and
// transitions, Job behaviour, Errors): deploying, starting, listing, jobs,
// incidents and decisions, as a client written against SPEC.md sees them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import {
  activateOne,
  approvalDmn,
  balanceOf,
  deployMultipart,
  deployXml,
  instanceInState,
  mustDeploy,
  serviceProcess,
  startInstance,
  twoProcesses,
} from './workflow-support.ts';

let api: ApiFixture;
let account: string;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ account, apiKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

function expectProblem(res: { status: number; headers: Headers; json: { status?: number; code?: string } }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ status, code });
}

describe('process definitions', () => {
  it('deploys a multipart file part `file` for free, and the same XML again keeps its version', async () => {
    const before = await balanceOf(api, account);
    const xml = serviceProcess('order', 'charge-card');
    const first = await deployMultipart(api, apiKey, xml, 'order.bpmn');
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ id: 'order', deployments: [{ bpmnProcessId: 'order', version: 1, resourceName: 'order.bpmn', isNew: true }] });
    const again = await deployMultipart(api, apiKey, xml, 'order.bpmn');
    expect(again.json.deployments[0]).toMatchObject({ version: 1, isNew: false });
    expect(await balanceOf(api, account)).toBe(before);
  });

  it('deploys raw XML with ?resourceName=, a changed model getting the next version', async () => {
    const res = await deployXml(api, apiKey, serviceProcess('order', 'charge-card-v2'), 'order-v2.bpmn');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: 'order', deployments: [{ bpmnProcessId: 'order', version: 2, resourceName: 'order-v2.bpmn', isNew: true }] });
  });

  it('deploys every process of a file, answering the first one as `id`', async () => {
    const res = await deployXml(api, apiKey, twoProcesses('alpha', 'beta'), 'pair.bpmn');
    expect(res.status).toBe(200);
    expect(res.json.id).toBe('alpha');
    expect(res.json.deployments.map((d: { bpmnProcessId: string }) => d.bpmnProcessId)).toEqual(['alpha', 'beta']);
  });

  it('refuses an invalid model with the compiler problems (elementId, message)', async () => {
    const broken = serviceProcess('broken', 'x').replace('targetRef="end"', 'targetRef="nowhere"');
    const res = await deployXml(api, apiKey, broken, 'broken.bpmn');
    expectProblem(res, 400, 'INVALID_INPUT');
    expect(res.json.problems.length).toBeGreaterThan(0);
    for (const p of res.json.problems) {
      expect(p).toHaveProperty('elementId');
      expect(typeof p.message).toBe('string');
    }
    expect(res.json.errors[0].field).toBe('body');
    expect((await api.call('GET', '/api/v1/process-definitions/broken', { apiKey })).status).toBe(404);
  });

  it('lists definitions, reads one with its versions and its XML', async () => {
    const list = await api.call('GET', '/api/v1/process-definitions', { apiKey });
    expect(list.status).toBe(200);
    expect(list.json.items.map((d: { bpmnProcessId: string }) => d.bpmnProcessId)).toEqual(['alpha', 'beta', 'order']);
    expect(list.json.items[2]).toMatchObject({ latestVersion: 2, version: 2, resourceName: 'order-v2.bpmn' });

    const paged = await api.call('GET', '/api/v1/process-definitions', { apiKey, query: { limit: 2 } });
    expect(paged.json.items).toHaveLength(2);
    const rest = await api.call('GET', '/api/v1/process-definitions', { apiKey, query: { limit: 2, cursor: paged.json.nextCursor } });
    expect(rest.json).toMatchObject({ items: [{ bpmnProcessId: 'order' }], nextCursor: null });

    const one = await api.call('GET', '/api/v1/process-definitions/order', { apiKey });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: 'order', bpmnProcessId: 'order', latestVersion: 2 });
    expect(one.json.deployments.map((d: { version: number }) => d.version)).toEqual([1, 2]);

    const xml = await api.call('GET', '/api/v1/process-definitions/order/xml', { apiKey });
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(xml.text).toContain('charge-card-v2');
    const v1 = await api.call('GET', '/api/v1/process-definitions/order/xml', { apiKey, query: { version: 1 } });
    expect(v1.text).toContain('"charge-card"');
    expectProblem(await api.call('GET', '/api/v1/process-definitions/order/xml', { apiKey, query: { version: 9 } }), 404, 'NOT_FOUND');
    expectProblem(await api.call('GET', '/api/v1/process-definitions/nope', { apiKey }), 404, 'NOT_FOUND');
  });
});

describe('process instances and jobs', () => {
  beforeAll(async () => {
    await mustDeploy(api, apiKey, serviceProcess('pay', 'pay-work', 3));
    await mustDeploy(api, apiKey, serviceProcess('ship', 'ship-work', 1));
  });

  it('starts an instance for 1 credit: 201 with processInstanceKey', async () => {
    const before = await balanceOf(api, account);
    const res = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'pay', variables: { orderId: 'A-1', amount: 42 } } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ bpmnProcessId: 'pay', version: 1, state: 'ACTIVE' });
    expect(res.json.processInstanceKey).toMatch(/^[0-9]+$/);
    expect(await balanceOf(api, account)).toBe(before - 1);

    const detail = await api.call('GET', `/api/v1/process-instances/${res.json.processInstanceKey}`, { apiKey });
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({
      processInstanceKey: res.json.processInstanceKey,
      state: 'ACTIVE',
      variables: { orderId: 'A-1', amount: 42 },
      incidents: [],
    });
    expect(detail.json.activeElements).toEqual([expect.objectContaining({ elementId: 'task' })]);
  });

  it('starting an unknown process is a 404 that costs nothing; no variables is an empty object', async () => {
    const before = await balanceOf(api, account);
    expectProblem(await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'ghost' } }), 404, 'NOT_FOUND');
    expect(await balanceOf(api, account)).toBe(before);
    const res = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'ship' } });
    expect(res.status).toBe(201);
  });

  it('charges nothing and starts nothing without credits (402)', async () => {
    const poor = await api.newAccount();
    await mustDeploy(api, poor.apiKey, serviceProcess('pay', 'pay-work'));
    await api.service.credits.charge(poor.account, await balanceOf(api, poor.account), 'test: drain');
    expectProblem(await api.call('POST', '/api/v1/process-instances', { apiKey: poor.apiKey, json: { bpmnProcessId: 'pay' } }), 402, 'OUT_OF_CREDITS');
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey: poor.apiKey })).json.items).toEqual([]);
  });

  it('lists instances by filter.variable, filter.state and filter.bpmnProcessId, paged by cursor', async () => {
    const k1 = await startInstance(api, apiKey, 'pay', { orderId: 'find-me', n: 7 });
    const k2 = await startInstance(api, apiKey, 'pay', { orderId: 'other' });
    const byVariable = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': 'orderId:find-me' } });
    expect(byVariable.status).toBe(200);
    expect(byVariable.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey)).toEqual([k1]);
    expect(byVariable.json.items[0]).toMatchObject({ bpmnProcessId: 'pay', state: 'ACTIVE', variables: { orderId: 'find-me', n: 7 } });
    const byNumber = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': 'n:7' } });
    expect(byNumber.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey)).toEqual([k1]);

    const byProcess = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.bpmnProcessId': 'pay', 'filter.state': 'ACTIVE' } });
    const keys = byProcess.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey);
    expect(keys).toEqual(expect.arrayContaining([k1, k2]));
    expect(byProcess.json.items.every((i: { bpmnProcessId: string; state: string }) => i.bpmnProcessId === 'pay' && i.state === 'ACTIVE')).toBe(true);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.bpmnProcessId': 'pay', limit: 1, cursor } });
      expect(page.json.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey));
      cursor = page.json.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(keys);
    expect(
      (await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.state': 'INCIDENT', 'filter.bpmnProcessId': 'pay' } })).json.items,
    ).toEqual([]);
  });

  it('activates jobs at once ([] when none), completes one (204), and a gone job is 404', async () => {
    const empty = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'nobody-does-this', maxJobsToActivate: 5 } });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ jobs: [] });

    await mustDeploy(api, apiKey, serviceProcess('solo', 'solo-work'));
    const key = await startInstance(api, apiKey, 'solo', { orderId: 'S-1' });
    const job = await activateOne(api, apiKey, 'solo-work');
    expect(job).toMatchObject({
      type: 'solo-work',
      retries: 3,
      processInstanceKey: key,
      bpmnProcessId: 'solo',
      elementId: 'task',
      customHeaders: {},
      variables: { orderId: 'S-1' },
    });
    expect(job.key).toMatch(/^[0-9]+$/);

    const done = await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables: { paid: true } } });
    expect(done.status).toBe(204);
    expect(done.text).toBe('');
    const finished = await instanceInState(api, apiKey, key, 'COMPLETED');
    expect(finished.variables).toEqual({ orderId: 'S-1', paid: true });
    expectProblem(await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} }), 404, 'NOT_FOUND');
    expectProblem(await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 1 } }), 404, 'NOT_FOUND');
  });

  it('completes a job with no body at all', async () => {
    await mustDeploy(api, apiKey, serviceProcess('bare', 'bare-work'));
    const key = await startInstance(api, apiKey, 'bare');
    const job = await activateOne(api, apiKey, 'bare-work');
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('an activated job stays with its worker: it is not offered again', async () => {
    await mustDeploy(api, apiKey, serviceProcess('held', 'held-work'));
    await startInstance(api, apiKey, 'held');
    const job = await activateOne(api, apiKey, 'held-work');
    const again = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'held-work', maxJobsToActivate: 10 } });
    expect(again.json.jobs).toEqual([]);
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
  });

  it('a job failed with retries left is offered again at once; with 0 the instance goes to INCIDENT', async () => {
    await mustDeploy(api, apiKey, serviceProcess('flaky', 'flaky-work', 3));
    const key = await startInstance(api, apiKey, 'flaky', { attempt: 1 });
    const job = await activateOne(api, apiKey, 'flaky-work');
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 2, errorMessage: 'try later' } })).status).toBe(204);
    const retried = await activateOne(api, apiKey, 'flaky-work');
    expect(retried).toMatchObject({ key: job.key, retries: 2 });

    expect((await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'card declined' } })).status).toBe(204);
    const stuck = await instanceInState(api, apiKey, key, 'INCIDENT');
    expect(stuck.incidents).toEqual([expect.objectContaining({ state: 'OPEN', elementId: 'task', jobKey: job.key, type: 'JOB_NO_RETRIES' })]);
    const listed = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.state': 'INCIDENT' } });
    expect(listed.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey)).toContain(key);
    // The failed job is not offered again.
    expect((await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'flaky-work', maxJobsToActivate: 5 } })).json.jobs).toEqual([]);
  });

  it('incidents: listed, read, and PATCH closes the record only — the instance stays INCIDENT', async () => {
    await mustDeploy(api, apiKey, serviceProcess('doomed', 'doomed-work', 1));
    const key = await startInstance(api, apiKey, 'doomed');
    const job = await activateOne(api, apiKey, 'doomed-work');
    await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'boom' } });
    await instanceInState(api, apiKey, key, 'INCIDENT');

    const list = await api.call('GET', '/api/v1/incidents', { apiKey, query: { 'filter.processInstanceKey': key } });
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(1);
    const incident = list.json.items[0];
    expect(incident).toMatchObject({ processInstanceKey: key, state: 'OPEN', message: expect.stringContaining('boom'), jobKey: job.key, resolvedAt: null });

    const one = await api.call('GET', `/api/v1/incidents/${incident.id}`, { apiKey });
    expect(one.json).toEqual(incident);
    const open = await api.call('GET', '/api/v1/incidents', { apiKey, query: { 'filter.state': 'OPEN' } });
    expect(open.json.items.map((i: { id: string }) => i.id)).toContain(incident.id);

    const patched = await api.call('PATCH', `/api/v1/incidents/${incident.id}`, { apiKey });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: incident.id, state: 'RESOLVED' });
    expect(patched.json.resolvedAt).not.toBeNull();
    const again = await api.call('PATCH', `/api/v1/incidents/${incident.id}`, { apiKey, json: {} });
    expect(again.json).toEqual(patched.json);

    const instance = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    expect(instance.json.state).toBe('INCIDENT');
    expect(instance.json.incidents[0].state).toBe('RESOLVED');
    const resolved = await api.call('GET', '/api/v1/incidents', { apiKey, query: { 'filter.state': 'RESOLVED' } });
    expect(resolved.json.items.map((i: { id: string }) => i.id)).toContain(incident.id);
    // Still stuck: nothing over REST resumes it, and its job is not offered.
    expect((await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'doomed-work', maxJobsToActivate: 5 } })).json.jobs).toEqual([]);
    expectProblem(await api.call('POST', `/api/v1/process-instances/${key}/cancel`, { apiKey }), 409, 'CONFLICT');
    expect((await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey })).json.state).toBe('INCIDENT');
  });

  it('cancel (extension): an ACTIVE instance is TERMINATED and its job withdrawn; again is 409', async () => {
    await mustDeploy(api, apiKey, serviceProcess('cancelme', 'cancel-work'));
    const key = await startInstance(api, apiKey, 'cancelme');
    const res = await api.call('POST', `/api/v1/process-instances/${key}/cancel`, { apiKey });
    expect(res.status).toBe(204);
    await instanceInState(api, apiKey, key, 'TERMINATED');
    expect((await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'cancel-work', maxJobsToActivate: 5 } })).json.jobs).toEqual([]);
    expectProblem(await api.call('POST', `/api/v1/process-instances/${key}/cancel`, { apiKey }), 409, 'CONFLICT');
    expectProblem(await api.call('POST', '/api/v1/process-instances/123456789/cancel', { apiKey }), 404, 'NOT_FOUND');
  });

  it('long polling (extension): requestTimeout waits for a job that arrives meanwhile', async () => {
    await mustDeploy(api, apiKey, serviceProcess('late', 'late-work'));
    const waiting = api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'late-work', maxJobsToActivate: 1, requestTimeout: 20_000 } });
    const key = await startInstance(api, apiKey, 'late');
    const res = await waiting;
    expect(res.status).toBe(200);
    // Bounded either way: the job arrives during the wait, or was already queued when activate ran.
    const job = res.json.jobs[0] ?? (await activateOne(api, apiKey, 'late-work'));
    expect(job.processInstanceKey).toBe(key);
  });
});

describe('decisions', () => {
  it('deploys a DMN model (multipart or raw) and evaluates its decision', async () => {
    const deployed = await deployMultipart(api, apiKey, approvalDmn(), 'approval.dmn', '/api/v1/models');
    expect(deployed.status).toBe(200);
    expect(deployed.json).toEqual({ decisions: [{ decisionId: 'approval', version: 1, isNew: true, resourceName: 'approval.dmn' }] });
    const raw = await deployXml(api, apiKey, approvalDmn(), 'approval.dmn', '/api/v1/models');
    expect(raw.json.decisions[0]).toMatchObject({ version: 1, isNew: false });

    const res = await api.call('POST', '/api/v1/decisions/approval/evaluate', { apiKey, json: { variables: { amount: 250 } } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ decisionId: 'approval', version: 1, result: 'manual' });
    expect(res.json.evaluated).toEqual([{ decisionId: 'approval', result: 'manual', matchedRules: ['r2'] }]);

    const list = await api.call('GET', '/api/v1/decisions', { apiKey });
    expect(list.json.items).toEqual([expect.objectContaining({ decisionId: 'approval', latestVersion: 1, decisionName: 'Approval' })]);
    expect((await api.call('GET', '/api/v1/decisions/approval', { apiKey })).json).toMatchObject({ decisionId: 'approval', version: 1 });
  });

  it("an unknown decision is 404; a failing evaluation is 400 with the decision's reason", async () => {
    expectProblem(await api.call('POST', '/api/v1/decisions/ghost/evaluate', { apiKey, json: { variables: {} } }), 404, 'NOT_FOUND');
    expectProblem(await api.call('GET', '/api/v1/decisions/ghost', { apiKey }), 404, 'NOT_FOUND');
    const failing = await api.call('POST', '/api/v1/decisions/approval/evaluate', { apiKey, json: { variables: { amount: 5000 } } });
    expectProblem(failing, 400, 'INVALID_INPUT');
    expect(failing.json.detail).toMatch(/approval/);
    expect(failing.json.errors[0].field).toBe('body.variables');
  });

  it('refuses an invalid DMN model with its problems', async () => {
    const res = await deployXml(api, apiKey, approvalDmn().replace('hitPolicy="UNIQUE"', 'hitPolicy="SOMETIMES"'), 'bad.dmn', '/api/v1/models');
    expectProblem(res, 400, 'INVALID_INPUT');
    expect(res.json.problems.length).toBeGreaterThan(0);
  });
});
