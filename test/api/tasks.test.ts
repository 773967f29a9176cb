// Human tasks over real HTTP (SPEC.md Endpoints): user tasks wait as
// `userTask` jobs and show up in the task list, where they are claimed,
// assigned and completed. REST completion costs 1 credit; the shared
// completeTask service (what GraphQL calls) can complete for free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeTask } from '../../api/services/tasks.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, balanceOf, instanceInState, mustDeploy, startInstance, userTaskProcess, type Json } from './workflow-support.ts';

let api: ApiFixture;
let account: string;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ account, apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, userTaskProcess('approve'));
}, 60_000);
afterAll(() => api?.close());

/** Starts an instance and returns its task, polling (bounded) until it is listed. */
async function newTask(variables: Record<string, unknown> = {}): Promise<Json> {
  const key = await startInstance(api, apiKey, 'approve', variables);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.processInstanceKey': key } });
    if (res.json.items.length > 0) return res.json.items[0];
    if (Date.now() > deadline) throw new Error(`no task for instance ${key}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('tasks', () => {
  it('lists a user task and reads it with its variables', async () => {
    const task = await newTask({ requester: 'ana', amount: 12 });
    expect(task).toMatchObject({ elementId: 'review', bpmnProcessId: 'approve', version: 1, assignee: null, state: 'CREATED' });
    expect(task.id).toMatch(/^[0-9]+$/);
    const all = await api.call('GET', '/api/v1/tasks', { apiKey });
    expect(all.status).toBe(200);
    expect(all.json.items.map((t: { id: string }) => t.id)).toContain(task.id);
    const one = await api.call('GET', `/api/v1/tasks/${task.id}`, { apiKey });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ ...task, variables: { requester: 'ana', amount: 12 } });
  });

  it('claim: by the caller by default; again by the same is fine; by someone else is 409', async () => {
    const task = await newTask();
    const claimed = await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey });
    expect(claimed.status).toBe(200);
    expect(claimed.json).toMatchObject({ id: task.id, assignee: account });
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey, json: {} })).status).toBe(200);
    const taken = await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey, json: { assignee: 'bob' } });
    expect(taken.status).toBe(409);
    expect(taken.json).toMatchObject({ code: 'CONFLICT', assignee: account });
    expect((await api.call('GET', `/api/v1/tasks/${task.id}`, { apiKey })).json.assignee).toBe(account);
  });

  it('assign: gives the task to anyone, whoever held it; null returns it to the pool; lists filter by assignee', async () => {
    const task = await newTask();
    await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey, json: { assignee: 'carol' } });
    const assigned = await api.call('POST', `/api/v1/tasks/${task.id}/assign`, { apiKey, json: { assignee: 'dave' } });
    expect(assigned.status).toBe(200);
    expect(assigned.json).toMatchObject({ id: task.id, assignee: 'dave' });
    const mine = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.assignee': 'dave' } });
    expect(mine.json.items.map((t: { id: string }) => t.id)).toEqual([task.id]);
    const held = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.assigned': 'true' } });
    expect(held.json.items.map((t: { id: string }) => t.id)).toContain(task.id);

    const released = await api.call('POST', `/api/v1/tasks/${task.id}/assign`, { apiKey, json: { assignee: null } });
    expect(released.json.assignee).toBeNull();
    const pool = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.assigned': 'false' } });
    expect(pool.json.items.map((t: { id: string }) => t.id)).toContain(task.id);
    expect(pool.json.items.every((t: { assignee: string | null }) => t.assignee === null)).toBe(true);
    // Now anyone may claim it.
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey, json: { assignee: 'erin' } })).json.assignee).toBe('erin');
  });

  it('complete over REST costs 1 credit (204), advances the instance, and a completed task is 404 at no cost', async () => {
    const task = await newTask({ amount: 5 });
    const before = await balanceOf(api, account);
    const res = await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey, json: { variables: { approved: true } } });
    expect(res.status).toBe(204);
    expect(await balanceOf(api, account)).toBe(before - 1);
    const done = await instanceInState(api, apiKey, task.processInstanceKey, 'COMPLETED');
    expect(done.variables).toEqual({ amount: 5, approved: true });
    const again = await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey, json: {} });
    expect(again.status).toBe(404);
    expect(again.json.code).toBe('NOT_FOUND');
    expect(await balanceOf(api, account)).toBe(before - 1);
    expect((await api.call('GET', `/api/v1/tasks/${task.id}`, { apiKey })).status).toBe(404);
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/claim`, { apiKey })).status).toBe(404);
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/assign`, { apiKey, json: { assignee: 'x' } })).status).toBe(404);
  });

  it('without credits REST completion is 402 and nothing happens', async () => {
    const poor = await api.newAccount();
    await mustDeploy(api, poor.apiKey, userTaskProcess('approve'));
    const key = await startInstance(api, poor.apiKey, 'approve');
    const list = await api.call('GET', '/api/v1/tasks', { apiKey: poor.apiKey });
    const task = list.json.items[0];
    await api.service.credits.charge(poor.account, await balanceOf(api, poor.account), 'test: drain');
    const res = await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey: poor.apiKey, json: { variables: { approved: true } } });
    expect(res.status).toBe(402);
    expect(res.json.code).toBe('OUT_OF_CREDITS');
    expect((await api.call('GET', `/api/v1/tasks/${task.id}`, { apiKey: poor.apiKey })).json).toMatchObject({ id: task.id, state: 'CREATED' });
    const instance = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey: poor.apiKey });
    expect(instance.json).toMatchObject({ state: 'ACTIVE', variables: {} });
  });

  it('the shared completeTask service completes for free when asked not to charge (GraphQL)', async () => {
    const task = await newTask();
    const before = await balanceOf(api, account);
    const ctx = api.service.ctx;
    await completeTask(ctx, account, task.id, { via: 'graphql' }, { charge: false });
    expect(await balanceOf(api, account)).toBe(before);
    expect((await instanceInState(api, apiKey, task.processInstanceKey, 'COMPLETED')).variables).toEqual({ via: 'graphql' });
    await expect(completeTask(ctx, account, task.id, {}, { charge: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a task whose job ran out of retries is FAILED: listed on request, and cannot be completed (409)', async () => {
    // An account of its own, so its only userTask job is this one.
    const other = await api.newAccount();
    await mustDeploy(api, other.apiKey, userTaskProcess('approve'));
    const key = await startInstance(api, other.apiKey, 'approve');
    // A worker may handle user tasks as jobs (SPEC.md): take it and fail it for good.
    const job = await activateOne(api, other.apiKey, 'userTask');
    expect(job.processInstanceKey).toBe(key);
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey: other.apiKey, json: { retries: 0, errorMessage: 'no form' } })).status).toBe(204);
    await instanceInState(api, other.apiKey, key, 'INCIDENT');
    expect((await api.call('GET', '/api/v1/tasks', { apiKey: other.apiKey })).json.items).toEqual([]);
    const failed = await api.call('GET', '/api/v1/tasks', { apiKey: other.apiKey, query: { 'filter.state': 'FAILED' } });
    expect(failed.json.items).toEqual([expect.objectContaining({ id: job.key, state: 'FAILED', processInstanceKey: key })]);
    const before = await balanceOf(api, other.account);
    const res = await api.call('POST', `/api/v1/tasks/${job.key}/complete`, { apiKey: other.apiKey, json: {} });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('CONFLICT');
    expect(await balanceOf(api, other.account)).toBe(before);
    expect((await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey: other.apiKey })).json.state).toBe('INCIDENT');
  });

  it('pages the task list by cursor', async () => {
    await newTask();
    await newTask();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', '/api/v1/tasks', { apiKey, query: { limit: 1, cursor } });
      expect(page.json.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.items.map((t: { id: string }) => t.id));
      cursor = page.json.nextCursor ?? undefined;
    } while (cursor);
    const all = await api.call('GET', '/api/v1/tasks', { apiKey, query: { limit: 1000 } });
    expect(seen).toEqual(all.json.items.map((t: { id: string }) => t.id));
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });
});
