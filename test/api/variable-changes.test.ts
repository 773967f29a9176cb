// GET /api/v1/process-instances/{key}/variable-changes (extension) over real
// HTTP: the completions that sent variables, by name, in order, read from
// the history the engine already writes (nothing more on the write path);
// a completion without variables is not a change; paging; another
// account's instance is 404; a nonsense key is 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;
let otherKey: string;

const THREE_STEPS = processXml(
  'steps',
  start() +
    service('first', 'first-work') +
    service('second', 'second-work') +
    service('third', 'third-work') +
    end() +
    flow('f1', 'start', 'first') +
    flow('f2', 'first', 'second') +
    flow('f3', 'second', 'third') +
    flow('f4', 'third', 'end'),
);

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  ({ apiKey: otherKey } = await api.newAccount());
  await mustDeploy(api, apiKey, THREE_STEPS);
}, 60_000);
afterAll(() => api?.close());

async function complete(type: string, variables?: Record<string, unknown>): Promise<string> {
  const job = await activateOne(api, apiKey, type);
  expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: variables === undefined ? {} : { variables } })).status).toBe(204);
  return job.key;
}

describe('variable changes', () => {
  it('lists the completions that sent variables, by name and in order, and pages them', async () => {
    const key = await startInstance(api, apiKey, 'steps', { orderId: 'V-1' });
    const changes = () => api.call('GET', `/api/v1/process-instances/${key}/variable-changes`, { apiKey });
    expect((await changes()).json).toEqual({ items: [], nextCursor: null });

    const first = await complete('first-work', { reserved: true, warehouse: 'north' });
    await complete('second-work');
    const third = await complete('third-work', { tracking: 'T-9' });
    await instanceInState(api, apiKey, key, 'COMPLETED');

    const all = await changes();
    expect(all.status).toBe(200);
    expect(all.json.items).toEqual([
      { at: expect.any(String), elementId: 'first', elementInstanceKey: expect.any(String), jobKey: first, variables: ['reserved', 'warehouse'] },
      { at: expect.any(String), elementId: 'third', elementInstanceKey: expect.any(String), jobKey: third, variables: ['tracking'] },
    ]);
    expect(Date.parse(all.json.items[1].at)).toBeGreaterThanOrEqual(Date.parse(all.json.items[0].at));

    const one = await api.call('GET', `/api/v1/process-instances/${key}/variable-changes`, { apiKey, query: { limit: 1 } });
    expect(one.json.items.map((c: { jobKey: string }) => c.jobKey)).toEqual([first]);
    const two = await api.call('GET', `/api/v1/process-instances/${key}/variable-changes`, { apiKey, query: { limit: 1, cursor: one.json.nextCursor } });
    expect(two.json.items.map((c: { jobKey: string }) => c.jobKey)).toEqual([third]);
    expect(two.json.nextCursor).toBeNull();
  });

  it("answers 404 for another account's instance and 400 for a nonsense key or cursor", async () => {
    const key = await startInstance(api, apiKey, 'steps');
    expect((await api.call('GET', `/api/v1/process-instances/${key}/variable-changes`, { apiKey: otherKey })).status).toBe(404);
    const bad = await api.call('GET', '/api/v1/process-instances/12ab/variable-changes', { apiKey });
    expect(bad.status).toBe(400);
    const badCursor = await api.call('GET', `/api/v1/process-instances/${key}/variable-changes`, { apiKey, query: { cursor: 'nope' } });
    expect(badCursor.status).toBe(400);
    expect(badCursor.json.errors[0].field).toBe('query.cursor');
  });
});
