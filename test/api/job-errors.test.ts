// A worker's BPMN error (extension, docs/api.md) over real HTTP, through the
// partition leaders: POST /api/v1/jobs/{jobKey}/error withdraws the job and
// throws the error from its task — caught by the task's boundary (variables
// set there), across a call activity whose child runs on any partition, or
// uncaught as an UNHANDLED_ERROR_EVENT incident. A gone job is a 404, a bad
// body a 400 naming the field; the Idempotency-Key header works as on
// complete and fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions, end, flow, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { keyedPost } from './idempotency-support.ts';
import { activateOne, eventually, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

const errors = '<bpmn:error id="Err_Card" errorCode="CARD_DECLINED"/>';
const cardBoundary = (host: string) =>
  `<bpmn:boundaryEvent id="onCard" attachedToRef="${host}"><bpmn:errorEventDefinition errorRef="Err_Card"/></bpmn:boundaryEvent>`;

/** start → charge → end, a CARD_DECLINED boundary on charge leading to `declined`. */
const charging = definitions(
  errors +
    '<bpmn:process id="charging" isExecutable="true">' +
    start() +
    service('charge', 'err-charge') +
    end() +
    cardBoundary('charge') +
    service('declined', 'err-declined') +
    end('e2') +
    flow('f1', 'start', 'charge') +
    flow('f2', 'charge', 'end') +
    flow('b1', 'onCard', 'declined') +
    flow('b2', 'declined', 'e2') +
    '</bpmn:process>',
);

/** A parent whose call activity (CARD_DECLINED boundary) runs `err-child`'s one task. */
const calling = definitions(
  errors +
    '<bpmn:process id="err-parent" isExecutable="true">' +
    start() +
    '<bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="err-child"/></bpmn:extensionElements></bpmn:callActivity>' +
    cardBoundary('call') +
    service('handle', 'err-parent-handle') +
    end() +
    end('e2') +
    flow('f1', 'start', 'call') +
    flow('f2', 'call', 'end') +
    flow('b1', 'onCard', 'handle') +
    flow('b2', 'handle', 'e2') +
    '</bpmn:process>' +
    '<bpmn:process id="err-child" isExecutable="true">' +
    start('cs') +
    service('ct', 'err-child-work') +
    end('ce') +
    flow('c1', 'cs', 'ct') +
    flow('c2', 'ct', 'ce') +
    '</bpmn:process>',
);

const throwError = (jobKey: string, body: unknown) => api.call('POST', `/api/v1/jobs/${jobKey}/error`, { apiKey, json: body });

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, charging);
  await mustDeploy(api, apiKey, calling);
}, 60_000);
afterAll(() => api?.close());

