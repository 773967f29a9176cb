// `promtool check metrics` on a real scrape (issue 15): after a small
// workload, so the histograms and labelled series carry data, Orca's own
// series pass with no complaint at all; Node's default metrics (named by
// prom-client, not by Orca) may draw promtool's naming lints, and nothing
// else may.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { activateOne, instanceInState, mustDeploy, serviceProcess, startInstance } from '../api/workflow-support.ts';
import { families, HAS_PROMTOOL, PROMETHEUS_SKIP, promtool } from './promtool.ts';
import { scrape, type Scrape } from './scrape.ts';

let api: ApiFixture;
let scraped: Scrape;

describe.skipIf(!HAS_PROMTOOL)(`promtool check metrics on a scrape ${HAS_PROMTOOL ? '' : PROMETHEUS_SKIP}`, () => {
  beforeAll(async () => {
    api = await apiFixture({ config: { engine: { partitions: 2 } } });
    const { apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('checked', 'checked-work'));
    const key = await startInstance(api, apiKey, 'checked');
    const job = await activateOne(api, apiKey, 'checked-work');
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
    await api.call('GET', '/no-such-route');
    scraped = await scrape(api.baseUrl);
  }, 120_000);
  afterAll(() => api?.close());

  it("finds nothing to say about Orca's series", async () => {
    const own = families(scraped.text, (name) => name.startsWith('orca_'));
    expect(own).toContain('orca_job_activation_wait_seconds_bucket');
    const result = await promtool(['check', 'metrics'], own);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it("parses the whole scrape, complaining at most about Node's default metrics", async () => {
    expect(scraped.all('process_cpu_seconds_total')).toHaveLength(1);
    const result = await promtool(['check', 'metrics'], scraped.text);
    const complaints = (result.stdout + result.stderr).split('\n').filter((line) => line.trim() !== '');
    for (const line of complaints) expect(line).toMatch(/^(nodejs|process)_\w+ /);
    expect([0, 3]).toContain(result.code);
  });
});
