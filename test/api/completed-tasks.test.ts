// Completed human tasks (the extension routes /api/v1/completed-tasks) over
// real HTTP: a user task completed by REST, by GraphQL or as a plain job is
// recorded once by the commit that removes its job, with who held it and
// when; listed newest first, by assignee or instance, cursor-paged; another
// account's completed task is not found; a cancelled task is never listed;
// bad filters are a 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, instanceInState, mustDeploy, openTaskOf as taskOf, startInstance, userTaskProcess } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;
let otherKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  ({ apiKey: otherKey } = await api.newAccount());
  await mustDeploy(api, apiKey, userTaskProcess('approve'));
}, 60_000);
afterAll(() => api?.close());

const openTask = (instanceKey: string) => taskOf(api, apiKey, instanceKey);
const ids = (res: { json: { items: { id: string }[] } }) => res.json.items.map((t: { id: string }) => t.id);

describe('completed tasks', () => {
  it('records a task completed over REST with its assignee and times, and reads it alone', async () => {
    const instanceKey = await startInstance(api, apiKey, 'approve');
    const task = await openTask(instanceKey);
    expect((await api.call('GET', `/api/v1/completed-tasks/${task.id}`, { apiKey })).status).toBe(404);
    await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey, json: { assignee: 'ana' } });
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey, json: { variables: { ok: true } } })).status).toBe(204);
    await instanceInState(api, apiKey, instanceKey, 'COMPLETED');

    const one = await api.call('GET', `/api/v1/completed-tasks/${task.id}`, { apiKey });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({
      id: task.id,
      elementId: 'review',
      elementInstanceKey: task.elementInstanceKey,
      processInstanceKey: instanceKey,
      bpmnProcessId: 'approve',
      version: 1,
      assignee: 'ana',
      state: 'COMPLETED',
      createdAt: task.createdAt,
    });
    expect(Date.parse(one.json.completedAt)).toBeGreaterThanOrEqual(Date.parse(task.createdAt));
    // SPEC.md's own route still forgets it.
    expect((await api.call('GET', `/api/v1/tasks/${task.id}`, { apiKey })).status).toBe(404);
    const byInstance = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { 'filter.processInstanceKey': instanceKey } });
    expect(byInstance.json).toEqual({ items: [one.json], nextCursor: null });
  });

  it('records completions by GraphQL and by the job routes too; lists newest first, by assignee, in pages', async () => {
    const done: string[] = [];
    for (let i = 0; i < 5; i++) {
      const instanceKey = await startInstance(api, apiKey, 'approve', { i });
      const task = await openTask(instanceKey);
      if (i % 2 === 0) await api.call('POST', `/api/v1/tasks/${task.id}/assign`, { apiKey, json: { assignee: 'bob' } });
      if (i === 4) {
        // A worker may take user tasks as jobs; that completion is a task's completion too.
        const job = await activateOne(api, apiKey, 'userTask');
        expect(job.key).toBe(task.id);
        expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
      } else {
        const answer = await api.call('POST', '/api/v1/graphql', {
          apiKey,
          json: { query: 'mutation($id: ID!) { completeTask(id: $id) { id completed } }', variables: { id: task.id } },
        });
        expect(answer.json.errors).toBeUndefined();
      }
      await instanceInState(api, apiKey, instanceKey, 'COMPLETED');
      done.push(task.id);
    }
    const first = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual([done[4], done[3]]);
    const second = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { limit: 2, cursor: first.json.nextCursor } });
    expect(ids(second)).toEqual([done[2], done[1]]);
    const bob = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { 'filter.assignee': 'bob' } });
    expect(ids(bob)).toEqual([done[4], done[2], done[0]]);
    expect(bob.json.items.every((t: { assignee: string }) => t.assignee === 'bob')).toBe(true);
    const nobody = await api.call('GET', `/api/v1/completed-tasks/${done[1]}`, { apiKey });
    expect(nobody.json.assignee).toBeNull();
  });

  it('never lists a cancelled task, nor one of another account', async () => {
    const instanceKey = await startInstance(api, apiKey, 'approve');
    const task = await openTask(instanceKey);
    expect((await api.call('POST', `/api/v1/process-instances/${instanceKey}/cancel`, { apiKey })).status).toBe(204);
    await instanceInState(api, apiKey, instanceKey, 'TERMINATED');
    expect((await api.call('GET', `/api/v1/completed-tasks/${task.id}`, { apiKey })).status).toBe(404);
    const listed = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { 'filter.processInstanceKey': instanceKey } });
    expect(listed.json.items).toEqual([]);

    const mine = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { limit: 1 } });
    const theirs = await api.call('GET', `/api/v1/completed-tasks/${mine.json.items[0].id}`, { apiKey: otherKey });
    expect(theirs.status).toBe(404);
    expect((await api.call('GET', '/api/v1/completed-tasks', { apiKey: otherKey })).json).toEqual({ items: [], nextCursor: null });
  });

  it('refuses nonsense filters and cursors with the field, and is tagged extension in the OpenAPI document', async () => {
    const badKey = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { 'filter.processInstanceKey': 'abc' } });
    expect(badKey.status).toBe(400);
    expect(JSON.stringify(badKey.json.errors)).toContain('filter.processInstanceKey');
    const badCursor = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { cursor: 'not-ours' } });
    expect(badCursor.status).toBe(400);
    expect(badCursor.json.errors[0].field).toBe('query.cursor');
    expect((await api.call('GET', '/api/v1/completed-tasks/12x', { apiKey })).status).toBe(400);
    expect((await api.call('GET', '/api/v1/completed-tasks')).status).toBe(401);

    const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
    for (const path of ['/api/v1/completed-tasks', '/api/v1/completed-tasks/{id}']) {
      expect(doc.paths[path].get.tags).toContain('extension');
      expect(doc.paths[path].get['x-orca-extension']).toBe(true);
    }
  });
});
