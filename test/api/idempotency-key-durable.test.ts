// Idempotency-Key results are durable: after a process restart (a new app
// on the same data) and after a leader handover (another engine shard leads
// every partition), the same keys answer their first results — a start, a
// job completion and a deploy — and start, complete and charge nothing again.
// A start whose answer never came (no leader yet) and that ran later is
// answered, not repeated, by a retry under its key.
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, engineConfig, type Engine } from '../../engine/partition/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { instancesWith, keyedPost, keyedStart } from './idempotency-support.ts';
import { activateOne, balanceOf, instanceInState, mustDeploy, serviceProcess, startInstance } from './workflow-support.ts';

const onRealServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

const fixtures: ApiFixture[] = [];
const shards: Engine[] = [];
afterAll(async () => {
  await Promise.all(shards.map((s) => s.close()));
  await Promise.all(fixtures.map((f) => f.close()));
});

/** Keyed requests, then `between` (a restart, a handover), then the same requests again: the first answers, nothing done twice. */
async function answersAcross(api: ApiFixture, between: () => Promise<void>): Promise<void> {
  const { account, apiKey } = await api.newAccount();
  await mustDeploy(api, apiKey, serviceProcess('durable', 'durable-work'));
  const startBody = { bpmnProcessId: 'durable', variables: { orderId: 'D-1' } };
  const started = await keyedStart(api, apiKey, 'durable-start', startBody);
  expect(started.status, started.text).toBe(201);

  await startInstance(api, apiKey, 'durable', { orderId: 'D-2' });
  const job = await activateOne(api, apiKey, 'durable-work');
  const completePath = `/api/v1/jobs/${job.key}/complete`;
  expect((await keyedPost(api, apiKey, 'durable-done', completePath, { variables: { ok: true } })).status).toBe(204);
  await instanceInState(api, apiKey, job.processInstanceKey, 'COMPLETED');

  const deploy = () =>
    api.call('POST', '/api/v1/process-definitions', {
      apiKey,
      body: serviceProcess('durable-deploy', 'durable-work'),
      headers: { 'idempotency-key': 'durable-deploy', 'content-type': 'application/xml' },
      query: { resourceName: 'durable.bpmn' },
    });
  const deployed = await deploy();
  expect(deployed.status, deployed.text).toBe(200);
  const balance = await balanceOf(api, account);

  await between();

  const again = await keyedStart(api, apiKey, 'durable-start', startBody);
  expect(again.status).toBe(201);
  expect(again.text).toBe(started.text);
  expect(await instancesWith(api, apiKey, 'orderId', 'D-1')).toHaveLength(1);
  expect((await keyedPost(api, apiKey, 'durable-done', completePath, { variables: { ok: true } })).status).toBe(204);
  expectProblem(await api.call('POST', completePath, { apiKey, json: { variables: { ok: true } } }), 404);
  expect((await deploy()).text).toBe(deployed.text);
  expectProblem(await keyedStart(api, apiKey, 'durable-start', { ...startBody, variables: { orderId: 'D-other' } }), 409, 'headers.Idempotency-Key');
  expect(await balanceOf(api, account)).toBe(balance);
}

describe('across a process restart', () => {
  it('a new app on the same data answers the same keys with their first results', async () => {
    const api = await apiFixture();
    fixtures.push(api);
    await answersAcross(api, () => api.restart());
  }, 120_000);
});

describe.skipIf(!onRealServices)('across a leader handover (needs DATABASE_URL and REDIS_URL: an API pod and two engine shards share one store)', () => {
  it('the next leader of every partition answers the same keys with their first results', async () => {
    const api = await apiFixture({ split: true });
    fixtures.push(api);
    await answersAcross(api, () => api.handOver());
  }, 120_000);
});

describe.skipIf(!onRealServices)('after a start that got no answer (needs DATABASE_URL and REDIS_URL: the command waits in a Redis stream)', () => {
  it('a retry under the key answers the start that ran later, without a second instance or charge', async () => {
    // An API pod with no engine shard anywhere: the start waits in its partition's stream, unanswered.
    const api = await apiFixture({ config: { engine: { role: 'api', replyTimeoutMs: 500 } } });
    fixtures.push(api);
    const { account, apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('late', 'late-work'));
    const before = await balanceOf(api, account);
    const body = { bpmnProcessId: 'late', variables: { orderId: 'L-1' } };
    const unanswered = await keyedStart(api, apiKey, 'late-start', body);
    expectProblem(unanswered, 503);
    expect(unanswered.json.detail).toMatch(/same Idempotency-Key/);

    const shard = await createEngine(engineConfig(api.config.engine, { role: 'engine' }));
    shards.push(shard);
    // The shard applies the waiting start; the retry is then answered with its result.
    let started: Awaited<ReturnType<typeof keyedStart>> | undefined;
    for (let i = 0; i < 100 && started?.status !== 201; i++) {
      started = await keyedStart(api, apiKey, 'late-start', body);
      if (started.status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(started?.status, started?.text).toBe(201);
    const instances = await instancesWith(api, apiKey, 'orderId', 'L-1');
    expect(instances.map((i) => i.processInstanceKey)).toEqual([started?.json.processInstanceKey]);
    // The unanswered start was refunded and its answer is not charged: it ran free, as without a key.
    expect(await balanceOf(api, account)).toBe(before);
  }, 60_000);
});
