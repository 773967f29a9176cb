// Bad input over real HTTP (DESIGN §5): wrong types, missing fields,
// malformed and unknown keys, foreign cursors, oversized bodies, invalid XML
// and injection-shaped filters. Each is a 4xx problem+json that names the
// failing field, and nothing changes: counts and balances are compared
// before and after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture, type CallOptions } from './api-fixture.ts';
import {
  activateOne,
  balanceOf,
  deployMultipart,
  deployXml,
  multipart,
  mustDeploy,
  serviceProcess,
  startInstance,
  userTaskProcess,
  type Json,
} from './workflow-support.ts';

let api: ApiFixture;
let account: string;
let apiKey: string;
let activeKey: string;
let jobKey: string;

const MALFORMED_KEYS = ['abc', '-1', '123456789012345678901234567890', '1.5', '0x10', '9223372036854775808', '%20'];
const UNKNOWN_KEY = '4611686018427387904';

/** Everything a bad request could have changed, as this account sees it. */
async function state(): Promise<Json> {
  const list = async (path: string, query: Record<string, string> = {}) => (await api.call('GET', path, { apiKey, query: { limit: '1000', ...query } })).json;
  return {
    balance: await balanceOf(api, account),
    definitions: await list('/api/v1/process-definitions'),
    instances: await list('/api/v1/process-instances'),
    incidents: await list('/api/v1/incidents'),
    tasks: await list('/api/v1/tasks', { 'filter.state': 'CREATED' }),
    decisions: await list('/api/v1/decisions'),
    active: (await api.call('GET', `/api/v1/process-instances/${activeKey}`, { apiKey })).json,
  };
}

beforeAll(async () => {
  api = await apiFixture();
  ({ account, apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, serviceProcess('valid', 'valid-work'));
  await mustDeploy(api, apiKey, userTaskProcess('human'));
  activeKey = await startInstance(api, apiKey, 'valid', { orderId: 'V-1' });
  jobKey = (await activateOne(api, apiKey, 'valid-work')).key;
  await startInstance(api, apiKey, 'human');
}, 60_000);
afterAll(() => api?.close());

/** Sends the request and checks: the status, problem+json, the named field, and no change at all. */
async function rejects(method: string, path: string, options: CallOptions, status: number, field?: string): Promise<Json> {
  const before = await state();
  const res = await api.call(method, path, { apiKey, ...options });
  expect(res.status, `${method} ${path} → ${res.text.slice(0, 300)}`).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String), code: expect.any(String) });
  expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  if (field !== undefined)
    expect(
      res.json.errors?.map((e: { field: string }) => e.field),
      res.text,
    ).toContain(field);
  expect(await state()).toEqual(before);
  return res.json;
}

describe('starting instances', () => {
  it('missing, empty or mistyped bpmnProcessId', async () => {
    await rejects('POST', '/api/v1/process-instances', { json: {} }, 400, 'body.bpmnProcessId');
    await rejects('POST', '/api/v1/process-instances', { json: { bpmnProcessId: '' } }, 400, 'body.bpmnProcessId');
    await rejects('POST', '/api/v1/process-instances', { json: { bpmnProcessId: 42 } }, 400, 'body.bpmnProcessId');
    await rejects('POST', '/api/v1/process-instances', { json: { bpmnProcessId: ['valid'] } }, 400, 'body.bpmnProcessId');
  });

  it('variables that are not an object', async () => {
    for (const variables of [[1, 2], 'a=1', 7, null]) {
      await rejects('POST', '/api/v1/process-instances', { json: { bpmnProcessId: 'valid', variables } }, 400, 'body.variables');
    }
  });

  it('a body that is not JSON, or not an object', async () => {
    await rejects('POST', '/api/v1/process-instances', { body: '{"bpmnProcessId": "valid"', headers: { 'content-type': 'application/json' } }, 400, 'body');
    await rejects('POST', '/api/v1/process-instances', { json: ['valid'] }, 400);
    await rejects('POST', '/api/v1/process-instances', { json: 'valid' }, 400);
  });

  it('a 10 MB body is 413', async () => {
    const huge = { bpmnProcessId: 'valid', variables: { blob: 'x'.repeat(10 * 1024 * 1024 + 10) } };
    await rejects('POST', '/api/v1/process-instances', { json: huge }, 413);
  });
});

