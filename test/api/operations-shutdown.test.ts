// Graceful shutdown and backpressure over real HTTP. Closing the service
// lets a long-polling activation that is in flight finish with its answer
// (here: the job that arrives while the server is closing) before the engine
// stops. An engine that cannot take more commands answers 503 problem+json
// with Retry-After: an api-role pod with no partition leader times out
// waiting for its reply, and then refuses further starts at once.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

const MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://example.com">
  <bpmn:process id="shutdown-work" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:serviceTask id="work">
      <bpmn:extensionElements><zeebe:taskDefinition type="slow-work" retries="3"/></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`;

// Each test starts its own service; PGlite's start is slow on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const fixtures: ApiFixture[] = [];
afterAll(() => Promise.allSettled(fixtures.map((f) => f.close())));

async function start(overrides: Parameters<typeof apiFixture>[0] = {}): Promise<ApiFixture> {
  const api = await apiFixture(overrides);
  fixtures.push(api);
  return api;
}

async function deploy(api: ApiFixture, apiKey: string): Promise<void> {
  const res = await api.call('POST', '/api/v1/process-definitions', {
    apiKey,
    body: MODEL,
    headers: { 'content-type': 'application/xml' },
    query: { resourceName: 'shutdown-work.bpmn' },
  });
  expect(res.status, res.text).toBe(200);
}

describe('graceful shutdown', () => {
  it('lets a long-polling activation in flight at close get its answer', async () => {
    const api = await start();
    const { account, apiKey } = await api.newAccount();
    await deploy(api, apiKey);

    const started = Date.now();
    const poll = fetch(`${api.baseUrl}/api/v1/jobs/activate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ type: 'slow-work', maxJobsToActivate: 1, requestTimeout: 30_000 }),
    });
    // Give the request time to reach its long poll before closing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closing = api.service.close();
    // The engine is still up while the server drains: a job arriving now wakes the poll.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await api.engine.startInstance(account, 'shutdown-work', { n: 1 });

    const response = await poll;
    // Woken by the job, well before its 30 s timeout.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    const body = (await response.json()) as { jobs: { type: string; variables: Record<string, unknown> }[] };
    expect(body.jobs).toHaveLength(1);
    expect(body.jobs[0]).toMatchObject({ type: 'slow-work', variables: { n: 1 } });
    // close() does not sit out the keep-alive timeout (72 s) of the connection that carried the answer.
    const answered = Date.now();
    await closing;
    expect(Date.now() - answered).toBeLessThan(20_000);

    // Closed means closed: nothing answers any more.
    await expect(fetch(`${api.baseUrl}/healthz`)).rejects.toThrow();
  });
});

describe('backpressure', () => {
  it('answers 503 problem+json with Retry-After when no leader commits, then refuses at once', async () => {
    const api = await start({ config: { engine: { role: 'api', partitions: 1, maxPendingCommands: 0, replyTimeoutMs: 300 } } });
    const { apiKey } = await api.newAccount();
    await deploy(api, apiKey);

    // Nobody leads the partition: the start waits for its reply, then times out (retryable).
    const timedOut = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'shutdown-work' } });
    expect(timedOut.status).toBe(503);
    expect(timedOut.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(timedOut.headers.get('retry-after')).toBe('1');
    expect(timedOut.json).toMatchObject({ status: 503, code: 'UNAVAILABLE', instance: '/api/v1/process-instances' });

    // Its command is still waiting, more than maxPendingCommands (0): refused before queueing anything.
    const before = Date.now();
    const refused = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'shutdown-work' } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toMatchObject({ code: 'UNAVAILABLE' });
    expect(refused.json.detail).toMatch(/commands waiting/);
    expect(Date.now() - before).toBeLessThan(300);
  });
});
