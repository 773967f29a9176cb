// A case over REST across a leader handover, with the API in a pod of its
// own and the partitions led by engine shards (a scaled-out install; needs
// DATABASE_URL and REDIS_URL): a case half-way through its stage when every
// partition changes leader finishes on the new leaders — the task its
// worker holds is completed there, the listener triggers, the new task is
// offered, the child process runs — and nothing is there twice.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, eventually, instanceInState, mustDeploy, type Json } from './workflow-support.ts';

const onRealServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const claim = readFileSync(new URL('../../examples/claim.cmmn', import.meta.url), 'utf8');
const order = readFileSync(new URL('../../examples/order.bpmn', import.meta.url), 'utf8');

describe.skipIf(!onRealServices)('a case across a leader handover (needs DATABASE_URL and REDIS_URL)', () => {
  let api: ApiFixture;
  let apiKey: string;

  beforeAll(async () => {
    api = await apiFixture({ split: true });
    ({ apiKey } = await api.newAccount());
    await mustDeploy(api, apiKey, order);
    await mustDeploy(api, apiKey, claim, '/api/v1/case-definitions');
  }, 60_000);
  afterAll(() => api?.close());

  const getCase = async (key: string): Promise<Json> => (await api.call('GET', `/api/v1/case-instances/${key}`, { apiKey })).json;
  const item = (detail: Json, id: string): Json => detail.planItems.find((p: Json) => p.planItemId === id);

  it('finishes on the new leaders with nothing lost or doubled', async () => {
    const started = await api.call('POST', '/api/v1/case-instances', { apiKey, json: { caseDefinitionId: 'claim', variables: { orderId: 'H1' } } });
    expect(started.status, started.text).toBe(201);
    const key = started.json.caseInstanceKey as string;
    const review = await activateOne(api, apiKey, 'userTask');
    expect(review.processInstanceKey).toBe(key);

    await api.handOver();

    // The listener brings in the manager, offered by the new leader; the review stays with its worker
    // (activated without a timeout, as SPEC.md has it), who completes it on the new leader.
    const escalate = item(await getCase(key), 'Escalate').planItemKey as string;
    const trigger = await api.call('POST', `/api/v1/case-instances/${key}/plan-items/${escalate}`, { apiKey, json: { action: 'trigger' } });
    expect(trigger.status, trigger.text).toBe(204);
    const manager = await activateOne(api, apiKey, 'userTask');
    expect(manager).toMatchObject({ elementId: 'Manager', processInstanceKey: key, variables: { orderId: 'H1' } });
    for (const [job, variables] of [
      [manager, {}],
      [review, { approved: true }],
    ] as const) {
      const res = await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables } });
      expect(res.status, res.text).toBe(204);
    }
    const ship = await activateOne(api, apiKey, 'ship');
    expect((await api.call('POST', `/api/v1/jobs/${ship.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, ship.processInstanceKey, 'COMPLETED');

    const done = await eventually(async () => {
      const detail = await getCase(key);
      return detail.state === 'COMPLETED' ? detail : undefined;
    }, 'the case to complete');
    expect(done.planItems).toHaveLength(7);
    expect(done.planItems.every((p: Json) => p.state === 'COMPLETED')).toBe(true);
    const completed = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { 'filter.processInstanceKey': key } });
    expect(completed.json.items.map((t: Json) => t.elementId).sort()).toEqual(['Manager', 'Review']);
    const children = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.parentProcessInstanceKey': key } });
    expect(children.json.items).toHaveLength(1);
  }, 60_000);
});