describe('jobs', () => {
  it('activate: missing or mistyped type and maxJobsToActivate, out-of-range values', async () => {
    const path = '/api/v1/jobs/activate';
    await rejects('POST', path, { json: { maxJobsToActivate: 1 } }, 400, 'body.type');
    await rejects('POST', path, { json: { type: '', maxJobsToActivate: 1 } }, 400, 'body.type');
    await rejects('POST', path, { json: { type: 7, maxJobsToActivate: 1 } }, 400, 'body.type');
    await rejects('POST', path, { json: { type: 'valid-work' } }, 400, 'body.maxJobsToActivate');
    for (const max of [0, -1, 1001, 1.5, '5', null]) {
      await rejects('POST', path, { json: { type: 'valid-work', maxJobsToActivate: max } }, 400, 'body.maxJobsToActivate');
    }
    await rejects('POST', path, { json: { type: 'valid-work', maxJobsToActivate: 1, requestTimeout: 60_001 } }, 400, 'body.requestTimeout');
    await rejects('POST', path, { json: { type: 'valid-work', maxJobsToActivate: 1, requestTimeout: -5 } }, 400, 'body.requestTimeout');
    await rejects('POST', path, { json: { type: 'valid-work', maxJobsToActivate: 1, worker: 12 } }, 400, 'body.worker');
  });

  it('complete and fail: malformed keys are 400 on params.jobKey; an unknown key is 404', async () => {
    for (const key of MALFORMED_KEYS) {
      await rejects('POST', `/api/v1/jobs/${key}/complete`, { json: {} }, 400, 'params.jobKey');
      await rejects('POST', `/api/v1/jobs/${key}/fail`, { json: { retries: 1 } }, 400, 'params.jobKey');
    }
    await rejects('POST', `/api/v1/jobs/${UNKNOWN_KEY}/complete`, { json: {} }, 404);
    await rejects('POST', `/api/v1/jobs/${UNKNOWN_KEY}/fail`, { json: { retries: 0 } }, 404);
  });

  it('complete and fail: mistyped variables, missing or negative retries', async () => {
    await rejects('POST', `/api/v1/jobs/${jobKey}/complete`, { json: { variables: [1] } }, 400, 'body.variables');
    await rejects('POST', `/api/v1/jobs/${jobKey}/complete`, { json: { variables: 'x' } }, 400, 'body.variables');
    await rejects('POST', `/api/v1/jobs/${jobKey}/fail`, { json: {} }, 400, 'body.retries');
    await rejects('POST', `/api/v1/jobs/${jobKey}/fail`, { json: { retries: -1 } }, 400, 'body.retries');
    await rejects('POST', `/api/v1/jobs/${jobKey}/fail`, { json: { retries: '2' } }, 400, 'body.retries');
    await rejects('POST', `/api/v1/jobs/${jobKey}/fail`, { json: { retries: 1.5 } }, 400, 'body.retries');
    await rejects('POST', `/api/v1/jobs/${jobKey}/fail`, { json: { retries: 1, errorMessage: 5 } }, 400, 'body.errorMessage');
  });
});

describe('keys in paths', () => {
  it('malformed keys are 400 naming the parameter; unknown ones are 404', async () => {
    for (const key of MALFORMED_KEYS) {
      await rejects('GET', `/api/v1/process-instances/${key}`, {}, 400, 'params.key');
      await rejects('POST', `/api/v1/process-instances/${key}/cancel`, {}, 400, 'params.key');
      await rejects('GET', `/api/v1/incidents/${key}`, {}, 400, 'params.id');
      await rejects('PATCH', `/api/v1/incidents/${key}`, {}, 400, 'params.id');
      await rejects('GET', `/api/v1/tasks/${key}`, {}, 400, 'params.id');
      await rejects('POST', `/api/v1/tasks/${key}/claim`, {}, 400, 'params.id');
      await rejects('POST', `/api/v1/tasks/${key}/assign`, { json: { assignee: 'x' } }, 400, 'params.id');
      await rejects('POST', `/api/v1/tasks/${key}/complete`, { json: {} }, 400, 'params.id');
    }
    await rejects('GET', `/api/v1/process-instances/${UNKNOWN_KEY}`, {}, 404);
    await rejects('POST', `/api/v1/process-instances/${UNKNOWN_KEY}/cancel`, {}, 404);
    await rejects('GET', `/api/v1/incidents/${UNKNOWN_KEY}`, {}, 404);
    await rejects('PATCH', `/api/v1/incidents/${UNKNOWN_KEY}`, {}, 404);
    await rejects('GET', `/api/v1/tasks/${UNKNOWN_KEY}`, {}, 404);
    await rejects('POST', `/api/v1/tasks/${UNKNOWN_KEY}/claim`, {}, 404);
    await rejects('POST', `/api/v1/tasks/${UNKNOWN_KEY}/assign`, { json: { assignee: 'x' } }, 404);
    await rejects('POST', `/api/v1/tasks/${UNKNOWN_KEY}/complete`, { json: {} }, 404);
    // A job key is not a task unless its job is a user task.
    await rejects('GET', `/api/v1/tasks/${jobKey}`, {}, 404);
    await rejects('POST', `/api/v1/tasks/${jobKey}/complete`, { json: {} }, 404);
  });

  it('task bodies: assignee of the wrong type or missing', async () => {
    const task = (await api.call('GET', '/api/v1/tasks', { apiKey })).json.items[0];
    await rejects('POST', `/api/v1/tasks/${task.id}/assign`, { json: {} }, 400, 'body.assignee');
    await rejects('POST', `/api/v1/tasks/${task.id}/assign`, { json: { assignee: 5 } }, 400, 'body.assignee');
    await rejects('POST', `/api/v1/tasks/${task.id}/assign`, { json: { assignee: '' } }, 400, 'body.assignee');
    await rejects('POST', `/api/v1/tasks/${task.id}/claim`, { json: { assignee: ['a'] } }, 400, 'body.assignee');
    await rejects('POST', `/api/v1/tasks/${task.id}/complete`, { json: { variables: [] } }, 400, 'body.variables');
  });
});

