// Requests with an Idempotency-Key for the idempotency tests: a keyed start,
// job completion and task completion over real HTTP, and what they leave
// behind (instances holding a variable, the account's ledger).
import type { ApiFixture, CallResult } from './api-fixture.ts';
import type { Json } from './workflow-support.ts';

export function keyedStart(api: ApiFixture, apiKey: string, key: string, body: Json): Promise<CallResult> {
  return api.call('POST', '/api/v1/process-instances', { apiKey, json: body, headers: { 'idempotency-key': key } });
}

export function keyedPost(api: ApiFixture, apiKey: string, key: string, path: string, body: Json): Promise<CallResult> {
  return api.call('POST', path, { apiKey, json: body, headers: { 'idempotency-key': key } });
}

/** Instances whose root variable `name` is `value` (how a client finds its own). */
export async function instancesWith(api: ApiFixture, apiKey: string, name: string, value: string): Promise<Json[]> {
  const res = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': `${name}:${value}` } });
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
  return res.json.items;
}

/** The account's ledger rows for `reason` (refunds are `refund: <reason>`), newest first. */
export async function ledgerRows(api: ApiFixture, account: string, reason: string): Promise<Json[]> {
  const page = await api.service.credits.ledger(account, { limit: 1000 });
  return page.items.filter((row: Json) => row.reason === reason || row.reason === `refund: ${reason}`);
}

/** The open task of an instance, polling (bounded) until the engine has created it. */
export async function taskOf(api: ApiFixture, apiKey: string, instanceKey: string, ms = 10_000): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.processInstanceKey': instanceKey } });
    if (res.status !== 200) throw new Error(`tasks failed: ${res.status} ${res.text}`);
    if (res.json.items.length > 0) return res.json.items[0];
    if (Date.now() > deadline) throw new Error(`no task for instance ${instanceKey} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
