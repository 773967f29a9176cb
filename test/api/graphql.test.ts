// GraphQL over real HTTP (POST /api/v1/graphql): the queries read the same
// tasks, instances and incidents as REST; completeTask is free (the balance
// from GET /api/v1/account does not move, while REST completion costs 1) and
// otherwise behaves like REST completion; failures are GraphQL errors with
// extensions.code; and another account's data never appears.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../engine/engine-fixture.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const definitions = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://example.com">
${body}
</bpmn:definitions>`;

const APPROVAL = definitions(`
  <bpmn:process id="gql-approval" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="approve" name="Approve"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="approve"/>
    <bpmn:sequenceFlow id="f2" sourceRef="approve" targetRef="e"/>
  </bpmn:process>`);

const FRAGILE = definitions(`
  <bpmn:process id="gql-fragile" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:serviceTask id="call">
      <bpmn:extensionElements><zeebe:taskDefinition type="gql-fragile-call" retries="1"/></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="e"/>
  </bpmn:process>`);

interface Tenant {
  account: string;
  apiKey: string;
  approvalKey: string;
  taskId: string;
  fragileKey: string;
  incidentId: string;
}

let api: ApiFixture;
let a: Tenant;
let b: Tenant;

async function gql(apiKey: string, query: string, variables?: Json): Promise<{ status: number; data: Json | null; errors?: Json[] }> {
  const res = await api.call('POST', '/api/v1/graphql', { apiKey, json: { query, variables } });
  return { status: res.status, data: res.json?.data ?? null, errors: res.json?.errors };
}

async function ok(apiKey: string, query: string, variables?: Json): Promise<Json> {
  const res = await gql(apiKey, query, variables);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.data!;
}

async function balance(apiKey: string): Promise<number> {
  const res = await api.call('GET', '/api/v1/account', { apiKey });
  expect(res.status).toBe(200);
  return res.json.balance;
}

async function tenant(): Promise<Tenant> {
  const { account, apiKey } = await api.newAccount();
  for (const [name, xml] of [
    ['approval.bpmn', APPROVAL],
    ['fragile.bpmn', FRAGILE],
  ]) {
    const deployed = await api.call('POST', '/api/v1/process-definitions', {
      apiKey,
      body: xml,
      headers: { 'content-type': 'application/xml' },
      query: { resourceName: name },
    });
    expect(deployed.status, deployed.text).toBe(200);
  }
  const approval = await api.call('POST', '/api/v1/process-instances', {
    apiKey,
    json: { bpmnProcessId: 'gql-approval', variables: { amount: 42, requester: account } },
  });
  expect(approval.status, approval.text).toBe(201);
  const fragile = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'gql-fragile' } });
  expect(fragile.status, fragile.text).toBe(201);
  const job = await eventually(async () => {
    const res = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'gql-fragile-call', maxJobsToActivate: 1 } });
    return res.json.jobs[0] as Json | undefined;
  }, 'the fragile job');
  const failed = await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'the remote service said no' } });
  expect(failed.status, failed.text).toBe(204);
  const taskId = await eventually(async () => {
    const res = await api.call('GET', '/api/v1/tasks', { apiKey });
    return (res.json.items as Json[]).find((t) => t.processInstanceKey === approval.json.processInstanceKey)?.id as string | undefined;
  }, 'the approval task');
  const incidentId = await eventually(async () => {
    const res = await api.call('GET', '/api/v1/incidents', { apiKey });
    return (res.json.items as Json[]).find((i) => i.processInstanceKey === fragile.json.processInstanceKey)?.id as string | undefined;
  }, 'the incident');
  return { account, apiKey, approvalKey: approval.json.processInstanceKey, taskId, fragileKey: fragile.json.processInstanceKey, incidentId };
}

beforeAll(async () => {
  api = await apiFixture();
  a = await tenant();
  b = await tenant();
}, 60_000);
afterAll(() => api?.close(), 30_000);

describe('GraphQL queries', () => {
  it('lists tasks like REST, with variables and the instance on demand', async () => {
    const data = await ok(
      a.apiKey,
      `{ tasks { items { id elementId processInstanceKey bpmnProcessId version assignee state createdAt variables processInstance { processInstanceKey state } } nextCursor } }`,
    );
    expect(data.tasks.nextCursor).toBeNull();
    expect(data.tasks.items).toEqual([
      {
        id: a.taskId,
        elementId: 'approve',
        processInstanceKey: a.approvalKey,
        bpmnProcessId: 'gql-approval',
        version: 1,
        assignee: null,
        state: 'CREATED',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        variables: { amount: 42, requester: a.account },
        processInstance: { processInstanceKey: a.approvalKey, state: 'ACTIVE' },
      },
    ]);
    const rest = await api.call('GET', `/api/v1/tasks/${a.taskId}`, { apiKey: a.apiKey });
    const one = await ok(a.apiKey, `query($id: ID!) { task(id: $id) { id elementInstanceKey customHeaders variables } }`, { id: a.taskId });
    expect(one.task).toEqual({
      id: rest.json.id,
      elementInstanceKey: rest.json.elementInstanceKey,
      customHeaders: rest.json.customHeaders,
      variables: rest.json.variables,
    });
  });

  it('lists and reads process instances with their tasks and incidents', async () => {
    const active = await ok(a.apiKey, `{ processInstances(state: ACTIVE) { items { processInstanceKey bpmnProcessId variables } } }`);
    expect(active.processInstances.items).toEqual([
      { processInstanceKey: a.approvalKey, bpmnProcessId: 'gql-approval', variables: { amount: 42, requester: a.account } },
    ]);

    const byProcess = await ok(a.apiKey, `{ processInstances(bpmnProcessId: "gql-fragile") { items { processInstanceKey state } } }`);
    expect(byProcess.processInstances.items).toEqual([{ processInstanceKey: a.fragileKey, state: 'INCIDENT' }]);

    const first = await ok(a.apiKey, `{ processInstances(limit: 1) { items { processInstanceKey } nextCursor } }`);
    expect(first.processInstances.items).toHaveLength(1);
    const second = await ok(a.apiKey, `query($c: String) { processInstances(limit: 1, cursor: $c) { items { processInstanceKey } nextCursor } }`, {
      c: first.processInstances.nextCursor,
    });
    expect([first.processInstances.items[0].processInstanceKey, second.processInstances.items[0].processInstanceKey].sort()).toEqual(
      [a.approvalKey, a.fragileKey].sort(),
    );

    const detail = await ok(
      a.apiKey,
      `query($k: ID!, $f: ID!) {
        approval: processInstance(key: $k) { state tasks { id } incidents { id } }
        fragile: processInstance(key: $f) { state tasks { id } incidents { id state message elementId } }
      }`,
      { k: a.approvalKey, f: a.fragileKey },
    );
    expect(detail.approval).toEqual({ state: 'ACTIVE', tasks: [{ id: a.taskId }], incidents: [] });
    expect(detail.fragile).toEqual({
      state: 'INCIDENT',
      tasks: [],
      incidents: [{ id: a.incidentId, state: 'OPEN', message: expect.stringContaining('the remote service said no'), elementId: 'call' }],
    });
  });

  it('lists incidents by state', async () => {
    const open = await ok(a.apiKey, `{ incidents(state: OPEN) { items { id processInstanceKey processInstance { state } } nextCursor } }`);
    expect(open.incidents).toEqual({
      items: [{ id: a.incidentId, processInstanceKey: a.fragileKey, processInstance: { state: 'INCIDENT' } }],
      nextCursor: null,
    });
    const resolved = await ok(a.apiKey, `{ incidents(state: RESOLVED) { items { id } } }`);
    expect(resolved.incidents.items).toEqual([]);
  });
});

describe('GraphQL errors', () => {
  it('answers a missing task as a NOT_FOUND error beside the data', async () => {
    const res = await gql(a.apiKey, `{ task(id: "999999") { id } tasks { items { id } } }`);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ task: null, tasks: { items: [{ id: a.taskId }] } });
    expect(res.errors).toEqual([expect.objectContaining({ path: ['task'], extensions: expect.objectContaining({ code: 'NOT_FOUND', status: 404 }) })]);
  });

  it('answers bad arguments as INVALID_INPUT errors', async () => {
    for (const query of [
      `{ processInstance(key: "not-a-key") { state } }`,
      `{ tasks(limit: 0) { nextCursor } }`,
      `{ incidents(cursor: "bogus") { nextCursor } }`,
    ]) {
      const res = await gql(a.apiKey, query);
      expect(res.status).toBe(200);
      expect(res.errors?.[0].extensions.code, query).toBe('INVALID_INPUT');
    }
    const notObject = await gql(a.apiKey, `mutation($id: ID!) { completeTask(id: $id, variables: [1, 2]) { completed } }`, { id: a.taskId });
    expect(notObject.errors?.[0].extensions.code).toBe('INVALID_INPUT');
  });

  it('answers syntax and schema mistakes as INVALID_INPUT errors', async () => {
    for (const query of ['{ tasks { items { id }', '{ nonsense }', 'query($x: Int!) { tasks(limit: $x) { nextCursor } }']) {
      const res = await gql(a.apiKey, query);
      expect(res.status).toBe(200);
      expect(res.data).toBeNull();
      expect(res.errors?.[0]).toMatchObject({ message: expect.any(String), extensions: { code: 'INVALID_INPUT' } });
    }
  });

  it('needs an API key (401 problem), and a GraphQL request body (400 problem)', async () => {
    const anonymous = await api.call('POST', '/api/v1/graphql', { json: { query: '{ tasks { nextCursor } }' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(anonymous.json.code).toBe('UNAUTHENTICATED');
    const bearer = await api.call('POST', '/api/token', { json: { api_key: a.apiKey } });
    const viaToken = await api.call('POST', '/api/v1/graphql', {
      headers: { authorization: `Bearer ${bearer.json.access_token}` },
      json: { query: '{ tasks { items { id } } }' },
    });
    expect(viaToken.json.data.tasks.items).toEqual([{ id: a.taskId }]);
    const notGraphql = await api.call('POST', '/api/v1/graphql', { apiKey: a.apiKey, json: { question: 'tasks?' } });
    expect(notGraphql.status).toBe(400);
    expect(notGraphql.json.errors).toEqual([expect.objectContaining({ field: 'body.query' })]);
  });
});

describe('tenancy', () => {
  it("never shows another account's tasks, instances or incidents", async () => {
    const data = await ok(b.apiKey, `{ tasks { items { id } } processInstances { items { processInstanceKey } } incidents { items { id } } }`);
    expect(data.tasks.items).toEqual([{ id: b.taskId }]);
    expect(data.processInstances.items.map((i: Json) => i.processInstanceKey).sort()).toEqual([b.approvalKey, b.fragileKey].sort());
    expect(data.incidents.items).toEqual([{ id: b.incidentId }]);

    const foreign = await gql(b.apiKey, `query($t: ID!, $k: ID!) { task(id: $t) { id } processInstance(key: $k) { state } }`, {
      t: a.taskId,
      k: a.approvalKey,
    });
    expect(foreign.data).toEqual({ task: null, processInstance: null });
    expect(foreign.errors?.map((e) => e.extensions.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
  });

  it("cannot complete another account's task", async () => {
    const res = await gql(b.apiKey, `mutation($id: ID!) { completeTask(id: $id) { completed } }`, { id: a.taskId });
    expect(res.data).toBeNull();
    expect(res.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const still = await ok(a.apiKey, `query($id: ID!) { task(id: $id) { id state } }`, { id: a.taskId });
    expect(still.task).toEqual({ id: a.taskId, state: 'CREATED' });
  });
});

describe('completeTask', () => {
  it('completes the task for free and moves the instance on, like REST completion', async () => {
    const before = await balance(a.apiKey);
    const data = await ok(a.apiKey, `mutation($id: ID!, $v: JSON) { completeTask(id: $id, variables: $v) { id completed } }`, {
      id: a.taskId,
      v: { approved: true },
    });
    expect(data.completeTask).toEqual({ id: a.taskId, completed: true });
    expect(await balance(a.apiKey)).toBe(before);

    const done = await eventually(async () => {
      const d = await ok(a.apiKey, `query($k: ID!) { processInstance(key: $k) { state variables } }`, { k: a.approvalKey });
      return d.processInstance.state === 'COMPLETED' ? d.processInstance : undefined;
    }, 'the approval instance to complete');
    expect(done.variables).toEqual({ amount: 42, requester: a.account, approved: true });

    // Gone now, over both interfaces.
    const again = await gql(a.apiKey, `mutation($id: ID!) { completeTask(id: $id) { completed } }`, { id: a.taskId });
    expect(again.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const rest = await api.call('POST', `/api/v1/tasks/${a.taskId}/complete`, { apiKey: a.apiKey, json: {} });
    expect(rest.status).toBe(404);
    expect(await balance(a.apiKey)).toBe(before);
  });

  it('is what costs 1 credit over REST', async () => {
    const before = await balance(b.apiKey);
    const rest = await api.call('POST', `/api/v1/tasks/${b.taskId}/complete`, { apiKey: b.apiKey, json: { variables: { approved: false } } });
    expect(rest.status).toBe(204);
    expect(await balance(b.apiKey)).toBe(before - 1);
  });
});