describe('list queries', () => {
  it('bad limit, foreign cursor, unknown state and malformed variable filter', async () => {
    for (const path of ['/api/v1/process-instances', '/api/v1/incidents', '/api/v1/tasks', '/api/v1/process-definitions', '/api/v1/decisions']) {
      for (const limit of ['0', '-3', 'abc', '1001', '2.5']) await rejects('GET', path, { query: { limit } }, 400, 'query.limit');
      await rejects('GET', path, { query: { cursor: 'not-a-cursor' } }, 400, 'query.cursor');
    }
    await rejects(
      'GET',
      '/api/v1/process-instances',
      { query: { cursor: Buffer.from(JSON.stringify({ p: '1 or 1=1' })).toString('base64url') } },
      400,
      'query.cursor',
    );
    await rejects('GET', '/api/v1/process-instances', { query: { 'filter.state': 'BOGUS' } }, 400, 'query.filter.state');
    await rejects('GET', '/api/v1/process-instances', { query: { 'filter.state': "INCIDENT' or '1'='1" } }, 400, 'query.filter.state');
    await rejects('GET', '/api/v1/process-instances', { query: { 'filter.variable': 'no-colon' } }, 400, 'query.filter.variable');
    await rejects('GET', '/api/v1/process-instances', { query: { 'filter.variable': ':value-without-name' } }, 400, 'query.filter.variable');
    await rejects('GET', '/api/v1/incidents', { query: { 'filter.state': 'CLOSED' } }, 400, 'query.filter.state');
    await rejects('GET', '/api/v1/incidents', { query: { 'filter.processInstanceKey': 'abc' } }, 400, 'query.filter.processInstanceKey');
    await rejects('GET', '/api/v1/tasks', { query: { 'filter.assigned': 'maybe' } }, 400, 'query.filter.assigned');
  });

  it('injection-shaped filter values are plain values: they match nothing and change nothing', async () => {
    const before = await state();
    for (const value of ["x:' or 1=1 --", "orderId:V-1' or '1'='1", 'orderId:"}]) or true; --', "x:'; drop table instances; --", 'x:\\u0000']) {
      const res = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': value } });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ items: [], nextCursor: null });
    }
    const sneaky = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.bpmnProcessId': "valid' or '1'='1" } });
    expect(sneaky.json.items).toEqual([]);
    expect(await state()).toEqual(before);
    // The real value still matches.
    const real = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': 'orderId:V-1' } });
    expect(real.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey)).toEqual([activeKey]);
  });
});

