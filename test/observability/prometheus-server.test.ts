// Orca scraped by a real Prometheus server (issue 15): Debian's
// `prometheus` on loopback, on a free port with a temporary data
// directory, scrapes a running Orca every second while a small load starts
// and completes instances; its query API must then give a non-zero rate of
// started instances and of activated jobs, and see the target up.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually, mustDeploy, serviceProcess } from '../api/workflow-support.ts';
import { HAS_PROMETHEUS, PROMETHEUS_SKIP } from './promtool.ts';

let api: ApiFixture | undefined;
let server: ChildProcess | undefined;
let work: string | undefined;
let stopLoad = false;
afterAll(async () => {
  stopLoad = true;
  if (server?.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await api?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function query(base: string, promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  if (body.status !== 'success') throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
  return body.data!.result;
}

/** Starts instances and completes their jobs until told to stop. */
async function load(orca: ApiFixture, apiKey: string): Promise<number> {
  let done = 0;
  while (!stopLoad) {
    await orca.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'scraped', variables: {} } });
    const res = await orca.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'scraped-work', maxJobsToActivate: 10, worker: 'load' } });
    for (const job of res.json?.jobs ?? []) {
      await orca.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} });
      done++;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return done;
}

describe.skipIf(!HAS_PROMETHEUS)(`a Prometheus server scraping Orca ${HAS_PROMETHEUS ? '' : PROMETHEUS_SKIP}`, () => {
  it('reads non-zero rates back from its query API', async () => {
    api = await apiFixture({ config: { engine: { partitions: 2 } } });
    const { apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('scraped', 'scraped-work'));
    const target = new URL(api.baseUrl).host;

    work = await mkdtemp(join(tmpdir(), 'orca-prometheus-'));
    const config = join(work, 'prometheus.yml');
    await writeFile(
      config,
      JSON.stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(process.cwd(), 'deploy/observability/orca-alerts.yml')],
        scrape_configs: [{ job_name: 'orca', static_configs: [{ targets: [target] }] }],
      }),
    );
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let output = '';
    server = spawn(
      'prometheus',
      [`--config.file=${config}`, `--storage.tsdb.path=${join(work, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(
      async () => {
        if (server!.exitCode !== null) throw new Error(`prometheus exited (${server!.exitCode}): ${output}`);
        return (await fetch(`${base}/-/ready`).catch(() => undefined))?.status === 200 ? true : undefined;
      },
      'Prometheus to be ready',
      30_000,
    );

    const running = load(api, apiKey);
    try {
      const up = await eventually(
        async () => {
          const result = await query(base, 'up{job="orca"}');
          return result[0]?.value[1] === '1' ? result : undefined;
        },
        'Orca to be scraped',
        30_000,
      );
      expect(up[0].metric.instance).toBe(target);
      const started = await eventually(
        async () => {
          const result = await query(base, 'sum(rate(orca_process_instances_started_total[5s]))');
          return Number(result[0]?.value[1]) > 0 ? Number(result[0].value[1]) : undefined;
        },
        'a non-zero rate of started instances',
        30_000,
      );
      expect(started).toBeGreaterThan(0);
      const activated = await query(base, 'sum(rate(orca_jobs_activated_total{job_kind="service"}[5s]))');
      expect(Number(activated[0]?.value[1])).toBeGreaterThan(0);
      // The alert rules load and evaluate against the live series without error.
      const rules = (await (await fetch(`${base}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string; state: string }[] }[] };
      };
      const loaded = rules.data.groups.flatMap((g) => g.rules);
      expect(loaded).toHaveLength(6);
      for (const rule of loaded) expect(rule.health, rule.name).not.toBe('err');
    } finally {
      stopLoad = true;
      expect(await running).toBeGreaterThan(0);
    }
  }, 120_000);
});
