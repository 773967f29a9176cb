// Shared by the hostile-input tests: values Postgres cannot store, JSON text
// nested deeper than any parser-side recursion survives, a check that a
// refusal is a 400 problem naming the field and changed nothing, and a
// bystander account whose round trips (start, activate, complete) must keep
// working on every partition after each hostile request.
import { expect } from 'vitest';
import { partitionOfKey } from '../../engine/partition/index.ts';
import type { ApiFixture, CallOptions, CallResult } from './api-fixture.ts';
import { startInstance, type Json } from './workflow-support.ts';

/** Strings the API must refuse wherever a string goes. */
export const BAD_STRINGS: { label: string; value: string }[] = [
  { label: 'a NUL inside', value: 'x\u0000y' },
  { label: 'only a NUL', value: '\u0000' },
  { label: 'a lone high surrogate', value: '\ud800' },
  { label: 'a lone low surrogate', value: 'a\udc00' },
];

/** JSON text of `{"bpmnProcessId":…,"variables":{"a":[[[…]]]}}`-like bodies: `prefix` + `depth` arrays + `suffix`. */
export function nestedJson(prefix: string, depth: number, suffix: string): string {
  return prefix + '['.repeat(depth) + ']'.repeat(depth) + suffix;
}

/** Everything a refused request could have changed, as one account sees it. */
export async function accountState(api: ApiFixture, account: string, apiKey: string): Promise<Json> {
  const list = async (path: string, query: Record<string, string> = {}) => (await api.call('GET', path, { apiKey, query: { limit: '1000', ...query } })).json;
  return {
    balance: await api.service.credits.balance(account),
    ledger: (await api.service.credits.ledger(account, { limit: 1000 })).items.length,
    definitions: await list('/api/v1/process-definitions'),
    decisions: await list('/api/v1/decisions'),
    instances: await list('/api/v1/process-instances'),
    incidents: await list('/api/v1/incidents'),
    tasks: await list('/api/v1/tasks'),
    failedTasks: await list('/api/v1/tasks', { 'filter.state': 'FAILED' }),
  };
}

/** The response is a problem+json of `status` without internals, naming `field` when given. */
export function expectProblem(res: CallResult, status: number, field?: string | RegExp): void {
  expect(res.status, res.text.slice(0, 400)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
    instance: expect.any(String),
    code: expect.any(String),
  });
  expect(res.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  if (field === undefined) return;
  const fields: string[] = (res.json.errors ?? []).map((e: { field: string }) => e.field);
  if (typeof field === 'string') expect(fields, res.text.slice(0, 400)).toContain(field);
  else
    expect(
      fields.some((f) => field.test(f)),
      `${fields.join(', ')} ~ ${field}`,
    ).toBe(true);
}

export interface Bystander {
  apiKey: string;
  bpmnProcessId: string;
  jobType: string;
}

/**
 * Another account's instances start, are activated and completed on every
 * partition: whatever the last request was, no partition is stalled. Starts
 * land on random partitions, so it starts until each has had one.
 */
export async function expectEveryPartitionServes(api: ApiFixture, bystander: Bystander): Promise<void> {
  const { apiKey, bpmnProcessId, jobType } = bystander;
  const started: string[] = [];
  const hit = new Set<number>();
  while (hit.size < api.engine.partitions && started.length < 64) {
    for (const key of await Promise.all(Array.from({ length: api.engine.partitions }, () => startInstance(api, apiKey, bpmnProcessId)))) {
      started.push(key);
      hit.add(partitionOfKey(key)!);
    }
  }
  expect(hit.size).toBe(api.engine.partitions);
  const jobs: string[] = [];
  for (let polls = 0; jobs.length < started.length; polls++) {
    if (polls > 400) throw new Error(`only ${jobs.length} of ${started.length} bystander jobs were offered`);
    const res = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: jobType, maxJobsToActivate: started.length - jobs.length } });
    expect(res.status).toBe(200);
    jobs.push(...res.json.jobs.map((j: { key: string }) => j.key));
    if (res.json.jobs.length === 0) await new Promise((r) => setTimeout(r, 25));
  }
  const completions = await Promise.all(jobs.map((key) => api.call('POST', `/api/v1/jobs/${key}/complete`, { apiKey, json: { variables: { done: true } } })));
  expect(completions.map((c) => c.status)).toEqual(jobs.map(() => 204));
  for (let polls = 0; ; polls++) {
    const active = await api.call('GET', '/api/v1/process-instances', {
      apiKey,
      query: { 'filter.state': 'ACTIVE', 'filter.bpmnProcessId': bpmnProcessId, limit: 1 },
    });
    if (active.json.items.length === 0) return;
    if (polls > 400) throw new Error('bystander instances did not complete');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Sends a hostile request as `apiKey`, checks the refusal and that nothing changed, then that the bystander is still served. */
export async function refused(
  api: ApiFixture,
  who: { account: string; apiKey: string },
  bystander: Bystander,
  request: { method: string; path: string; options?: CallOptions; status?: number; field?: string | RegExp },
): Promise<CallResult> {
  const before = await accountState(api, who.account, who.apiKey);
  const res = await api.call(request.method, request.path, { apiKey: who.apiKey, ...request.options });
  expectProblem(res, request.status ?? 400, request.field);
  expect(await accountState(api, who.account, who.apiKey)).toEqual(before);
  await expectEveryPartitionServes(api, bystander);
  return res;
}
