// Ids as long as LIMITS.maxIdLength over every route that reads them (the
// router used to cut path parameters at 100 characters: a 150-character
// process deployed and started but could not be read), and what the router
// and the HTTP parser refuse before any route runs — bad percent-encoding, a
// path segment or URL too long, an unknown route, bytes that are not HTTP —
// all as problem+json. A 401 says how to authenticate (WWW-Authenticate).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../engine/limits.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { approvalDmn, instanceInState, mustDeploy, startInstance, userTaskProcess } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
}, 120_000);
afterAll(() => api?.close());

/** An id of exactly `length` characters that is a valid XML name. */
const longId = (length: number, letter: string) => `p${letter.repeat(length - 1)}`;

describe('long ids', () => {
  for (const length of [150, LIMITS.maxIdLength]) {
    it(`a process and a decision with ${length}-character ids deploy, start and are readable on every route`, async () => {
      const id = longId(length, length === 150 ? 'a' : 'b');
      expect(id).toHaveLength(length);
      await mustDeploy(api, apiKey, userTaskProcess(id));
      const key = await startInstance(api, apiKey, id, { orderId: `L-${length}` });
      const get = async (path: string, query?: Record<string, string>) => {
        const res = await api.call('GET', path, { apiKey, query });
        expect(res.status, `${path.slice(0, 60)} → ${res.text.slice(0, 200)}`).toBe(200);
        return res;
      };
      expect((await get(`/api/v1/process-definitions/${id}`)).json).toMatchObject({ id, bpmnProcessId: id, latestVersion: 1 });
      expect((await get(`/api/v1/process-definitions/${id}/xml`)).text).toContain(`id="${id}"`);
      expect((await get(`/api/v1/process-definitions/${id}/xml`, { version: '1' })).text).toContain(`id="${id}"`);
      expect(
        (await get('/api/v1/process-instances', { 'filter.bpmnProcessId': id })).json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey),
      ).toEqual([key]);
      expect((await instanceInState(api, apiKey, key, 'ACTIVE')).bpmnProcessId).toBe(id);
      let tasks: { id: string; bpmnProcessId: string }[] = [];
      for (let i = 0; i < 400 && tasks.length === 0; i++) {
        tasks = (await get('/api/v1/tasks', { 'filter.bpmnProcessId': id })).json.items;
        if (tasks.length === 0) await new Promise((r) => setTimeout(r, 25));
      }
      expect(tasks).toHaveLength(1);
      expect((await get(`/api/v1/tasks/${tasks[0].id}`)).json.bpmnProcessId).toBe(id);
      const graphql = await api.call('POST', '/api/v1/graphql', {
        apiKey,
        json: {
          query:
            'query($id: String) { tasks(bpmnProcessId: $id) { items { bpmnProcessId } } processInstances(bpmnProcessId: $id) { items { processInstanceKey } } }',
          variables: { id },
        },
      });
      expect(graphql.json).toEqual({ data: { tasks: { items: [{ bpmnProcessId: id }] }, processInstances: { items: [{ processInstanceKey: key }] } } });

      const decisionId = longId(length, 'd');
      await mustDeploy(api, apiKey, approvalDmn(decisionId), '/api/v1/models');
      expect((await get(`/api/v1/decisions/${decisionId}`)).json).toMatchObject({ decisionId, version: 1 });
      const evaluated = await api.call('POST', `/api/v1/decisions/${decisionId}/evaluate`, { apiKey, json: { variables: { amount: 5 } } });
      expect(evaluated.status).toBe(200);
      expect(evaluated.json).toMatchObject({ decisionId, result: 'auto' });
    });
  }

  it('an id one character too long is a 400 naming the parameter or field; a far longer segment is a 414 problem', async () => {
    const tooLong = longId(LIMITS.maxIdLength + 1, 'c');
    expectProblem(await api.call('GET', `/api/v1/process-definitions/${tooLong}`, { apiKey }), 400, 'params.bpmnProcessId');
    expectProblem(await api.call('GET', `/api/v1/process-definitions/${tooLong}/xml`, { apiKey }), 400, 'params.bpmnProcessId');
    expectProblem(await api.call('GET', `/api/v1/decisions/${tooLong}`, { apiKey }), 400, 'params.decisionId');
    expectProblem(await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: tooLong } }), 400, 'body.bpmnProcessId');
    expectProblem(await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: tooLong, maxJobsToActivate: 1 } }), 400, 'body.type');
    expectProblem(await api.call('GET', `/api/v1/process-definitions/${'x'.repeat(2_000)}`, { apiKey }), 414, 'path');
    expectProblem(await api.call('GET', `/api/v1/tasks/${'1'.repeat(2_000)}`, { apiKey }), 414, 'path');
  });
});

describe('router and HTTP errors', () => {
  it('bad percent-encoding is a 400 problem', async () => {
    for (const path of ['/api/v1/process-definitions/%E0%A4%A', '/api/v1/process-definitions/%ZZ', '/api/v1/tasks/%C3%28/claim']) {
      expectProblem(await api.call('GET', path, { apiKey }), 400, 'path');
    }
  });

  it('an unknown route or method is a 404 problem', async () => {
    expectProblem(await api.call('GET', '/api/v1/nothing-here', { apiKey }), 404);
    expectProblem(await api.call('DELETE', '/api/v1/tasks', { apiKey }), 404);
    expectProblem(await api.call('GET', '/api/v1/process-definitions/a/b/c', { apiKey }), 404);
  });

  it('a URL longer than the server reads is a 431 problem', async () => {
    const res = await api.call('GET', `/api/v1/process-definitions/p?filter=${'x'.repeat(20_000)}`, { apiKey });
    expectProblem(res, 431);
    expect(res.json.code).toBe('HEADERS_TOO_LARGE');
  });

  it('bytes that are not HTTP get a 400 problem', async () => {
    const url = new URL(api.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  });
});

describe('401', () => {
  it('says how to authenticate in WWW-Authenticate', async () => {
    const unauthenticated = [
      await api.call('GET', '/api/v1/account'),
      await api.call('GET', '/api/v1/account', { apiKey: 'orca_wrong' }),
      await api.call('GET', '/api/v1/account', { headers: { authorization: 'Bearer orcat_unknown' } }),
      await api.call('POST', '/api/v1/process-instances', { json: { bpmnProcessId: 'x' } }),
      await api.call('POST', '/api/token', { json: { api_key: 'orca_unknown' } }),
    ];
    for (const res of unauthenticated) {
      expectProblem(res, 401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer realm="orca"/);
      expect(challenge).toContain('ApiKey');
      expect(challenge).toContain('X-API-Key');
    }
    expect((await api.call('GET', '/api/v1/account', { apiKey })).headers.get('www-authenticate')).toBeNull();
  });
});
