// A start or a job completion that gets no committed answer in time (here:
// an API-only pod with no engine shard, so no partition has a leader) is a
// 503 that says the action may still happen. A start is then not charged:
// its credit is refunded in the same ledger, and the detail says so. Neither
// answer advises retrying "with the same command key", the engine's word; a
// request with an Idempotency-Key is told to send it again with that key.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { mustDeploy, serviceProcess } from './workflow-support.ts';

let api: ApiFixture;
let account: string;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture({ config: { engine: { role: 'api', replyTimeoutMs: 300 } } });
  ({ account, apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('unanswered', 'work'));
}, 120_000);
afterAll(() => api?.close());

it('refunds a start that times out and says it may still run', async () => {
  const before = await api.service.credits.balance(account);
  const res = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'unanswered', variables: { orderId: 'T-1' } } });
  expectProblem(res, 503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.json.detail).toMatch(/may still run/);
  expect(res.json.detail).toMatch(/not charged/);
  expect(res.json.detail).not.toMatch(/command key/);
  expect(await api.service.credits.balance(account)).toBe(before);
  const [refund, charge] = (await api.service.credits.ledger(account, { limit: 2 })).items;
  expect(charge).toMatchObject({ amount: -1, reason: 'process-instance-start', reference: 'unanswered' });
  expect(refund).toMatchObject({ amount: 1, reason: 'refund: process-instance-start', reference: 'unanswered', balanceAfter: before });
});

it('answers a job completion that times out without advising a command key', async () => {
  const jobOnPartition0 = String((1n << 35n) + 1n);
  const res = await api.call('POST', `/api/v1/jobs/${jobOnPartition0}/complete`, { apiKey, json: { variables: { a: 1 } } });
  expectProblem(res, 503);
  expect(res.json.detail).toMatch(/may still be applied/);
  expect(res.json.detail).not.toMatch(/command key/);
});

it('tells a keyed request that timed out to retry with the same Idempotency-Key, and refunds a keyed start', async () => {
  const before = await api.service.credits.balance(account);
  const headers = { 'idempotency-key': 'timed-out-start' };
  const res = await api.call('POST', '/api/v1/process-instances', { apiKey, headers, json: { bpmnProcessId: 'unanswered', variables: { orderId: 'T-2' } } });
  expectProblem(res, 503);
  expect(res.json.detail).toMatch(/not charged/);
  expect(res.json.detail).toMatch(/same Idempotency-Key/);
  expect(await api.service.credits.balance(account)).toBe(before);
  const jobOnPartition0 = String((1n << 35n) + 2n);
  const job = await api.call('POST', `/api/v1/jobs/${jobOnPartition0}/complete`, { apiKey, headers, json: {} });
  expectProblem(job, 503);
  expect(job.json.detail).toMatch(/may still be applied.*same Idempotency-Key/);
});
