// The metrics against a known workload, read from GET /metrics over real
// HTTP (issue 15): N service instances started and their jobs activated and
// completed, one job failed into an incident, one instance cancelled, one
// user task completed, one instance through a job-based business-rule task
// and a script task, one completion of a job that is gone. Every counter
// and histogram must say exactly what was done, on PGlite and the
// in-process queues or on Postgres and Redis.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { end, flow, processXml, start } from '../../engine/runtime/testing.ts';
import { activateOne, balanceOf, eventually, instanceInState, mustDeploy, serviceProcess, startInstance, userTaskProcess } from '../api/workflow-support.ts';
import { scrape, type Scrape } from './scrape.ts';

const N = 6;
const PARTITIONS = 4;
let api: ApiFixture;
let account: string;
let apiKey: string;
let before: Scrape;
let after: Scrape;
let spent: number;

async function call(method: string, path: string, json?: unknown): Promise<number> {
  return (await api.call(method, path, { apiKey, json })).status;
}

beforeAll(async () => {
  api = await apiFixture({ config: { engine: { partitions: PARTITIONS }, metrics: { processMetrics: false } } });
  ({ account, apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('metered', 'metered-work'));
  await mustDeploy(api, apiKey, userTaskProcess('reviewed'));
  await mustDeploy(
    api,
    apiKey,
    processXml(
      'kinds',
      start() +
        '<bpmn:businessRuleTask id="rate"><bpmn:extensionElements><zeebe:taskDefinition type="rate-risk"/></bpmn:extensionElements></bpmn:businessRuleTask>' +
        '<bpmn:scriptTask id="sum" name="Sum up"/>' +
        end() +
        flow('f1', 'start', 'rate') +
        flow('f2', 'rate', 'sum') +
        flow('f3', 'sum', 'end'),
    ),
  );
  before = await scrape(api.baseUrl);
  const balance = await balanceOf(api, account);

  const keys: string[] = [];
  for (let i = 0; i < N; i++) keys.push(await startInstance(api, apiKey, 'metered'));
  const completedJobs: string[] = [];
  for (let i = 0; i < N; i++) {
    const job = await activateOne(api, apiKey, 'metered-work');
    expect(await call('POST', `/api/v1/jobs/${job.key}/complete`, { variables: { done: i } })).toBe(204);
    completedJobs.push(job.key);
  }
  for (const key of keys) await instanceInState(api, apiKey, key, 'COMPLETED');

  // One job failed with no retries left: an incident.
  const failing = await startInstance(api, apiKey, 'metered');
  const job = await activateOne(api, apiKey, 'metered-work');
  expect(await call('POST', `/api/v1/jobs/${job.key}/fail`, { retries: 0, errorMessage: 'out of stock' })).toBe(204);
  await instanceInState(api, apiKey, failing, 'INCIDENT');

  // One instance cancelled before its job was activated.
  const cancelled = await startInstance(api, apiKey, 'metered');
  await eventually(async () => ((await api.engine.queues.jobs.depth(account, 'metered-work')) > 0 ? true : undefined), 'the job to be queued');
  expect(await call('POST', `/api/v1/process-instances/${cancelled}/cancel`)).toBe(204);
  await instanceInState(api, apiKey, cancelled, 'TERMINATED');

  // One user task, completed over the tasks API.
  const reviewed = await startInstance(api, apiKey, 'reviewed');
  const task = await eventually(async () => {
    const res = await api.call('GET', '/api/v1/tasks', { apiKey });
    return res.json.items.find((t: { processInstanceKey: string }) => t.processInstanceKey === reviewed) as { id: string } | undefined;
  }, 'the user task');
  expect(await call('POST', `/api/v1/tasks/${task.id}/complete`, {})).toBe(204);
  await instanceInState(api, apiKey, reviewed, 'COMPLETED');

  // A decision job (a business-rule task with a job), then a script job.
  const kinds = await startInstance(api, apiKey, 'kinds');
  for (const type of ['rate-risk', 'script:Sum up']) {
    const next = await activateOne(api, apiKey, type);
    expect(await call('POST', `/api/v1/jobs/${next.key}/complete`, {})).toBe(204);
  }
  await instanceInState(api, apiKey, kinds, 'COMPLETED');

  // A job completed twice: the leader rejects the second (NOT_FOUND).
  expect(await call('POST', `/api/v1/jobs/${completedJobs[0]}/complete`, {})).toBe(404);

  spent = balance - (await balanceOf(api, account));
  // The last batch's tally is reported just after its publication: wait for the last command of the workload to be counted.
  after = await eventually(async () => {
    const now = await scrape(api.baseUrl);
    return delta('orca_commands_rejected_total', { reason: 'not_found' }, now) === 1 ? now : undefined;
  }, 'the rejection to be counted');
}, 120_000);
afterAll(() => api?.close());

function delta(name: string, labels: Record<string, string> = {}, end: Scrape = after): number {
  return (end.value(name, labels) ?? Number.NaN) - (before.value(name, labels) ?? 0);
}

describe('metrics of a known workload', () => {
  it('counts process instances started and ended, by end state, with their durations', () => {
    // N completed, one in incident, one cancelled, one user task instance, one through the decision and script jobs.
    expect(delta('orca_process_instances_started_total')).toBe(N + 4);
    expect(delta('orca_process_instances_ended_total', { state: 'COMPLETED' })).toBe(N + 2);
    expect(delta('orca_process_instances_ended_total', { state: 'TERMINATED' })).toBe(1);
    expect(delta('orca_process_instance_duration_seconds_count')).toBe(N + 3);
    expect(delta('orca_process_instance_duration_seconds_bucket', { le: '+Inf' })).toBe(N + 3);
    expect(delta('orca_process_instance_duration_seconds_sum')).toBeGreaterThan(0);
  });

  it('counts jobs by kind: created, activated, completed, failed, and the activation wait of each activated one', () => {
    expect(delta('orca_jobs_created_total', { job_kind: 'service' })).toBe(N + 2);
    expect(delta('orca_jobs_activated_total', { job_kind: 'service' })).toBe(N + 1);
    expect(delta('orca_jobs_completed_total', { job_kind: 'service' })).toBe(N);
    expect(delta('orca_jobs_failed_total', { job_kind: 'service' })).toBe(1);
    expect(delta('orca_job_activation_wait_seconds_count', { job_kind: 'service' })).toBe(N + 1);
    expect(delta('orca_jobs_created_total', { job_kind: 'user' })).toBe(1);
    expect(delta('orca_jobs_completed_total', { job_kind: 'user' })).toBe(1);
    // User tasks are completed over the tasks API, never activated.
    expect(delta('orca_jobs_activated_total', { job_kind: 'user' })).toBe(0);
    for (const kind of ['script', 'decision']) {
      for (const counter of ['orca_jobs_created_total', 'orca_jobs_activated_total', 'orca_jobs_completed_total'])
        expect(delta(counter, { job_kind: kind }), `${counter} ${kind}`).toBe(1);
      expect(delta('orca_job_activation_wait_seconds_count', { job_kind: kind })).toBe(1);
    }
    for (const kind of ['message', 'event']) expect(delta('orca_jobs_created_total', { job_kind: kind })).toBe(0);
  });

  it('counts the incident, and shows it open', () => {
    expect(delta('orca_incidents_created_total')).toBe(1);
    expect(after.value('orca_incidents_open')).toBe(1);
  });

  it("observes every command in the leaders' batches, and the rejection", () => {
    // Starts (N + 4), job completions (N, the decision and the script, the repeated one), the task completion, the failure, the cancel.
    const commands = N + 4 + (N + 3) + 1 + 1 + 1;
    expect(delta('orca_partition_batch_commands_sum')).toBe(commands);
    const batches = delta('orca_partition_batch_commands_count');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(commands);
    expect(delta('orca_partition_batch_duration_seconds_count')).toBe(batches);
    expect(delta('orca_commands_rejected_total', { reason: 'not_found' })).toBe(1);
    for (const reason of ['backpressure', 'timeout', 'invalid_state', 'invalid_argument']) expect(delta('orca_commands_rejected_total', { reason })).toBe(0);
  });

  it('shows every partition led here, with its pending commands, and counts each leadership', () => {
    for (let p = 0; p < PARTITIONS; p++) {
      expect(after.value('orca_partition_leader', { partition: String(p) })).toBe(1);
      expect(after.value('orca_partition_commands_pending', { partition: String(p) })).toBeGreaterThanOrEqual(0);
    }
    expect(after.all('orca_partition_leader')).toHaveLength(PARTITIONS);
    expect(after.value('orca_partition_lease_changes_total')).toBe(PARTITIONS);
  });

  it('times HTTP requests by route pattern, method and status class', () => {
    const starts = { route: '/api/v1/process-instances', method: 'POST', status_class: '2xx' };
    expect(delta('orca_http_request_duration_seconds_count', starts)).toBe(N + 4);
    const completes = { route: '/api/v1/jobs/:jobKey/complete', method: 'POST' };
    expect(delta('orca_http_request_duration_seconds_count', { ...completes, status_class: '2xx' })).toBe(N + 2);
    expect(delta('orca_http_request_duration_seconds_count', { ...completes, status_class: '4xx' })).toBe(1);
  });

  it('counts the credits charged, as the ledger does, and names the build', () => {
    expect(spent).toBeGreaterThan(0);
    expect(delta('orca_credits_charged_total')).toBe(spent);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(after.value('orca_build_info', { version })).toBe(1);
  });

  it('serves the text exposition format, unauthenticated', () => {
    expect(after.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(after.text).toMatch(/^# HELP orca_/m);
  });
});

describe('label values never come from the request', () => {
  it('labels a request no route matched `unmatched` and a bad key by its route pattern, never with the path', async () => {
    const marker = `zz${Date.now().toString(36)}`;
    expect((await api.call('GET', `/${marker}/nowhere`)).status).toBe(404);
    expect((await api.call('GET', `/api/v1/process-instances/${marker}`, { apiKey })).status).toBe(400);
    const now = await scrape(api.baseUrl);
    expect(now.text).not.toContain(marker);
    expect(now.value('orca_http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBeGreaterThanOrEqual(1);
    expect(now.value('orca_http_request_duration_seconds_count', { route: '/api/v1/process-instances/:key', method: 'GET', status_class: '4xx' })).toBe(1);
  });
});
