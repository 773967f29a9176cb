// A worker completing 1,000 jobs while the server is restarted under it (a
// rolling deploy: graceful close, a new process on the same port and the
// same database): no job is lost — every instance completes — and the
// worker runs no job's handler twice and sends no outcome the server
// refuses. Real Postgres and Redis when DATABASE_URL / REDIS_URL are set,
// PGlite otherwise (the same data directory across the restart).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../api/app.ts';
import { appConfig } from '../../api/config.ts';
import { createWorker, OrcaClient, type WorkerEvent } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually, serviceProcess } from '../api/workflow-support.ts';

const JOBS = 1_000;
const RESTART_AFTER = 400;

let api: ApiFixture;
let restarted: App | undefined;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(async () => {
  await restarted?.close();
  await api?.close();
}, 60_000);

async function countCompleted(client: OrcaClient): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listInstances({ state: 'COMPLETED', limit: 1000, cursor });
    count += page.items.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return count;
}

it(`completes ${JOBS} jobs with the server restarted in the middle: none lost, none run twice`, { timeout: 240_000 }, async () => {
  const { apiKey } = await api.newAccount();
  let repeats = 0;
  const client = new OrcaClient({ url: api.baseUrl, apiKey, retry: { attempts: 8, baseMs: 50, maxMs: 1_000 }, onRetry: () => repeats++ });
  await client.deploy({ name: 'bulk.bpmn', content: serviceProcess('bulk', 'bulk-work') });
  for (let i = 0; i < JOBS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, JOBS - i) }, (_, j) => client.startInstance({ bpmnProcessId: 'bulk', variables: { n: i + j } })));
  }

  const handled = new Map<string, number>();
  const events: WorkerEvent[] = [];
  const worker = createWorker({
    client,
    type: 'bulk-work',
    pollIntervalMs: [20, 100],
    onEvent: (e) => {
      if (e.type !== 'job-started' && e.type !== 'job-completed' && e.type !== 'poll') events.push(e);
    },
    handler: (job) => {
      handled.set(job.key, (handled.get(job.key) ?? 0) + 1);
      return { doubled: (job.variables.n as number) * 2 };
    },
  });

  await eventually(async () => (worker.stats().completed >= RESTART_AFTER ? true : undefined), `${RESTART_AFTER} completed`, 120_000);
  const port = Number(new URL(api.baseUrl).port);
  await api.service.close();
  const completedWhileUp = worker.stats().completed;
  restarted = await createApp(appConfig(api.config, { http: { port } }));
  await restarted.listen();

  const completedAfterRestart = worker.stats().completed;
  await eventually(async () => (worker.stats().completed >= JOBS ? true : undefined), `${JOBS} completed`, 180_000);
  await worker.stop();

  expect(completedWhileUp).toBeLessThan(JOBS); // The restart really happened mid-run.
  expect(completedAfterRestart).toBeLessThan(JOBS);
  // The worker noticed: its client repeated requests, or it polled again or resent an outcome itself.
  expect(repeats + events.filter((e) => e.type === 'poll-error' || e.type === 'outcome-retry').length).toBeGreaterThan(0);
  expect(events.filter((e) => e.type === 'outcome-refused' || e.type === 'job-failed')).toEqual([]);
  expect(handled.size).toBe(JOBS);
  expect([...handled.values()].filter((n) => n !== 1)).toEqual([]);
  expect(worker.stats()).toMatchObject({ completed: JOBS, failed: 0, active: 0 });
  expect(await countCompleted(client)).toBe(JOBS);
});
