// Case instances over real HTTP (issue #20), against real Postgres and Redis
// when DATABASE_URL / REDIS_URL are set: the claim case (a stage with two
// human tasks completed through the task routes, a user event listener, a
// process task whose child process completes, a milestone) runs to
// COMPLETED with its plan items' states and times; a start costs 1 credit
// and an Idempotency-Key replays it; cancel withdraws tasks and cancels the
// child process; a case's end is a webhook event and its start and end are
// counted in /metrics; bad input is a 4xx naming the field or the reason,
// and changes nothing.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { caseXml } from '../../engine/cmmn/testing.ts';
import { rows, webhookEventId } from '../../engine/store/index.ts';
import { OUTBOX_DELIVERIES } from '../../engine/store/testing/outbox-deliveries.ts';
import { scrape, type Scrape } from '../observability/scrape.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, balanceOf, deployXml, eventually, instanceInState, mustDeploy, type Json } from './workflow-support.ts';

const claim = readFileSync(new URL('../../examples/claim.cmmn', import.meta.url), 'utf8');
const order = readFileSync(new URL('../../examples/order.bpmn', import.meta.url), 'utf8');

let api: ApiFixture;
let account: string;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ account, apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, order);
  await mustDeploy(api, apiKey, claim, '/api/v1/case-definitions');
}, 60_000);
afterAll(() => api?.close());

async function startCase(caseDefinitionId: string, variables: Record<string, unknown> = {}, key = apiKey): Promise<string> {
  const res = await api.call('POST', '/api/v1/case-instances', { apiKey: key, json: { caseDefinitionId, variables } });
  expect(res.status, res.text).toBe(201);
  return res.json.caseInstanceKey as string;
}

