// Hostile input over real HTTP (issue 23; engine/limits.ts): a NUL or a lone
// surrogate in any string a request carries — body fields, variable values
// and names, path parameters, query strings, GraphQL arguments and
// variables, uploaded models — and JSON nested thousands deep. Each is a 400
// problem naming the field, at once: nothing is charged or changed, and
// another account's instances still start, run and complete on every
// partition afterwards (no partition was stalled by it). All of it runs
// twice: with the API and the engine in one process, and apart (an `api`
// process and an `engine` shard sharing Postgres and Redis).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture, type CallOptions } from './api-fixture.ts';
import { BAD_STRINGS, expectEveryPartitionServes, nestedJson, refused, type Bystander } from './hostile-support.ts';
import { activateOne, approvalDmn, multipart, mustDeploy, serviceProcess, startInstance, userTaskProcess } from './workflow-support.ts';

const databaseUrl = process.env.DATABASE_URL || undefined;
const redisUrl = process.env.REDIS_URL || undefined;

/** The whole class, against one topology: the API and the engine in one process, or apart (sharing Postgres and Redis). */
function hostileInput(topology: 'one process' | 'api and engine apart'): void {
  let api: ApiFixture;
  let attacker: { account: string; apiKey: string };
  let bystander: Bystander;
  let jobKey: string;
  let taskKey: string;

  beforeAll(async () => {
    api = await apiFixture({ config: { accounts: { initialCredits: 1_000_000 } }, split: topology === 'api and engine apart' });
    attacker = await api.newAccount();
    await mustDeploy(api, attacker.apiKey, serviceProcess('svc', 'work'));
    await mustDeploy(api, attacker.apiKey, userTaskProcess('human'));
    await mustDeploy(api, attacker.apiKey, approvalDmn(), '/api/v1/models');
    await startInstance(api, attacker.apiKey, 'svc', { orderId: 'A-1' });
    jobKey = (await activateOne(api, attacker.apiKey, 'work')).key;
    await startInstance(api, attacker.apiKey, 'human');
    taskKey = (await activateTask()).id;

    const other = await api.newAccount();
    bystander = { apiKey: other.apiKey, bpmnProcessId: 'bystander', jobType: 'bystander-work' };
    await mustDeploy(api, other.apiKey, serviceProcess('bystander', 'bystander-work'));
  }, 120_000);
  afterAll(() => api?.close());

  async function activateTask() {
    for (let i = 0; i < 400; i++) {
      const res = await api.call('GET', '/api/v1/tasks', { apiKey: attacker.apiKey });
      if (res.json.items.length > 0) return res.json.items[0];
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no user task');
  }

  const json = (body: unknown): CallOptions => ({ json: body });
  const raw = (text: string): CallOptions => ({ body: text, headers: { 'content-type': 'application/json' } });
  const reject = (method: string, path: string, options: CallOptions, field?: string | RegExp, status = 400) =>
    refused(api, attacker, bystander, { method, path, options, field, status });

  describe('JSON bodies: every string field', () => {
    for (const { label, value } of BAD_STRINGS) {
      it(`refuses ${label} in ids, names, free text and variables`, async () => {
        await reject('POST', '/api/v1/process-instances', json({ bpmnProcessId: value }), 'body.bpmnProcessId');
        await reject('POST', '/api/v1/process-instances', json({ bpmnProcessId: 'svc', variables: { a: value } }), 'body.variables.a');
        await reject('POST', '/api/v1/process-instances', json({ bpmnProcessId: 'svc', variables: { a: { b: ['ok', value] } } }), 'body.variables.a.b[1]');
        await reject('POST', '/api/v1/process-instances', json({ bpmnProcessId: 'svc', variables: { [`n${value}`]: 1 } }), `body.variables.n${value}`);
        await reject('POST', '/api/v1/jobs/activate', json({ type: value, maxJobsToActivate: 1 }), 'body.type');
        await reject('POST', '/api/v1/jobs/activate', json({ type: 'work', maxJobsToActivate: 1, worker: value }), 'body.worker');
        await reject('POST', `/api/v1/jobs/${jobKey}/complete`, json({ variables: { result: value } }), 'body.variables.result');
        await reject('POST', `/api/v1/jobs/${jobKey}/fail`, json({ retries: 0, errorMessage: `boom ${value}` }), 'body.errorMessage');
        await reject('POST', `/api/v1/tasks/${taskKey}/complete`, json({ variables: { approved: [value] } }), 'body.variables.approved[0]');
        await reject('POST', `/api/v1/tasks/${taskKey}/claim`, json({ assignee: value }), 'body.assignee');
        await reject('POST', `/api/v1/tasks/${taskKey}/assign`, json({ assignee: value }), 'body.assignee');
        await reject('POST', '/api/v1/decisions/approval/evaluate', json({ variables: { amount: 5, note: value } }), 'body.variables.note');
        await reject('POST', '/api/token', json({ api_key: value }), 'body.api_key');
        await reject('POST', '/api/signup', json({ email: `a${value}@example.com` }), 'body.email');
      });
    }

    it('refuses lone surrogates written as JSON escapes, which JSON.stringify would never send', async () => {
      await reject('POST', '/api/v1/process-instances', raw('{"bpmnProcessId":"\\ud800"}'), 'body.bpmnProcessId');
      await reject('POST', '/api/v1/process-instances', raw('{"bpmnProcessId":"svc","variables":{"\\udfff":1}}'), 'body.variables.\udfff');
      await reject('POST', `/api/v1/jobs/${jobKey}/complete`, raw('{"variables":{"a":"\\u0000"}}'), 'body.variables.a');
    });
  });

  describe('JSON nested deeper than a request may be', () => {
    for (const depth of [65, 10_000, 100_000]) {
      it(`refuses variables nested ${depth} deep on every route that takes them`, async () => {
        const deep = new RegExp(`^body\\.variables\\.a(\\[0\\]){${depth === 65 ? 64 : '64,66'}}$`);
        await reject('POST', '/api/v1/process-instances', raw(nestedJson('{"bpmnProcessId":"svc","variables":{"a":', depth, '}}')), deep);
        await reject('POST', `/api/v1/jobs/${jobKey}/complete`, raw(nestedJson('{"variables":{"a":', depth, '}}')), deep);
        await reject('POST', `/api/v1/tasks/${taskKey}/complete`, raw(nestedJson('{"variables":{"a":', depth, '}}')), deep);
        await reject('POST', '/api/v1/decisions/approval/evaluate', raw(nestedJson('{"variables":{"a":', depth, '}}')), deep);
      });
    }

    it('refuses deep nesting in fields that are not variables, and bodies that are only nesting', async () => {
      await reject('POST', '/api/v1/jobs/activate', raw(nestedJson('{"type":', 100_000, ',"maxJobsToActivate":1}')), /^body\.type(\[0\])+$/);
      await reject('POST', '/api/v1/process-instances', raw(nestedJson('', 100_000, '')), /^body(\[0\])+$/);
      await reject('POST', '/api/signup', raw('{"email":' + '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_001)), /^body\.email(\.a)+$/);
    });

    it('accepts variables nested exactly as deep as allowed', async () => {
      const res = await api.call('POST', '/api/v1/process-instances', {
        apiKey: attacker.apiKey,
        ...raw(nestedJson('{"bpmnProcessId":"svc","variables":{"a":', 64, '}}')),
      });
      expect(res.status, res.text).toBe(201);
      await expectEveryPartitionServes(api, bystander);
    });
  });

  describe('path parameters and query strings', () => {
    it('refuses a NUL in every path parameter', async () => {
      await reject('GET', '/api/v1/process-definitions/%00', {}, 'params.bpmnProcessId');
      await reject('GET', '/api/v1/process-definitions/a%00b/xml', {}, 'params.bpmnProcessId');
      await reject('GET', '/api/v1/decisions/%00', {}, 'params.decisionId');
      await reject('POST', '/api/v1/decisions/%00/evaluate', json({ variables: {} }), 'params.decisionId');
      await reject('GET', '/api/v1/process-instances/%00', {}, 'params.key');
      await reject('POST', '/api/v1/process-instances/%00/cancel', {}, 'params.key');
      await reject('GET', '/api/v1/incidents/%00', {}, 'params.id');
      await reject('PATCH', '/api/v1/incidents/%00', {}, 'params.id');
      await reject('GET', '/api/v1/tasks/%00', {}, 'params.id');
      await reject('POST', '/api/v1/tasks/%00/claim', json({}), 'params.id');
      await reject('POST', '/api/v1/tasks/%00/assign', json({ assignee: 'x' }), 'params.id');
      await reject('POST', '/api/v1/tasks/%00/complete', json({}), 'params.id');
      await reject('POST', '/api/v1/jobs/%00/complete', json({}), 'params.jobKey');
      await reject('POST', '/api/v1/jobs/%00/fail', json({ retries: 1 }), 'params.jobKey');
    });

    it('refuses a NUL in every query string, declared by the route or not', async () => {
      const nul = (name: string, value = '\u0000') => ({ query: { [name]: value } });
      await reject('GET', '/api/v1/tasks', nul('filter.assignee'), 'query.filter.assignee');
      await reject('GET', '/api/v1/tasks', nul('filter.bpmnProcessId'), 'query.filter.bpmnProcessId');
      await reject('GET', '/api/v1/process-instances', nul('filter.bpmnProcessId'), 'query.filter.bpmnProcessId');
      await reject('GET', '/api/v1/process-instances', nul('filter.variable', 'orderId:\u0000'), 'query.filter.variable');
      await reject('GET', '/api/v1/process-instances', nul('filter.variable', 'a\u0000:1'), 'query.filter.variable');
      for (const path of [
        '/api/v1/process-instances',
        '/api/v1/incidents',
        '/api/v1/tasks',
        '/api/v1/process-definitions',
        '/api/v1/decisions',
        '/api/v1/account/ledger',
      ]) {
        await reject('GET', path, nul('cursor', 'abc\u0000'), 'query.cursor');
      }
      await reject('GET', '/api/v1/process-definitions/svc/xml', nul('version', '1\u0000'), 'query.version');
      await reject('GET', '/api/v1/account', nul('unused'), 'query.unused');
      await reject('GET', '/api/signup/confirm', nul('token', 'orcas_\u0000'), 'query.token');
    });
  });

  describe('model uploads', () => {
    for (const path of ['/api/v1/process-definitions', '/api/v1/models']) {
      it(`${path}: a NUL in the XML or in resourceName`, async () => {
        const xml = path.endsWith('models') ? approvalDmn('nul-decision') : serviceProcess('nul-process', 'work');
        const poisoned = xml.replace('</', '<!-- \u0000 --></');
        await reject('POST', path, { body: poisoned, headers: { 'content-type': 'application/xml' }, query: { resourceName: 'x.xml' } }, 'body');
        const form = multipart([{ field: 'file', filename: 'x.xml', content: poisoned }]);
        await reject('POST', path, { body: form.body, headers: { 'content-type': form.contentType } }, 'body.file');
        await reject('POST', path, { body: xml, headers: { 'content-type': 'application/xml' }, query: { resourceName: 'x\u0000.xml' } }, 'query.resourceName');
      });
    }
  });

  describe('GraphQL', () => {
    const graphql = (body: unknown) => api.call('POST', '/api/v1/graphql', { apiKey: attacker.apiKey, json: body });

    it('refuses hostile operation variables as a 400 problem naming them', async () => {
      const mutation = 'mutation($v: JSON) { completeTask(id: "' + '1' + '", variables: $v) { id } }';
      for (const { value } of BAD_STRINGS) {
        await reject('POST', '/api/v1/graphql', json({ query: mutation, variables: { v: { a: ['ok', value] } } }), 'body.variables.v.a[1]');
        await reject('POST', '/api/v1/graphql', json({ query: `{ tasks(assignee: "x") { nextCursor } }${value}` }), 'body.query');
      }
      await reject(
        'POST',
        '/api/v1/graphql',
        raw(nestedJson(`{"query":${JSON.stringify(mutation)},"variables":{"v":{"a":`, 100_000, '}}}')),
        /^body\.variables\.v\.a(\[0\])+$/,
      );
    });

    it('answers a NUL in document arguments as INVALID_INPUT naming the argument', async () => {
      const before = await api.service.credits.balance(attacker.account);
      for (const escape of ['\\u0000', 'x\\u0000y']) {
        for (const [query, field] of [
          [`{ tasks(assignee: "${escape}") { nextCursor } }`, 'assignee'],
          [`{ tasks(bpmnProcessId: "${escape}") { nextCursor } }`, 'bpmnProcessId'],
          [`{ processInstances(bpmnProcessId: "${escape}") { nextCursor } }`, 'bpmnProcessId'],
          [`{ incidents(cursor: "${escape}") { nextCursor } }`, 'cursor'],
          [`mutation { completeTask(id: "${taskKey}", variables: {a: {b: ["${escape}"]}}) { id } }`, 'variables.a.b[0]'],
        ]) {
          const res = await graphql({ query });
          expect(res.status, res.text).toBe(200);
          expect(res.json.errors?.[0]?.extensions, res.text).toMatchObject({ code: 'INVALID_INPUT', status: 400, errors: [{ field }] });
        }
      }
      // graphql-js refuses a lone surrogate escape as a syntax error before any resolver runs.
      for (const escape of ['\\ud800', 'x\\udc00']) {
        const res = await graphql({ query: `mutation { completeTask(id: "${taskKey}", variables: {a: "${escape}"}) { id } }` });
        expect(res.status).toBe(200);
        expect(res.json.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
      }
      expect((await api.call('GET', `/api/v1/tasks/${taskKey}`, { apiKey: attacker.apiKey })).status).toBe(200);
      expect(await api.service.credits.balance(attacker.account)).toBe(before);
      await expectEveryPartitionServes(api, bystander);
    });

    it('answers documents that are a literal, not an operation, or nested thousands deep as GraphQL errors, never a 500', async () => {
      for (const query of ['1', '"x"', 'true', '[1]', '{', 'fragment f on Task { id }', 'type A { a: Int }', '{"kind":"Document","definitions":[]}']) {
        const res = await graphql({ query });
        expect(res.status, `${query} → ${res.text}`).toBe(200);
        expect(res.json.data).toBeNull();
        expect(res.json.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
      }
      for (const open of ['[', '{a:', '(']) {
        const res = await graphql({ query: `{ tasks(assignee: ${open.repeat(20_000)}) { nextCursor } }` });
        expect(res.status).toBe(200);
        expect(res.json.errors?.[0]?.message).toMatch(/deeper than \d+ levels/);
      }
      await expectEveryPartitionServes(api, bystander);
    });
  });

  describe('one hostile start among many', () => {
    it('fails only itself: the 29 valid starts of the same account are all 201', async () => {
      const before = await api.service.credits.balance(attacker.account);
      const bodies = Array.from({ length: 30 }, (_, i) => (i === 13 ? { bpmnProcessId: '\u0000' } : { bpmnProcessId: 'svc', variables: { i } }));
      const results = await Promise.all(bodies.map((body) => api.call('POST', '/api/v1/process-instances', { apiKey: attacker.apiKey, json: body })));
      expect(results.map((r) => r.status)).toEqual(bodies.map((_, i) => (i === 13 ? 400 : 201)));
      expect(await api.service.credits.balance(attacker.account)).toBe(before - 29);
      await expectEveryPartitionServes(api, bystander);
    });

    it('a charge the ledger cannot store fails alone, not the group statement it shared', async () => {
      const before = await api.service.credits.balance(attacker.account);
      // Past the API's validation, straight to the credits service: the ledger's own isolation.
      const charges = Array.from({ length: 30 }, (_, i) =>
        api.service.credits.charge(attacker.account, 1, 'isolation-test', i === 17 ? 'bad\u0000reference' : `ok-${i}`),
      );
      const settled = await Promise.allSettled(charges);
      expect(settled.map((s) => s.status)).toEqual(charges.map((_, i) => (i === 17 ? 'rejected' : 'fulfilled')));
      expect(await api.service.credits.balance(attacker.account)).toBe(before - 29);
      const ledger = (await api.service.credits.ledger(attacker.account, { limit: 29 })).items;
      expect(ledger.map((e) => e.reference).sort()).toEqual(
        charges
          .map((_, i) => `ok-${i}`)
          .filter((r) => r !== 'ok-17')
          .sort(),
      );
    });
  });
}

describe('one process', () => hostileInput('one process'));
if (databaseUrl && redisUrl) describe('api and engine apart', () => hostileInput('api and engine apart'));
else describe.skip('api and engine apart — skipped: a split topology needs DATABASE_URL and REDIS_URL', () => hostileInput('api and engine apart'));
