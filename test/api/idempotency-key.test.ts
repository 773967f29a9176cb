// The Idempotency-Key header (extension, docs/api.md) over real HTTP: the
// same key with the same request answers the first status and body and
// changes (and charges) nothing again; with a different request it is a 409
// naming the header, and nothing changes; a malformed key is a 400 naming it.
// Replays of what the engine refused the first time, keys scoped per account
// and per job, deploys, and two copies of one request in flight at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { instancesWith, keyedPost, keyedStart, ledgerRows, taskOf } from './idempotency-support.ts';
import {
  activateOne,
  approvalDmn,
  balanceOf,
  deployXml,
  instanceInState,
  multipart,
  mustDeploy,
  serviceProcess,
  startInstance,
  userTaskProcess,
} from './workflow-support.ts';

let api: ApiFixture;
let account: string;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ account, apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('idem', 'idem-work'));
  await mustDeploy(api, apiKey, userTaskProcess('idem-review'));
}, 120_000);
afterAll(() => api?.close());

const KEY_FIELD = 'headers.Idempotency-Key';

describe('starting an instance with an Idempotency-Key', () => {
  it('answers a retry with the first status and body, starts one instance and charges once', async () => {
    const before = await balanceOf(api, account);
    const body = { bpmnProcessId: 'idem', variables: { orderId: 'S-1', lines: [{ sku: 'a', qty: 2 }] } };
    const first = await keyedStart(api, apiKey, 'start-s1', body);
    expect(first.status, first.text).toBe(201);
    // The same request, its properties in another order: the same request all the same.
    const again = await keyedStart(api, apiKey, 'start-s1', { variables: { lines: [{ qty: 2, sku: 'a' }], orderId: 'S-1' }, bpmnProcessId: 'idem' });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(await instancesWith(api, apiKey, 'orderId', 'S-1')).toHaveLength(1);
    expect(await balanceOf(api, account)).toBe(before - 1);
    const charges = (await ledgerRows(api, account, 'process-instance-start')).filter((row) => row.reference === 'idem');
    expect(charges.slice(0, 1)).toEqual([expect.objectContaining({ amount: -1, reason: 'process-instance-start', balanceAfter: before - 1 })]);
  });

  it('refuses the key with a different body: 409 naming the header, nothing started or charged', async () => {
    const first = await keyedStart(api, apiKey, 'start-s2', { bpmnProcessId: 'idem', variables: { orderId: 'S-2' } });
    expect(first.status).toBe(201);
    const before = await balanceOf(api, account);
    const ledgerBefore = (await api.service.credits.ledger(account, { limit: 1 })).items[0];
    const other = await keyedStart(api, apiKey, 'start-s2', { bpmnProcessId: 'idem', variables: { orderId: 'S-2-other' } });
    expectProblem(other, 409, KEY_FIELD);
    expect(other.json.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.json.detail).toMatch(/Idempotency-Key was used before for a different request/);
    expect(await instancesWith(api, apiKey, 'orderId', 'S-2-other')).toHaveLength(0);
    expect(await balanceOf(api, account)).toBe(before);
    expect((await api.service.credits.ledger(account, { limit: 1 })).items[0]).toEqual(ledgerBefore);
    // The first request still gets its result.
    expect((await keyedStart(api, apiKey, 'start-s2', { bpmnProcessId: 'idem', variables: { orderId: 'S-2' } })).text).toBe(first.text);
  });

  it('refuses a malformed key with a 400 naming the header, before anything is charged', async () => {
    const before = await balanceOf(api, account);
    const body = { bpmnProcessId: 'idem', variables: { orderId: 'S-bad' } };
    for (const key of ['', 'k'.repeat(256), 'tab\tinside', 'caf\u00e9']) {
      const res = await keyedStart(api, apiKey, key, body);
      expectProblem(res, 400, KEY_FIELD);
      expect(res.json.detail).toMatch(/Idempotency-Key/);
    }
    // 255 printable characters, a space among them, are a key.
    expect((await keyedStart(api, apiKey, `a b${'k'.repeat(252)}`, body)).status).toBe(201);
    expect(await balanceOf(api, account)).toBe(before - 1);
    expect(await instancesWith(api, apiKey, 'orderId', 'S-bad')).toHaveLength(1);
  });

  it('replays what the engine refused the first time, even after the cause is gone, without a charge', async () => {
    const before = await balanceOf(api, account);
    const first = await keyedStart(api, apiKey, 'start-late', { bpmnProcessId: 'idem-late' });
    expectProblem(first, 404);
    await mustDeploy(api, apiKey, serviceProcess('idem-late', 'idem-work'));
    const again = await keyedStart(api, apiKey, 'start-late', { bpmnProcessId: 'idem-late' });
    expect(again.status).toBe(404);
    expect(again.text).toBe(first.text);
    expect(await balanceOf(api, account)).toBe(before);
    // A new key is a new request.
    expect((await keyedStart(api, apiKey, 'start-late-2', { bpmnProcessId: 'idem-late' })).status).toBe(201);
  });

  it('keeps keys per account: the same key of another account is its own request', async () => {
    const other = await api.newAccount();
    await mustDeploy(api, other.apiKey, serviceProcess('idem', 'idem-work'));
    const mine = await keyedStart(api, apiKey, 'shared-key', { bpmnProcessId: 'idem', variables: { orderId: 'S-mine' } });
    const theirs = await keyedStart(api, other.apiKey, 'shared-key', { bpmnProcessId: 'idem', variables: { orderId: 'S-theirs' } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.json.processInstanceKey).not.toBe(mine.json.processInstanceKey);
    expect(await instancesWith(api, other.apiKey, 'orderId', 'S-theirs')).toHaveLength(1);
    expect(await instancesWith(api, other.apiKey, 'orderId', 'S-mine')).toHaveLength(0);
  });

  it('two copies of one request in flight at once start one instance and are charged once', async () => {
    const before = await balanceOf(api, account);
    const body = { bpmnProcessId: 'idem', variables: { orderId: 'S-twins' } };
    const answers = await Promise.all([1, 2, 3].map(() => keyedStart(api, apiKey, 'start-twins', body)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(await instancesWith(api, apiKey, 'orderId', 'S-twins')).toHaveLength(1);
    expect(await balanceOf(api, account)).toBe(before - 1);
  });
});

describe('completing and failing jobs with an Idempotency-Key', () => {
  it('answers a repeated completion with its first 204 where a plain repeat gets 404', async () => {
    await startInstance(api, apiKey, 'idem', { orderId: 'J-1' });
    const job = await activateOne(api, apiKey, 'idem-work');
    const path = `/api/v1/jobs/${job.key}/complete`;
    expect((await keyedPost(api, apiKey, 'done-1', path, { variables: { shipped: true } })).status).toBe(204);
    expect((await keyedPost(api, apiKey, 'done-1', path, { variables: { shipped: true } })).status).toBe(204);
    expectProblem(await api.call('POST', path, { apiKey, json: { variables: { shipped: true } } }), 404);
    await instanceInState(api, apiKey, job.processInstanceKey, 'COMPLETED');
    // Another body under the key, or the key on fail of the same job: a different request.
    expectProblem(await keyedPost(api, apiKey, 'done-1', path, { variables: { shipped: false } }), 409, KEY_FIELD);
    expectProblem(await keyedPost(api, apiKey, 'done-1', `/api/v1/jobs/${job.key}/fail`, { retries: 0 }), 409, KEY_FIELD);
  });

  it('scopes a job command key to its job: the same key completes another job', async () => {
    await startInstance(api, apiKey, 'idem', { orderId: 'J-2' });
    await startInstance(api, apiKey, 'idem', { orderId: 'J-3' });
    const a = await activateOne(api, apiKey, 'idem-work');
    const b = await activateOne(api, apiKey, 'idem-work');
    expect((await keyedPost(api, apiKey, 'step-done', `/api/v1/jobs/${a.key}/complete`, {})).status).toBe(204);
    expect((await keyedPost(api, apiKey, 'step-done', `/api/v1/jobs/${b.key}/complete`, {})).status).toBe(204);
    await instanceInState(api, apiKey, a.processInstanceKey, 'COMPLETED');
    await instanceInState(api, apiKey, b.processInstanceKey, 'COMPLETED');
  });

  it('a failure that leaves the job in hand keeps its key: the retry changes nothing, the key on completion is a 409', async () => {
    // The job is the leader's own and still there: the key is found without the command log (results.ts).
    await startInstance(api, apiKey, 'idem', { orderId: 'J-5' });
    const job = await activateOne(api, apiKey, 'idem-work');
    const fail = `/api/v1/jobs/${job.key}/fail`;
    const retries = Number(job.retries) - 1;
    expect((await keyedPost(api, apiKey, 'fail-kept', fail, { retries, errorMessage: 'try again' })).status).toBe(204);
    expect((await keyedPost(api, apiKey, 'fail-kept', fail, { retries, errorMessage: 'try again' })).status).toBe(204);
    const again = await activateOne(api, apiKey, 'idem-work');
    expect(again.key).toBe(job.key);
    expect(again.retries).toBe(retries);
    const complete = `/api/v1/jobs/${job.key}/complete`;
    expectProblem(await keyedPost(api, apiKey, 'fail-kept', complete, {}), 409, KEY_FIELD);
    expectProblem(await keyedPost(api, apiKey, 'fail-kept', fail, { retries: 0, errorMessage: 'try again' }), 409, KEY_FIELD);
    expect((await keyedPost(api, apiKey, 'complete-kept', complete, {})).status).toBe(204);
    await instanceInState(api, apiKey, job.processInstanceKey as string, 'COMPLETED');
  });

  it('replays a failure: one incident, and the first 404 of a job that was gone stays the answer', async () => {
    await startInstance(api, apiKey, 'idem', { orderId: 'J-4' });
    const job = await activateOne(api, apiKey, 'idem-work');
    const instance = job.processInstanceKey as string;
    const path = `/api/v1/jobs/${job.key}/fail`;
    expect((await keyedPost(api, apiKey, 'fail-1', path, { retries: 0, errorMessage: 'boom' })).status).toBe(204);
    expect((await keyedPost(api, apiKey, 'fail-1', path, { retries: 0, errorMessage: 'boom' })).status).toBe(204);
    const stuck = await instanceInState(api, apiKey, instance, 'INCIDENT');
    expect(stuck.incidents).toHaveLength(1);

    const gone = String((1n << 35n) + 999_999n);
    const first = await keyedPost(api, apiKey, 'fail-gone', `/api/v1/jobs/${gone}/complete`, {});
    expectProblem(first, 404);
    expect((await keyedPost(api, apiKey, 'fail-gone', `/api/v1/jobs/${gone}/complete`, {})).text).toBe(first.text);
  });
});

describe('completing a task with an Idempotency-Key', () => {
  it('answers a retry with the first 204 after the task is gone, charged once; another body is a 409', async () => {
    const instance = await startInstance(api, apiKey, 'idem-review', { orderId: 'T-1' });
    const task = await taskOf(api, apiKey, instance);
    const before = await balanceOf(api, account);
    const path = `/api/v1/tasks/${task.id}/complete`;
    expect((await keyedPost(api, apiKey, 'review-1', path, { variables: { approved: true } })).status).toBe(204);
    expect((await keyedPost(api, apiKey, 'review-1', path, { variables: { approved: true } })).status).toBe(204);
    expect(await balanceOf(api, account)).toBe(before - 1);
    await instanceInState(api, apiKey, instance, 'COMPLETED');
    expectProblem(await keyedPost(api, apiKey, 'review-1', path, { variables: { approved: false } }), 409, KEY_FIELD);
    expect(await balanceOf(api, account)).toBe(before - 1);
    // Without the key, the task is simply gone.
    expectProblem(await api.call('POST', path, { apiKey, json: { variables: { approved: true } } }), 404);
  });
});

describe('deploying with an Idempotency-Key', () => {
  it('answers a retry with the first body (isNew included), however the model was sent; another model is a 409', async () => {
    const xml = serviceProcess('idem-deploy', 'idem-work');
    const headers = { 'idempotency-key': 'deploy-1' };
    const first = await api.call('POST', '/api/v1/process-definitions', {
      apiKey,
      body: xml,
      headers: { ...headers, 'content-type': 'application/xml' },
      query: { resourceName: 'idem.bpmn' },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.json.deployments[0]).toMatchObject({ bpmnProcessId: 'idem-deploy', version: 1, isNew: true });
    // Without the key, the same model again says it is not new.
    expect((await deployXml(api, apiKey, xml, 'idem.bpmn')).json.deployments[0].isNew).toBe(false);
    const { body, contentType } = multipart([{ field: 'file', filename: 'idem.bpmn', content: xml }]);
    const again = await api.call('POST', '/api/v1/process-definitions', { apiKey, body, headers: { ...headers, 'content-type': contentType } });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);

    const changed = serviceProcess('idem-deploy', 'idem-other-work');
    const other = await api.call('POST', '/api/v1/process-definitions', {
      apiKey,
      body: changed,
      headers: { ...headers, 'content-type': 'application/xml' },
      query: { resourceName: 'idem.bpmn' },
    });
    expectProblem(other, 409, KEY_FIELD);
    const versions = await api.call('GET', '/api/v1/process-definitions/idem-deploy', { apiKey });
    expect(versions.json.deployments).toHaveLength(1);
    // Decision deploys share the scope: the key is taken.
    const decision = await api.call('POST', '/api/v1/models', {
      apiKey,
      body: approvalDmn('idem-approval'),
      headers: { ...headers, 'content-type': 'application/xml' },
      query: { resourceName: 'idem.dmn' },
    });
    expectProblem(decision, 409, KEY_FIELD);
  });

  it('replays a decision deploy', async () => {
    const send = () =>
      api.call('POST', '/api/v1/models', {
        apiKey,
        body: approvalDmn('idem-approval-2'),
        headers: { 'idempotency-key': 'deploy-dmn', 'content-type': 'application/xml' },
        query: { resourceName: 'approval.dmn' },
      });
    const first = await send();
    expect(first.status, first.text).toBe(200);
    expect(first.json.decisions[0]).toMatchObject({ decisionId: 'idem-approval-2', version: 1, isNew: true });
    expect((await send()).text).toBe(first.text);
  });
});

describe('the OpenAPI document', () => {
  it('offers the header, tagged as an extension, with its 409, on exactly the routes that take it', async () => {
    const document = (await api.call('GET', '/api/v1/openapi.json')).json;
    const keyed: string[] = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, { parameters: { name: string }[]; responses: object }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const header = operation.parameters.find((p) => p.name === 'Idempotency-Key');
        if (header === undefined) continue;
        keyed.push(`${method.toUpperCase()} ${path}`);
        expect(header).toMatchObject({ in: 'header', required: false, 'x-orca-extension': true, schema: { maxLength: 255 } });
        expect(operation.responses).toHaveProperty('409');
      }
    }
    expect(keyed.sort()).toEqual([
      'POST /api/v1/case-definitions',
      'POST /api/v1/case-instances',
      'POST /api/v1/case-instances/{key}/cancel',
      'POST /api/v1/case-instances/{key}/plan-items/{planItemKey}',
      'POST /api/v1/jobs/{jobKey}/complete',
      'POST /api/v1/jobs/{jobKey}/error',
      'POST /api/v1/jobs/{jobKey}/fail',
      'POST /api/v1/mailbox/messages',
      'POST /api/v1/messages',
      'POST /api/v1/models',
      'POST /api/v1/process-definitions',
      'POST /api/v1/process-instances',
      'POST /api/v1/signals',
      'POST /api/v1/tasks/{id}/complete',
    ]);
  });
});
