// `timeout` on POST /api/v1/jobs/activate (extension) over real HTTP,
// through the partition leaders' timers: a job neither completed nor failed
// within it is offered again; a late complete is taken while the job exists
// and the other holder then gets 404 (problem type not-found); a fail gives
// the job back and withdraws the deadline; bad values are a 400 naming
// body.timeout that changes nothing; the field is tagged `extension`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { activateOne, instanceInState, mustDeploy, serviceProcess, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('held', 'held-work', 3));
}, 60_000);
afterAll(() => api?.close());

const activate = async (json: Record<string, unknown>) =>
  api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'held-work', maxJobsToActivate: 1, ...json } });

describe('activation timeout', () => {
  it('offers a job again once its timeout passed; the late complete wins and the new holder gets 404', async () => {
    const key = await startInstance(api, apiKey, 'held');
    const first = await activate({ worker: 'slow', timeout: 1_000 });
    expect(first.status, first.text).toBe(200);
    const [job] = first.json.jobs;
    expect(job).toMatchObject({ processInstanceKey: key, worker: 'slow', bpmnProcessId: 'held', processDefinitionVersion: 1, elementId: expect.any(String) });
    const again = await activateOne(api, apiKey, 'held-work', 15_000);
    expect(again).toMatchObject({ key: job.key, retries: 3, processInstanceKey: key });
    const late = await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables: { by: 'slow' } } });
    expect(late.status, late.text).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
    const gone = await api.call('POST', `/api/v1/jobs/${again.key}/complete`, { apiKey, json: {} });
    expectProblem(gone, 404);
    expect(gone.json.type).toMatch(/not-found/);
  });

  it('a fail within the timeout gives the job back at once and withdraws its deadline', async () => {
    const key = await startInstance(api, apiKey, 'held');
    const [job] = (await activate({ timeout: 60_000 })).json.jobs;
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 2 } })).status).toBe(204);
    const again = await activateOne(api, apiKey, 'held-work', 5_000);
    expect(again).toMatchObject({ key: job.key, retries: 2 });
    expect((await api.call('POST', `/api/v1/jobs/${again.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('refuses a negative, fractional or absurd timeout with a 400 naming it, activating nothing', async () => {
    const key = await startInstance(api, apiKey, 'held');
    for (const timeout of [-1, 1.5, 86_400_001, '10']) expectProblem(await activate({ timeout }), 400, 'body.timeout');
    const job = await activateOne(api, apiKey, 'held-work', 5_000);
    expect(job.processInstanceKey).toBe(key);
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
  });

  it('is tagged extension in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
    const body = doc.paths['/api/v1/jobs/activate'].post.requestBody.content['application/json'].schema;
    expect(body.properties.timeout['x-orca-extension']).toBe(true);
  });
});