async function getCase(key: string): Promise<Json> {
  const res = await api.call('GET', `/api/v1/case-instances/${key}`, { apiKey });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** The case's plan item instance of plan item `id` (the latest one). */
function item(detail: Json, id: string): Json {
  return detail.planItems.filter((p: Json) => p.planItemId === id).at(-1);
}

async function caseWhere(key: string, check: (detail: Json) => boolean, what: string): Promise<Json> {
  return eventually(async () => {
    const detail = await getCase(key);
    return check(detail) ? detail : undefined;
  }, `case ${key} ${what}`);
}

/** The open tasks of a case from the task list, by element id. */
async function tasksOf(key: string, count: number): Promise<Record<string, Json>> {
  return eventually(async () => {
    const res = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.processInstanceKey': key } });
    expect(res.status, res.text).toBe(200);
    return res.json.items.length === count ? Object.fromEntries(res.json.items.map((t: Json) => [t.elementId, t])) : undefined;
  }, `${count} tasks of case ${key}`);
}

async function act(key: string, planItemKey: string, action: string, variables?: Record<string, unknown>) {
  return api.call('POST', `/api/v1/case-instances/${key}/plan-items/${planItemKey}`, { apiKey, json: variables ? { action, variables } : { action } });
}

describe('a case over REST', () => {
  it('runs the claim case: two human tasks through the task routes, a listener, a process task whose child completes, a milestone', async () => {
    const before = await balanceOf(api, account);
    const key = await startCase('claim', { orderId: 'A1' });
    expect(await balanceOf(api, account)).toBe(before - 1);

    let detail = await getCase(key);
    expect(detail).toMatchObject({ caseInstanceKey: key, caseDefinitionId: 'claim', version: 1, state: 'ACTIVE', variables: { orderId: 'A1' } });
    expect(item(detail, 'Handling').state).toBe('ACTIVE');
    expect(item(detail, 'Review').state).toBe('ACTIVE');
    expect(item(detail, 'Manager').state).toBe('AVAILABLE');
    expect(item(detail, 'Escalate').state).toBe('AVAILABLE');
    expect(item(detail, 'Shipped').state).toBe('AVAILABLE');
    expect(item(detail, 'Review').createdAt).toMatch(/^\d{4}-/);

    // The listener occurs: the manager's task joins the review.
    expect((await act(key, item(detail, 'Escalate').planItemKey, 'trigger')).status).toBe(204);
    const tasks = await tasksOf(key, 2);
    expect(tasks.Review).toMatchObject({ processInstanceKey: key, caseInstanceKey: key, bpmnProcessId: 'claim' });
    const viaGraphql = await api.call('POST', '/api/v1/graphql', {
      apiKey,
      json: { query: `query($key: ID!) { tasks(processInstanceKey: $key) { items { elementId caseInstanceKey } } }`, variables: { key } },
    });
    expect(viaGraphql.json.data.tasks.items).toContainEqual({ elementId: 'Manager', caseInstanceKey: key });
    const manager = await api.call('GET', `/api/v1/tasks/${tasks.Manager.id}`, { apiKey });
    expect(manager.json.variables).toEqual({ orderId: 'A1' });

    let res = await api.call('POST', `/api/v1/tasks/${tasks.Manager.id}/complete`, { apiKey, json: { variables: { managerSaid: 'ok' } } });
    expect(res.status, res.text).toBe(204);
    // The waiting review is offered with the case file as the manager left it.
    const offered = await activateOne(api, apiKey, 'userTask');
    expect(offered).toMatchObject({ key: tasks.Review.id, processInstanceKey: key, variables: { orderId: 'A1', managerSaid: 'ok' } });
    res = await api.call('POST', `/api/v1/tasks/${tasks.Review.id}/complete`, { apiKey, json: { variables: { approved: true } } });
    expect(res.status, res.text).toBe(204);

    // The review approved: the process task starts the order process, whose job we complete.
    detail = await caseWhere(key, (d) => item(d, 'Ship')?.state === 'ACTIVE', 'shipping');
    const child = item(detail, 'Ship').childInstanceKey as string;
    expect(child).toMatch(/^\d+$/);
    const job = await activateOne(api, apiKey, 'ship');
    expect(job.processInstanceKey).toBe(child);
    expect(job.variables).toMatchObject({ orderId: 'A1', approved: true });
    res = await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables: { tracking: 'T-1' } } });
    expect(res.status, res.text).toBe(204);
    await instanceInState(api, apiKey, child, 'COMPLETED');

    detail = await caseWhere(key, (d) => d.state === 'COMPLETED', 'COMPLETED');
    expect(detail.variables).toEqual({ orderId: 'A1', managerSaid: 'ok', approved: true, tracking: 'T-1' });
    for (const id of ['Handling', 'Review', 'Manager', 'Ship', 'Shipped', 'claimPlan']) expect(item(detail, id).state, id).toBe('COMPLETED');
    expect(item(detail, 'Shipped').endedAt).not.toBeNull();
    expect(detail.endedAt).not.toBeNull();

    // The completed tasks are kept like a process's.
    const done = await api.call('GET', '/api/v1/completed-tasks', { apiKey, query: { 'filter.processInstanceKey': key } });
    expect(done.status, done.text).toBe(200);
    expect(done.json.items.map((t: Json) => t.elementId).sort()).toEqual(['Manager', 'Review']);

    const list = await api.call('GET', '/api/v1/case-instances', { apiKey, query: { 'filter.state': 'COMPLETED' } });
    expect(list.json.items.map((c: Json) => c.caseInstanceKey)).toContain(key);
  });

  it('replays a keyed start without a second case or charge, and a keyed plan item action or cancel with its first answer', async () => {
    const before = await balanceOf(api, account);
    const headers = { 'Idempotency-Key': 'case-start-1' };
    const first = await api.call('POST', '/api/v1/case-instances', { apiKey, headers, json: { caseDefinitionId: 'claim' } });
    const again = await api.call('POST', '/api/v1/case-instances', { apiKey, headers, json: { caseDefinitionId: 'claim' } });
    expect(first.status, first.text).toBe(201);
    expect(again.status, again.text).toBe(201);
    expect(again.json.caseInstanceKey).toBe(first.json.caseInstanceKey);
    expect(await balanceOf(api, account)).toBe(before - 1);
    const other = await api.call('POST', '/api/v1/case-instances', { apiKey, headers, json: { caseDefinitionId: 'claim', variables: { x: 1 } } });
    expect(other.status).toBe(409);

    // A keyed action or cancel sent again gets its first answer, though the case has moved on.
    const key = first.json.caseInstanceKey as string;
    const escalate = item(await getCase(key), 'Escalate').planItemKey as string;
    const trigger = () =>
      api.call('POST', `/api/v1/case-instances/${key}/plan-items/${escalate}`, { apiKey, headers: { 'Idempotency-Key': 'go' }, json: { action: 'trigger' } });
    expect((await trigger()).status).toBe(204);
    expect((await trigger()).status).toBe(204);
    expect(item(await getCase(key), 'Manager').state).toBe('ACTIVE');
    const unkeyed = await act(key, escalate, 'trigger');
    expect(unkeyed.status).toBe(409);
    const reused = await api.call('POST', `/api/v1/case-instances/${key}/plan-items/${escalate}`, {
      apiKey,
      headers: { 'Idempotency-Key': 'go' },
      json: { action: 'terminate' },
    });
    expect(reused.status).toBe(409);
    expect(reused.json.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const cancel = () => api.call('POST', `/api/v1/case-instances/${key}/cancel`, { apiKey, headers: { 'Idempotency-Key': 'stop' } });
    expect((await cancel()).status).toBe(204);
    expect((await cancel()).status).toBe(204);
    expect((await getCase(key)).state).toBe('TERMINATED');
  });

  it('cancels a case: its tasks are withdrawn and its child process is cancelled', async () => {
    const key = await startCase('claim');
    const { Review } = await tasksOf(key, 1);
    expect((await api.call('POST', `/api/v1/tasks/${Review.id}/complete`, { apiKey, json: { variables: { approved: true } } })).status).toBe(204);
    const detail = await caseWhere(key, (d) => item(d, 'Ship')?.state === 'ACTIVE', 'shipping');
    const child = item(detail, 'Ship').childInstanceKey as string;
    await instanceInState(api, apiKey, child, 'ACTIVE');

    const res = await api.call('POST', `/api/v1/case-instances/${key}/cancel`, { apiKey });
    expect(res.status, res.text).toBe(204);
    const ended = await caseWhere(key, (d) => d.state === 'TERMINATED', 'TERMINATED');
    expect(item(ended, 'Ship').state).toBe('TERMINATED');
    expect(item(ended, 'Escalate').state).toBe('TERMINATED');
    await instanceInState(api, apiKey, child, 'TERMINATED');
    await tasksOf(key, 0);

    const again = await api.call('POST', `/api/v1/case-instances/${key}/cancel`, { apiKey });
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain('TERMINATED');
  });

  it('manual activation, complete and terminate on plan items; bad input is a 4xx that changes nothing', async () => {
    const xml = caseXml(
      `<planItem id="M" definitionRef="m"><itemControl><manualActivationRule/></itemControl></planItem>
       <planItem id="G" definitionRef="g"/>
       <planItem id="L" definitionRef="l"/>
       <task id="m" isBlocking="true"/><task id="g" isBlocking="true"/><userEventListener id="l"/>`,
    );
    const deployed = await deployXml(api, apiKey, xml, 'c.cmmn', '/api/v1/case-definitions');
    expect(deployed.status, deployed.text).toBe(200);
    const key = await startCase('c');
    let detail = await getCase(key);
    const m = item(detail, 'M');
    expect(m.state).toBe('ENABLED');

    // Wrong state, wrong kind, unknown item, unknown action: each refused, naming why.
    let res = await act(key, m.planItemKey, 'complete');
    expect(res.status).toBe(409);
    expect(res.json.detail).toContain('ENABLED');
    res = await act(key, m.planItemKey, 'trigger');
    expect(res.status).toBe(409);
    expect(res.json.detail).toContain('only a user event listener');
    res = await act(key, '123456789', 'start');
    expect(res.status).toBe(404);
    expect(res.json.detail).toContain('123456789');
    res = await act(key, m.planItemKey, 'launch');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.errors)).toContain('action');
    res = await act(key, 'abc', 'start');
    expect(res.status).toBe(400);
    res = await act(key, item(detail, 'G').planItemKey, 'complete');
    expect(res.status).toBe(409);
    expect(res.json.detail).toContain('complete the task');
    res = await api.call('POST', '/api/v1/case-instances', { apiKey, json: { caseDefinitionId: 'nope' } });
    expect(res.status).toBe(404);
    expect(res.json.detail).toContain("'nope'");
    res = await api.call('POST', '/api/v1/case-instances', { apiKey, json: { variables: {} } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json.errors)).toContain('caseDefinitionId');
    res = await api.call('GET', '/api/v1/case-instances/99', { apiKey });
    expect(res.status).toBe(404);
    expect((await getCase(key)).planItems).toEqual(detail.planItems);

    // Start the enabled item, then complete its task; terminate the other; trigger the listener.
    expect((await act(key, m.planItemKey, 'start')).status).toBe(204);
    const tasks = await tasksOf(key, 2);
    expect((await api.call('POST', `/api/v1/tasks/${tasks.M.id}/complete`, { apiKey, json: {} })).status).toBe(204);
    expect((await act(key, item(detail, 'L').planItemKey, 'trigger')).status).toBe(204);
    // Nothing left but G: terminating it completes the plan (no autoComplete needed).
    expect((await act(key, item(detail, 'G').planItemKey, 'terminate')).status).toBe(204);
    detail = await caseWhere(key, (d) => d.state === 'COMPLETED', 'COMPLETED');
    expect(item(detail, 'M').state).toBe('COMPLETED');
    expect(item(detail, 'G').state).toBe('TERMINATED');
    expect(item(detail, 'L').state).toBe('COMPLETED');

    // GraphQL reads the same case, its plan items and its tasks.
    const gql = await api.call('POST', '/api/v1/graphql', {
      apiKey,
      json: {
        query: `query($key: ID!) { caseInstance(key: $key) { caseDefinitionId state planItems { planItemId state } tasks { id } }
                 caseInstances(caseDefinitionId: "c") { items { caseInstanceKey } } }`,
        variables: { key },
      },
    });
    expect(gql.status, gql.text).toBe(200);
    expect(gql.json.data.caseInstance).toMatchObject({ caseDefinitionId: 'c', state: 'COMPLETED', tasks: [] });
    expect(gql.json.data.caseInstance.planItems).toContainEqual({ planItemId: 'G', state: 'TERMINATED' });
    expect(gql.json.data.caseInstances.items).toEqual([{ caseInstanceKey: key }]);

    // Another account sees none of it.
    const { apiKey: other } = await api.newAccount();
    expect((await api.call('GET', `/api/v1/case-instances/${key}`, { apiKey: other })).status).toBe(404);
  });

  it('a timer event listener fires on the partition, and a case task runs a child case to completion', async () => {
    const inner = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" id="d2" targetNamespace="t"><case id="inner"><casePlanModel id="p2"><planItem id="X" definitionRef="h"/><humanTask id="h"/></casePlanModel></case></definitions>`;
    const outer = caseXml(
      `<planItem id="T" definitionRef="tl"/>
       <planItem id="K" definitionRef="ct"><entryCriterion sentryRef="s"/></planItem>
       <sentry id="s"><planItemOnPart sourceRef="T"><standardEvent>occur</standardEvent></planItemOnPart></sentry>
       <timerEventListener id="tl"><timerExpression>PT1S</timerExpression></timerEventListener>
       <caseTask id="ct" caseRef="inner"/>`,
    ).replace('<case id="c">', '<case id="outer">');
    for (const xml of [inner, outer]) {
      const res = await deployXml(api, apiKey, xml, 'x.cmmn', '/api/v1/case-definitions');
      expect(res.status, res.text).toBe(200);
    }
    const key = await startCase('outer', { who: 'me' });
    expect(item(await getCase(key), 'T').state).toBe('AVAILABLE');
    const waiting = await caseWhere(key, (d) => item(d, 'K')?.childInstanceKey !== null && item(d, 'K')?.state === 'ACTIVE', 'waiting on its child case');
    expect(item(waiting, 'T').state).toBe('COMPLETED');
    const childKey = item(waiting, 'K').childInstanceKey as string;
    const child = await getCase(childKey);
    expect(child).toMatchObject({ caseDefinitionId: 'inner', parentKey: key, variables: { who: 'me' } });
    const { X } = await tasksOf(childKey, 1);
    expect((await api.call('POST', `/api/v1/tasks/${X.id}/complete`, { apiKey, json: { variables: { answer: 42 } } })).status).toBe(204);
    const done = await caseWhere(key, (d) => d.state === 'COMPLETED', 'COMPLETED');
    expect(done.variables).toEqual({ who: 'me', answer: 42 });
    expect((await getCase(childKey)).state).toBe('COMPLETED');
  });

  it('a task that fails for good puts the case in INCIDENT, which takes only cancel', async () => {
    const key = await startCase('claim');
    const { Review } = await tasksOf(key, 1);
    let res = await api.call('POST', `/api/v1/jobs/${Review.id}/fail`, { apiKey, json: { retries: 1, errorMessage: 'try again' } });
    expect(res.status, res.text).toBe(204);
    expect((await getCase(key)).state).toBe('ACTIVE');
    res = await api.call('POST', `/api/v1/jobs/${Review.id}/fail`, { apiKey, json: { retries: 0, errorMessage: 'no reviewer' } });
    expect(res.status, res.text).toBe(204);
    const stuck = await caseWhere(key, (d) => d.state === 'INCIDENT', 'INCIDENT');
    expect(stuck.incidents).toEqual([
      expect.objectContaining({ type: 'JOB_NO_RETRIES', elementId: 'Review', message: expect.stringContaining('no reviewer') }),
    ]);
    const failed = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.processInstanceKey': key, 'filter.state': 'FAILED' } });
    expect(failed.json.items).toEqual([expect.objectContaining({ id: Review.id, state: 'FAILED', caseInstanceKey: key })]);
    res = await act(key, item(stuck, 'Escalate').planItemKey, 'trigger');
    expect(res.status).toBe(409);
    expect(res.json.detail).toContain('INCIDENT');
    expect((await api.call('POST', `/api/v1/case-instances/${key}/cancel`, { apiKey })).status).toBe(204);
    await caseWhere(key, (d) => d.state === 'TERMINATED', 'TERMINATED');
    await tasksOf(key, 0);
  });

  it('a process task whose process is not deployed puts the case in INCIDENT naming the element', async () => {
    const { apiKey: own } = await api.newAccount();
    const xml = caseXml('<planItem id="P" definitionRef="pt"/><processTask id="pt" processRef="nowhere"/>');
    expect((await deployXml(api, own, xml, 'orphan.cmmn', '/api/v1/case-definitions')).status).toBe(200);
    const key = await startCase('c', {}, own);
    const stuck = await eventually(async () => {
      const detail = (await api.call('GET', `/api/v1/case-instances/${key}`, { apiKey: own })).json;
      return detail.state === 'INCIDENT' ? detail : undefined;
    }, 'the case in INCIDENT');
    expect(stuck.incidents).toEqual([expect.objectContaining({ type: 'CALLED_ELEMENT_ERROR', elementId: 'P', message: expect.stringContaining("'nowhere'") })]);
  });

  it("a case's task activated with a timeout is offered again once the timeout passed, and after a retry back-off", async () => {
    const { apiKey: own } = await api.newAccount();
    const xml = caseXml('<planItem id="H" definitionRef="h"/><humanTask id="h"/>');
    expect((await deployXml(api, own, xml, 'h.cmmn', '/api/v1/case-definitions')).status).toBe(200);
    const started = await api.call('POST', '/api/v1/case-instances', { apiKey: own, json: { caseDefinitionId: 'c' } });
    const key = started.json.caseInstanceKey as string;
    const activate = () =>
      api.call('POST', '/api/v1/jobs/activate', { apiKey: own, json: { type: 'userTask', maxJobsToActivate: 1, worker: 'w', timeout: 500 } });
    const first = await eventually(async () => (await activate()).json.jobs[0], 'the task to be offered');
    expect(first.processInstanceKey).toBe(key);
    expect((await activate()).json.jobs).toEqual([]);
    const again = await eventually(async () => (await activate()).json.jobs[0], 'the task to be offered again', 10_000);
    expect(again.key).toBe(first.key);
    // Failed with a retry back-off, it waits before it is offered again.
    const failed = await api.call('POST', `/api/v1/jobs/${again.key}/fail`, { apiKey: own, json: { retries: 2, retryBackOff: 800 } });
    expect(failed.status, failed.text).toBe(204);
    expect((await activate()).json.jobs).toEqual([]);
    const third = await eventually(async () => (await activate()).json.jobs[0], 'the task to be offered after its back-off', 10_000);
    expect(third).toMatchObject({ key: first.key, retries: 2 });
    expect((await api.call('POST', `/api/v1/jobs/${third.key}/complete`, { apiKey: own, json: {} })).status).toBe(204);
    const done = await eventually(async () => {
      const res = await api.call('GET', `/api/v1/case-instances/${key}`, { apiKey: own });
      return res.json.state === 'COMPLETED' ? res.json : undefined;
    }, 'the case to complete');
    expect(done.planItems.find((p: Json) => p.planItemId === 'H').state).toBe('COMPLETED');
  });

  it("a case's tasks and incidents are webhook events, written with the change, naming the case", async () => {
    const { apiKey: own } = await api.newAccount();
    const events = ['user_task.created', 'user_task.completed', 'incident.created'];
    const hook = await api.call('POST', '/api/v1/webhooks', { apiKey: own, json: { url: 'https://93.184.216.34/hook', events } });
    expect(hook.status, hook.text).toBe(201);
    const xml = caseXml('<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="h"/><humanTask id="h"/>');
    expect((await deployXml(api, own, xml, 'h.cmmn', '/api/v1/case-definitions')).status).toBe(200);
    const key = (await api.call('POST', '/api/v1/case-instances', { apiKey: own, json: { caseDefinitionId: 'c' } })).json.caseInstanceKey as string;
    const tasks = await eventually(async () => {
      const res = await api.call('GET', '/api/v1/tasks', { apiKey: own, query: { 'filter.processInstanceKey': key } });
      return res.json.items.length === 2 ? Object.fromEntries(res.json.items.map((t: Json) => [t.elementId, t])) : undefined;
    }, 'two tasks');
    expect((await api.call('POST', `/api/v1/tasks/${tasks.A.id}/complete`, { apiKey: own, json: {} })).status).toBe(204);
    expect((await api.call('POST', `/api/v1/jobs/${tasks.B.id}/fail`, { apiKey: own, json: { retries: 0, errorMessage: 'no' } })).status).toBe(204);
    // No dispatcher runs here: the events wait in the outbox, whichever table holds them.
    const outbox = await rows<{ type: string; payload: Json }>(
      api.engine.store.db,
      sql`select type, payload from ${sql.raw(OUTBOX_DELIVERIES)} where endpoint_id = ${hook.json.id} order by id`,
    );
    const seen = outbox.map((d) => [d.type, d.payload.data.taskId ?? d.payload.data.incidentKey, d.payload.data.processInstanceKey]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['user_task.created', tasks.A.id, key],
        ['user_task.created', tasks.B.id, key],
        ['user_task.completed', tasks.A.id, key],
        ['incident.created', expect.any(String), key],
      ]),
    );
    expect(seen).toHaveLength(4);
    expect(outbox.find((d) => d.type === 'incident.created')!.payload.data).toMatchObject({
      bpmnProcessId: 'c',
      elementId: 'B',
      jobKey: tasks.B.id,
    });
  });

  it("a case's own end is a webhook event, its start and end are counted in /metrics, and an unknown type is still a 400", async () => {
    const { apiKey: own } = await api.newAccount();
    const url = 'https://93.184.216.34/hook';
    const unknown = await api.call('POST', '/api/v1/webhooks', { apiKey: own, json: { url, events: ['case_instance.started'] } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.json.errors)).toContain("unknown event type 'case_instance.started'");
    const events = ['case_instance.completed', 'case_instance.terminated'];
    const hook = await api.call('POST', '/api/v1/webhooks', { apiKey: own, json: { url, events } });
    expect(hook.status, hook.text).toBe(201);
    expect(hook.json.events).toEqual(events);
    const xml = caseXml('<planItem id="H" definitionRef="h"/><humanTask id="h"/>');
    expect((await deployXml(api, own, xml, 'h.cmmn', '/api/v1/case-definitions')).status).toBe(200);
    const before = await scrape(api.baseUrl);
    const delta = (now: Scrape, name: string, labels?: Record<string, string>) => now.value(name, labels)! - before.value(name, labels)!;
    const start = async () =>
      (await api.call('POST', '/api/v1/case-instances', { apiKey: own, json: { caseDefinitionId: 'c' } })).json.caseInstanceKey as string;
    const [done, stopped] = [await start(), await start()];
    const task = await eventually(async () => {
      const res = await api.call('GET', '/api/v1/tasks', { apiKey: own, query: { 'filter.processInstanceKey': done } });
      return res.json.items[0] as Json | undefined;
    }, 'the task');
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey: own, json: {} })).status).toBe(204);
    expect((await api.call('POST', `/api/v1/case-instances/${stopped}/cancel`, { apiKey: own })).status).toBe(204);
    const outbox = await rows<{ event_id: string; type: string; payload: Json }>(
      api.engine.store.db,
      sql`select event_id, type, payload from ${sql.raw(OUTBOX_DELIVERIES)} where endpoint_id = ${hook.json.id} order by type`,
    );
    expect(outbox.map((d) => [d.event_id, d.type, d.payload.data])).toEqual([
      [webhookEventId('case_instance.completed', done), 'case_instance.completed', { caseInstanceKey: done, caseDefinitionId: 'c', version: 1 }],
      [webhookEventId('case_instance.terminated', stopped), 'case_instance.terminated', { caseInstanceKey: stopped, caseDefinitionId: 'c', version: 1 }],
    ]);

    // A batch's tally is reported just after its publication: wait for both ends to be counted.
    const ended = (now: Scrape, state: string) => delta(now, 'orca_case_instances_ended_total', { state });
    const after = await eventually(async () => {
      const now = await scrape(api.baseUrl);
      return ended(now, 'COMPLETED') >= 1 && ended(now, 'TERMINATED') >= 1 ? now : undefined;
    }, 'the case ends to be counted');
    expect([delta(after, 'orca_case_instances_started_total'), ended(after, 'COMPLETED'), ended(after, 'TERMINATED')]).toEqual([2, 1, 1]);
    expect(delta(after, 'orca_process_instances_started_total')).toBe(0);
  });

  it('a completion that would grow the case file past its limit is refused with a 400, and the case is left as it was', async () => {
    const { apiKey: own } = await api.newAccount();
    const xml = caseXml('<planItem id="H" definitionRef="h"/><humanTask id="h"/>');
    expect((await deployXml(api, own, xml, 'h.cmmn', '/api/v1/case-definitions')).status).toBe(200);
    const big = 'x'.repeat(3 * 1024 * 1024);
    const started = await api.call('POST', '/api/v1/case-instances', { apiKey: own, json: { caseDefinitionId: 'c', variables: { big } } });
    expect(started.status, started.text).toBe(201);
    const key = started.json.caseInstanceKey as string;
    const task = await eventually(async () => {
      const res = await api.call('GET', '/api/v1/tasks', { apiKey: own, query: { 'filter.processInstanceKey': key } });
      return res.json.items[0];
    }, 'the task');
    const res = await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey: own, json: { variables: { more: 'y'.repeat(2 * 1024 * 1024) } } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.detail).toContain('case file would outgrow the limits');
    const detail = (await api.call('GET', `/api/v1/case-instances/${key}`, { apiKey: own })).json;
    expect(detail.state).toBe('ACTIVE');
    expect(Object.keys(detail.variables)).toEqual(['big']);
    expect((await api.call('POST', `/api/v1/tasks/${task.id}/complete`, { apiKey: own, json: { variables: { small: 1 } } })).status).toBe(204);
  });
});
