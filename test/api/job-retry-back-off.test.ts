// retryBackOff on POST /api/v1/jobs/{jobKey}/fail (extension) over real
// HTTP, through the partition leaders' timers: a failed job with retries
// left is not offered at once but after the back-off; bad values are a 400
// naming the field that changes nothing; without it, at once (SPEC.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { activateOne, instanceInState, mustDeploy, serviceProcess, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('backoff', 'backoff-work', 3));
}, 60_000);
afterAll(() => api?.close());

const activate = async (type: string) =>
  (await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type, maxJobsToActivate: 1, worker: 'test' } })).json.jobs;

describe('retryBackOff', () => {
  it('offers a failed job again after the back-off, not at once', async () => {
    const key = await startInstance(api, apiKey, 'backoff');
    const job = await activateOne(api, apiKey, 'backoff-work');
    const failed = await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 2, errorMessage: 'flaky', retryBackOff: 3_000 } });
    expect(failed.status, failed.text).toBe(204);
    // Well inside the three seconds: not offered yet.
    expect(await activate('backoff-work')).toEqual([]);
    const again = await activateOne(api, apiKey, 'backoff-work', 15_000);
    expect(again).toMatchObject({ key: job.key, retries: 2, processInstanceKey: key });
    expect((await api.call('POST', `/api/v1/jobs/${again.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('without one, offers it again at once', async () => {
    await startInstance(api, apiKey, 'backoff');
    const job = await activateOne(api, apiKey, 'backoff-work');
    await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 1 } });
    expect((await activateOne(api, apiKey, 'backoff-work', 2_000)).key).toBe(job.key);
  });

  it('refuses a negative, fractional or absurd back-off with a 400 naming it, and changes nothing', async () => {
    const key = await startInstance(api, apiKey, 'backoff');
    const job = await activateOne(api, apiKey, 'backoff-work');
    for (const retryBackOff of [-1, 1.5, 86_400_001, '10']) {
      expectProblem(await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 1, retryBackOff } }), 400, 'body.retryBackOff');
    }
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });
});
