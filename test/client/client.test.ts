// OrcaClient against a real server over HTTP: every core call (deploy of
// BPMN and DMN, start, list with variable filters, read, jobs, incidents,
// tasks) answers what the server answers, and failures arrive as OrcaError
// with the problem's code, status and failing field; a server that never
// answers fails a request after timeoutMs.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaClient, OrcaError } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { approvalDmn, serviceProcess, userTaskProcess } from '../api/workflow-support.ts';

let api: ApiFixture;
let client: OrcaClient;

beforeAll(async () => {
  api = await apiFixture();
  const { apiKey } = await api.newAccount();
  client = new OrcaClient({ url: api.baseUrl, apiKey });
}, 60_000);
afterAll(() => api?.close());

async function caught(promise: Promise<unknown>): Promise<OrcaError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrcaError);
  return error as OrcaError;
}

describe('OrcaClient', () => {
  it('deploys .bpmn to process definitions and .dmn to models, in order', async () => {
    const deployed = await client.deploy([
      { name: 'models/charge.bpmn', content: serviceProcess('charge', 'charge-card', 2) },
      { name: 'approval.dmn', content: new TextEncoder().encode(approvalDmn()) },
    ]);
    expect(deployed).toEqual([
      { kind: 'process', id: 'charge', deployments: [{ bpmnProcessId: 'charge', version: 1, resourceName: 'charge.bpmn', isNew: true }] },
      { kind: 'decision', decisions: [{ decisionId: 'approval', version: 1, isNew: true, resourceName: 'approval.dmn' }] },
    ]);
    const again = await client.deploy({ name: 'charge.bpmn', content: serviceProcess('charge', 'charge-card', 2) });
    expect(again).toMatchObject({ kind: 'process', deployments: [{ version: 1, isNew: false }] });
    expect((await client.evaluateDecision('approval', { amount: 50 })).result).toBe('auto');
  });

  it('refuses a file that is neither BPMN nor DMN before sending anything', async () => {
    await expect(client.deploy({ name: 'notes.txt', content: 'x' })).rejects.toThrow(/neither \.bpmn nor \.dmn/);
  });

  it('turns a refused model into an OrcaError naming the field', async () => {
    const error = await caught(client.deploy({ name: 'broken.bpmn', content: '<not-bpmn/>' }));
    expect(error).toMatchObject({ status: 400, code: 'INVALID_INPUT', field: 'body', retryable: false });
    expect(error.detail).not.toBe('');
  });

  it('starts instances and finds them by state and by one or two variables', async () => {
    const a = await client.startInstance({ bpmnProcessId: 'charge', variables: { orderId: 'A-1', region: 'eu' } });
    const b = await client.startInstance({ bpmnProcessId: 'charge', variables: { orderId: 'A-2', region: 'us' } });
    expect(a).toMatchObject({ bpmnProcessId: 'charge', version: 1, state: 'ACTIVE' });
    expect(a.processInstanceKey).not.toBe(b.processInstanceKey);

    const byOrder = await client.listInstances({ variables: ['orderId:A-2'] });
    expect(byOrder.items.map((i) => i.processInstanceKey)).toEqual([b.processInstanceKey]);
    const both = await client.listInstances({ state: 'ACTIVE', bpmnProcessId: 'charge' });
    expect(both.items.map((i) => i.processInstanceKey).sort()).toEqual([a.processInstanceKey, b.processInstanceKey].sort());
    const narrowed = await client.listInstances({ variables: ['orderId:A-1', 'region:us'] });
    expect(narrowed.items).toEqual([]);
    const matched = await client.listInstances({ variables: ['orderId:A-1', 'region:eu'] });
    expect(matched.items.map((i) => i.processInstanceKey)).toEqual([a.processInstanceKey]);

    const detail = await client.getInstance(a.processInstanceKey);
    expect(detail).toMatchObject({ processInstanceKey: a.processInstanceKey, state: 'ACTIVE', variables: { orderId: 'A-1' } });
    expect(detail.jobs.map((j) => j.type)).toEqual(['charge-card']);
  });

  it('activates, completes and fails jobs; exhausted retries show as an incident', async () => {
    const jobs = await client.activateJobs({ type: 'charge-card', maxJobsToActivate: 10, worker: 'test' });
    expect(jobs).toHaveLength(2);
    const first = jobs.find((j) => j.variables.orderId === 'A-1')!;
    const second = jobs.find((j) => j.variables.orderId === 'A-2')!;
    expect(first).toMatchObject({ type: 'charge-card', retries: 2, worker: 'test', customHeaders: {} });

    await client.completeJob(first.key, { charged: true });
    await client.failJob(second.key, { retries: 0, errorMessage: 'card declined' });

    const done = await client.getInstance(first.processInstanceKey);
    expect(done).toMatchObject({ state: 'COMPLETED', variables: { charged: true } });
    const incidents = await client.listIncidents({ processInstanceKey: second.processInstanceKey });
    expect(incidents.items).toMatchObject([{ state: 'OPEN', jobKey: second.key }]);
    expect(incidents.items[0].message).toContain('card declined');
    const closed = await client.resolveIncident(incidents.items[0].id);
    expect(closed.state).toBe('RESOLVED');
    expect((await client.getInstance(second.processInstanceKey)).state).toBe('INCIDENT');

    // The console's reads: statistics of the version and of one instance, its element history, and filters.
    const stats = await client.getDefinitionStatistics('charge');
    expect(stats).toMatchObject({ bpmnProcessId: 'charge', version: 1, instances: { completed: 1, incidents: 1 } });
    expect(stats.elements.find((e) => e.elementId === 'task')).toMatchObject({ completed: 1, incidents: 1 });
    expect((await client.getInstanceStatistics(second.processInstanceKey)).elements).toContainEqual({
      elementId: 'task',
      active: 0,
      incidents: 1,
      completed: 0,
      canceled: 0,
    });
    const history = await client.getInstanceHistory(first.processInstanceKey, { limit: 2 });
    expect(history.items.map((i) => `${i.elementId}:${i.state}`)).toEqual(['start:COMPLETED', 'task:COMPLETED']);
    expect((await client.getInstanceHistory(first.processInstanceKey, { cursor: history.nextCursor! })).items.map((i) => i.elementId)).toEqual(['end']);
    expect((await client.listInstances({ bpmnProcessId: 'charge', version: 1, endedAfter: '2000-01-01T00:00:00Z' })).items).toMatchObject([
      { processInstanceKey: first.processInstanceKey },
    ]);
    expect((await client.listIncidents({ bpmnProcessId: 'charge' })).items).toHaveLength(1);

    const gone = await caught(client.completeJob(first.key));
    expect(gone).toMatchObject({ status: 404, code: 'NOT_FOUND', retryable: false });
  });

  it('completes a human task', async () => {
    await client.deploy({ name: 'review.bpmn', content: userTaskProcess('review') });
    const started = await client.startInstance({ bpmnProcessId: 'review' });
    const tasks = await client.listTasks({ 'filter.processInstanceKey': started.processInstanceKey });
    expect(tasks.items).toHaveLength(1);
    await client.completeTask(tasks.items[0].id, { approved: true });
    expect(await client.getInstance(started.processInstanceKey)).toMatchObject({ state: 'COMPLETED', variables: { approved: true } });
  });

  it('reports a bad key as UNAUTHENTICATED and an unknown process as NOT_FOUND', async () => {
    const stranger = new OrcaClient({ url: api.baseUrl, apiKey: 'nope' });
    expect(await caught(stranger.listInstances())).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await caught(client.startInstance({ bpmnProcessId: 'missing' }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const bad = await caught(client.startInstance({ bpmnProcessId: '' }));
    expect(bad).toMatchObject({ status: 400, code: 'INVALID_INPUT', field: 'body.bpmnProcessId' });
  });

  it('reports a server that is not there as a retryable TRANSPORT error', async () => {
    const nowhere = new OrcaClient({ url: 'http://127.0.0.1:1', apiKey: 'k', retry: { attempts: 2, baseMs: 1 } });
    expect(await caught(nowhere.listInstances())).toMatchObject({ status: 0, code: 'TRANSPORT', retryable: true });
  });

  it('with timeoutMs, gives up on a server that accepts and never answers, through the pools and through a fetch', async () => {
    const held: ServerResponse[] = [];
    const silent = createServer((_request, response) => void held.push(response));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      for (const through of [{}, { fetch }]) {
        const impatient = new OrcaClient({ url, apiKey: 'k', retry: { attempts: 1 }, timeoutMs: 200, ...through });
        expect(await caught(impatient.getProcessDefinition('any'))).toMatchObject({ status: 0, code: 'TRANSPORT' });
      }
      expect(held).toHaveLength(2);
      expect(() => new OrcaClient({ url, timeoutMs: 0 })).toThrow(/timeoutMs/);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