describe('POST /api/v1/jobs/{jobKey}/error', () => {
  it("is caught by the task's error boundary: the job is gone, the boundary's path runs with the variables", async () => {
    const key = await startInstance(api, apiKey, 'charging', { amount: 12 });
    const job = await activateOne(api, apiKey, 'err-charge');
    const res = await throwError(job.key, { errorCode: 'CARD_DECLINED', errorMessage: 'insufficient funds', variables: { reason: 'funds' } });
    expect(res.status, res.text).toBe(204);
    const handler = await activateOne(api, apiKey, 'err-declined');
    expect(handler).toMatchObject({ processInstanceKey: key, variables: { amount: 12, reason: 'funds' } });
    // The job was withdrawn: completing it, or throwing again, is a 404.
    expectProblem(await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} }), 404);
    expectProblem(await throwError(job.key, { errorCode: 'CARD_DECLINED' }), 404);
    await api.call('POST', `/api/v1/jobs/${handler.key}/complete`, { apiKey, json: {} });
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('uncaught: the instance goes to INCIDENT with UNHANDLED_ERROR_EVENT naming the code', async () => {
    const key = await startInstance(api, apiKey, 'charging');
    const job = await activateOne(api, apiKey, 'err-charge');
    expect((await throwError(job.key, { errorCode: 'NO_STOCK', errorMessage: 'sold out' })).status).toBe(204);
    const instance = await instanceInState(api, apiKey, key, 'INCIDENT');
    expect(instance.incidents).toEqual([expect.objectContaining({ type: 'UNHANDLED_ERROR_EVENT', elementId: 'charge' })]);
    expect(instance.incidents[0].message).toContain("'NO_STOCK'");
    expect(instance.incidents[0].message).toContain('sold out');
  });

  it("crosses a call activity: the parent's boundary catches the error a child's worker threw", async () => {
    const key = await startInstance(api, apiKey, 'err-parent', { orderId: 'P-1' });
    const job = await activateOne(api, apiKey, 'err-child-work');
    expect((await throwError(job.key, { errorCode: 'CARD_DECLINED', variables: { why: 'limit' } })).status).toBe(204);
    const handler = await activateOne(api, apiKey, 'err-parent-handle');
    expect(handler).toMatchObject({ processInstanceKey: key, variables: { orderId: 'P-1', why: 'limit' } });
    await instanceInState(api, apiKey, job.processInstanceKey, 'TERMINATED');
  });

  it('refuses a bad body with a 400 naming the field, and changes nothing', async () => {
    const key = await startInstance(api, apiKey, 'charging');
    const job = await activateOne(api, apiKey, 'err-charge');
    expectProblem(await throwError(job.key, {}), 400, 'body.errorCode');
    expectProblem(await throwError(job.key, { errorCode: '' }), 400, 'body.errorCode');
    expectProblem(await throwError(job.key, { errorCode: 'X'.repeat(256) }), 400, 'body.errorCode');
    expectProblem(await throwError(job.key, { errorCode: 'CARD_DECLINED', variables: [1] }), 400, 'body.variables');
    expectProblem(await throwError(job.key, { errorCode: 'CARD_DECLINED', errorMessage: 7 }), 400, 'body.errorMessage');
    expectProblem(await throwError('not-a-key', { errorCode: 'CARD_DECLINED' }), 400, 'params.jobKey');
    const detail = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    expect(detail.json).toMatchObject({ state: 'ACTIVE', incidents: [] });
    expect(detail.json.activeElements).toEqual([expect.objectContaining({ elementId: 'charge' })]);
    // The job is still there to complete.
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it("another account's job is a 404, and stays as it was", async () => {
    const key = await startInstance(api, apiKey, 'charging');
    const job = await activateOne(api, apiKey, 'err-charge');
    const other = await api.newAccount();
    const res = await api.call('POST', `/api/v1/jobs/${job.key}/error`, { apiKey: other.apiKey, json: { errorCode: 'CARD_DECLINED' } });
    expectProblem(res, 404);
    expect((await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('with an Idempotency-Key: a retry answers 204 again and throws once; another body under the key is a 409', async () => {
    const key = await startInstance(api, apiKey, 'charging', { run: 'keyed' });
    const job = await activateOne(api, apiKey, 'err-charge');
    const path = `/api/v1/jobs/${job.key}/error`;
    const body = { errorCode: 'CARD_DECLINED', variables: { attempt: 1 } };
    expect((await keyedPost(api, apiKey, 'err-1', path, body)).status).toBe(204);
    expect((await keyedPost(api, apiKey, 'err-1', path, body)).status).toBe(204);
    expectProblem(await keyedPost(api, apiKey, 'err-1', path, { errorCode: 'OTHER' }), 409, 'headers.Idempotency-Key');
    const handler = await activateOne(api, apiKey, 'err-declined');
    expect(handler.processInstanceKey).toBe(key);
    // Thrown once: one boundary path, no second handler job.
    const caught = await eventually(async () => {
      const history = await api.call('GET', `/api/v1/process-instances/${key}/history`, { apiKey });
      const items = history.json.items.filter((i: { elementId: string }) => i.elementId === 'onCard');
      return items.length > 0 ? items : undefined;
    }, 'the boundary event in the history');
    expect(caught).toHaveLength(1);
    expect(await activateOne(api, apiKey, 'err-declined', 300).catch(() => null)).toBeNull();
  });
});