describe('model uploads', () => {
  for (const path of ['/api/v1/process-definitions', '/api/v1/models']) {
    it(`${path}: invalid XML, empty bodies, missing resourceName, wrong media type, wrong part`, async () => {
      await rejects(
        'POST',
        path,
        { body: '<definitions><unclosed>', headers: { 'content-type': 'application/xml' }, query: { resourceName: 'x.xml' } },
        400,
        'body',
      );
      await rejects('POST', path, { body: 'not xml at all', headers: { 'content-type': 'application/xml' }, query: { resourceName: 'x.xml' } }, 400, 'body');
      await rejects('POST', path, { body: '   ', headers: { 'content-type': 'application/xml' }, query: { resourceName: 'x.xml' } }, 400, 'body');
      await rejects('POST', path, { body: serviceProcess('nameless', 't'), headers: { 'content-type': 'application/xml' } }, 400, 'query.resourceName');
      await rejects('POST', path, { body: serviceProcess('plain', 't'), headers: { 'content-type': 'text/plain' }, query: { resourceName: 'x.bpmn' } }, 415);
      await rejects('POST', path, { json: { xml: serviceProcess('json', 't') } }, 415);
      await rejects('POST', path, {}, 415);
      const wrongPart = multipart([{ field: 'model', filename: 'x.bpmn', content: serviceProcess('wrongpart', 't') }]);
      await rejects('POST', path, { body: wrongPart.body, headers: { 'content-type': wrongPart.contentType } }, 400, 'body.file');
      const noFile = multipart([{ field: 'file', content: 'just a field' }]);
      await rejects('POST', path, { body: noFile.body, headers: { 'content-type': noFile.contentType } }, 400, 'body.file');
      const garbage = multipart([{ field: 'file', filename: 'x.bpmn', content: '<<<>>>' }]);
      await rejects('POST', path, { body: garbage.body, headers: { 'content-type': garbage.contentType } }, 400, 'body.file');
      await rejects('POST', path, { body: 'garbage', headers: { 'content-type': 'multipart/form-data' } }, 400, 'body');
      await rejects('POST', path, { body: 'garbage', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }, 400, 'body');
      const empty = multipart([{ field: 'file', filename: 'x.bpmn', content: '' }]);
      await rejects('POST', path, { body: empty.body, headers: { 'content-type': empty.contentType } }, 400, 'body.file');
    });

    it(`${path}: a 10 MB model is 413, raw or multipart`, async () => {
      const huge = `<?xml version="1.0"?><!-- ${'x'.repeat(10 * 1024 * 1024 + 10)} --><definitions/>`;
      await rejects('POST', path, { body: huge, headers: { 'content-type': 'application/xml' }, query: { resourceName: 'huge.xml' } }, 413);
      const before = await state();
      const res = await deployMultipart(api, apiKey, huge, 'huge.xml', path);
      expect(res.status).toBe(413);
      expect(res.json.code).toBe('PAYLOAD_TOO_LARGE');
      expect(await state()).toEqual(before);
    });
  }

  it('a BPMN model on the DMN route and the other way round are refused', async () => {
    await rejects(
      'POST',
      '/api/v1/models',
      { body: serviceProcess('p', 't'), headers: { 'content-type': 'application/xml' }, query: { resourceName: 'p.bpmn' } },
      400,
      'body',
    );
    const res = await deployXml(api, apiKey, '<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d" namespace="n"/>', 'd.dmn');
    expect(res.status).toBe(400);
  });

  it('a resourceName that is too long or has control characters', async () => {
    await rejects(
      'POST',
      '/api/v1/process-definitions',
      { body: serviceProcess('named', 't'), headers: { 'content-type': 'application/xml' }, query: { resourceName: 'n'.repeat(300) } },
      400,
      'query.resourceName',
    );
    await rejects(
      'POST',
      '/api/v1/process-definitions',
      { body: serviceProcess('named', 't'), headers: { 'content-type': 'application/xml' }, query: { resourceName: 'a\u0001b' } },
      400,
      'query.resourceName',
    );
  });
});

describe('decisions', () => {
  it('evaluate: variables of the wrong type; XML version of an unknown process', async () => {
    await rejects('POST', '/api/v1/decisions/whatever/evaluate', { json: { variables: [1] } }, 400, 'body.variables');
    await rejects('GET', '/api/v1/process-definitions/valid/xml', { query: { version: 'abc' } }, 400, 'query.version');
    await rejects('GET', '/api/v1/process-definitions/valid/xml', { query: { version: '0' } }, 400, 'query.version');
  });
});

describe('authentication', () => {
  it('no key or a wrong key is 401 and changes nothing', async () => {
    await rejects('POST', '/api/v1/process-instances', { apiKey: undefined, json: { bpmnProcessId: 'valid' } }, 401);
    await rejects('POST', '/api/v1/process-instances', { apiKey: 'orca_wrong', json: { bpmnProcessId: 'valid' } }, 401);
    await rejects('POST', `/api/v1/jobs/${jobKey}/complete`, { apiKey: 'orca_wrong', json: {} }, 401);
  });
});
