// The engine role's own listener (`orca start --role engine`): /healthz,
// /readyz and /metrics over real HTTP and nothing else, and — scaled out,
// an API process and an engine shard sharing Postgres and Redis — each
// role's /metrics counting its own side of the same workload: the shard
// the committed instances and jobs, the API the activations and requests;
// and a shard's /metrics answering every scrape while its partitions are
// handed to a joining shard and back.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngineService, type EngineService } from '../../api/engine-service.ts';
import { appConfig } from '../../api/config.ts';
import { apiFixture, seedPgliteDataDir, type ApiFixture } from '../api/api-fixture.ts';
import { activateOne, eventually, instanceInState, mustDeploy, serviceProcess, startInstance } from '../api/workflow-support.ts';
import { parseScrape, scrape, type Scrape } from './scrape.ts';

const databaseUrl = process.env.DATABASE_URL || undefined;
const redisUrl = process.env.REDIS_URL || undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function get(base: string, path: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(new URL(path, base));
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('the engine role listens for probes and scrapes only', () => {
  let service: EngineService;
  let base: string;

  it('answers /healthz, /readyz and /metrics, and 404 to the API', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'orca-engine-role-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await seedPgliteDataDir(dataDir);
    service = await createEngineService(
      appConfig({ http: { port: 0, host: '127.0.0.1' }, engine: { dataDir, partitions: 3, leaseMs: 1_000 }, metrics: { processMetrics: false } }),
    );
    cleanups.push(() => service.close());
    base = await service.listen();

    expect(await get(base, '/healthz')).toMatchObject({ status: 200 });
    const ready = await get(base, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text).checks.partitions).toEqual({ status: 'up' });
    const metrics = await scrape(base);
    for (let p = 0; p < 3; p++) expect(metrics.value('orca_partition_leader', { partition: String(p) })).toBe(1);
    expect(metrics.value('orca_partition_lease_changes_total')).toBe(3);
    const api = await get(base, '/api/v1/openapi.json');
    expect(api.status).toBe(404);
    expect(api.type).toMatch(/^application\/problem\+json/);
  });

  it('scrapes during shutdown without failing the shutdown', async () => {
    const scrapes = Array.from({ length: 5 }, () =>
      fetch(new URL('/metrics', base)).then(
        (r) => r.status,
        () => 'refused',
      ),
    );
    await service.close();
    for (const status of await Promise.all(scrapes)) expect([200, 503, 'refused']).toContain(status);
  });
});

describe.skipIf(!databaseUrl || !redisUrl)('scaled out: each role counts its side (needs DATABASE_URL and REDIS_URL)', () => {
  it('the shard counts the committed work, the API the activations and requests', async () => {
    const partitions = 2;
    const api: ApiFixture = await apiFixture({ config: { engine: { role: 'api', partitions }, metrics: { processMetrics: false } } });
    cleanups.push(() => api.close());
    const shard = await createEngineService(appConfig(api.config, { http: { port: 0, host: '127.0.0.1' } }), {
      engine: { owner: `shard-${randomBytes(4).toString('hex')}` },
    });
    cleanups.push(() => shard.close());
    const shardBase = await shard.listen();
    await eventually(async () => (shard.engine.ownedPartitions().length === partitions ? true : undefined), 'the shard to lead every partition');

    const { apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('split', 'split-work'));
    const n = 4;
    const keys: string[] = [];
    for (let i = 0; i < n; i++) keys.push(await startInstance(api, apiKey, 'split'));
    for (let i = 0; i < n; i++) {
      const job = await activateOne(api, apiKey, 'split-work');
      expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    }
    for (const key of keys) await instanceInState(api, apiKey, key, 'COMPLETED');

    const onShard = await eventually(async () => {
      const now = await scrape(shardBase);
      return now.value('orca_process_instances_ended_total', { state: 'COMPLETED' }) === n ? now : undefined;
    }, 'the shard to count the completed instances');
    expect(onShard.value('orca_process_instances_started_total')).toBe(n);
    expect(onShard.value('orca_jobs_created_total', { job_kind: 'service' })).toBe(n);
    expect(onShard.value('orca_jobs_completed_total', { job_kind: 'service' })).toBe(n);
    expect(onShard.value('orca_partition_batch_commands_sum')).toBe(2 * n);
    expect(onShard.all('orca_partition_leader').filter((s) => s.value === 1)).toHaveLength(partitions);

    const onApi = await scrape(api.baseUrl);
    expect(onApi.value('orca_jobs_activated_total', { job_kind: 'service' })).toBe(n);
    expect(onApi.value('orca_job_activation_wait_seconds_count', { job_kind: 'service' })).toBe(n);
    expect(onApi.value('orca_process_instances_started_total')).toBe(0);
    expect(onApi.value('orca_http_request_duration_seconds_count', { route: '/api/v1/process-instances', method: 'POST', status_class: '2xx' })).toBe(n);
    // The API process leads nothing: it has no partition series.
    expect(onApi.all('orca_partition_leader')).toHaveLength(0);
  });

  it('answers every scrape while partitions go to a joining shard and come back, and the leader series always agree', async () => {
    const partitions = 4;
    const api: ApiFixture = await apiFixture({ config: { engine: { role: 'api', partitions }, metrics: { processMetrics: false } } });
    cleanups.push(() => api.close());
    const shardConfig = appConfig(api.config, { http: { port: 0, host: '127.0.0.1' } });
    const shardOf = (name: string) => createEngineService(shardConfig, { engine: { owner: `${name}-${randomBytes(4).toString('hex')}` } });
    const first = await shardOf('first');
    cleanups.push(() => first.close());
    const firstBase = await first.listen();
    await eventually(async () => (first.engine.ownedPartitions().length === partitions ? true : undefined), 'the first shard to lead every partition');
    const leading = (metrics: Scrape) =>
      metrics
        .all('orca_partition_leader')
        .filter((s) => s.value === 1)
        .map((s) => s.labels.partition)
        .sort();

    // Scraped back to back for the whole handover: every answer must be a whole, parseable 200.
    let scraping = true;
    const answers: number[] = [];
    const scraper = (async () => {
      while (scraping) {
        const response = await fetch(new URL('/metrics', firstBase));
        answers.push(response.status);
        parseScrape(await response.text());
      }
    })();

    const second = await shardOf('second');
    cleanups.push(() => second.close());
    const secondBase = await second.listen();
    const shared = await eventually(async () => {
      const [a, b] = await Promise.all([scrape(firstBase), scrape(secondBase)]);
      const mine = leading(a);
      const theirs = leading(b);
      return mine.length > 0 && theirs.length > 0 && mine.length + theirs.length === partitions ? { mine, theirs } : undefined;
    }, 'the partitions to be shared between the shards, as both scrapes say');
    // No partition is led by both.
    expect(shared.mine.filter((p) => shared.theirs.includes(p))).toEqual([]);

    await second.close();
    const back = await eventually(async () => {
      const metrics = await scrape(firstBase);
      return leading(metrics).length === partitions ? metrics : undefined;
    }, 'the first shard to lead every partition again');
    scraping = false;
    await scraper;

    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((status) => status !== 200)).toEqual([]);
    // Its own partitions at start, and at least the ones it was seen to give up, taken back.
    expect(back.value('orca_partition_lease_changes_total')).toBeGreaterThanOrEqual(partitions + shared.theirs.length);
  });
});
