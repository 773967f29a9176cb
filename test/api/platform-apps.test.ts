// Platform apps over real HTTP (api/routes/platform.ts), on Postgres and
// Redis when DATABASE_URL / REDIS_URL are set, else PGlite: an account
// registers an app with its API key and gets the app token once; the app
// reads its registration, rotates its token and unregisters with it, and
// that token opens nothing else — nor does an account key open the app's
// routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await apiFixture();
});
afterAll(() => api.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function registered(name = 'crm') {
  const { account, apiKey } = await api.newAccount();
  const response = await api.call('POST', '/api/v1/platform/register', { apiKey, json: { name } });
  expect(response.status).toBe(201);
  return { account, apiKey, app: response.json as { appId: string; token: string; name: string; account: string } };
}

describe('platform apps', () => {
  it('register answers the app token once; the app reads its registration with it; only the hash is stored', async () => {
    const { account, app } = await registered('billing bridge');
    expect(app).toMatchObject({ appId: expect.stringMatching(/^app_[0-9a-f]{24}$/), account, name: 'billing bridge', rotatedAt: null });
    expect(app.token).toMatch(/^orcaap_[A-Za-z0-9_-]{43}$/);
    const own = await api.call('GET', '/api/v1/platform/app', { headers: bearer(app.token) });
    expect(own.status).toBe(200);
    expect(own.json).toEqual({ appId: app.appId, account, name: 'billing bridge', createdAt: expect.any(String), rotatedAt: null });
    expect(own.json.token).toBeUndefined();
    const stored = await api.engine.store.db.execute(`select * from platform_apps where id = '${app.appId}'`);
    expect(JSON.stringify(stored)).not.toContain(app.token);
  });

  it('a bearer token minted from the key registers too; no credential or a bad name does not', async () => {
    const { apiKey } = await api.newAccount();
    const minted = (await api.call('POST', '/api/token', { json: { api_key: apiKey } })).json.access_token as string;
    expect((await api.call('POST', '/api/v1/platform/register', { headers: bearer(minted), json: { name: 'via token' } })).status).toBe(201);
    const anonymous = await api.call('POST', '/api/v1/platform/register', { json: { name: 'x' } });
    expect(anonymous.status).toBe(401);
    for (const [json, field] of [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(101) }, 'body.name'],
      [{ name: 7 }, 'body.name'],
      [{ name: 'bell\u0007' }, 'body.name'],
    ] as const) {
      const response = await api.call('POST', '/api/v1/platform/register', { apiKey, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.json).toMatchObject({ code: 'INVALID_INPUT', errors: [expect.objectContaining({ field })] });
    }
  });

  it('an app token works on its own routes and nowhere else', async () => {
    const { app } = await registered();
    const elsewhere: [string, string][] = [
      ['GET', '/api/v1/process-instances'],
      ['GET', '/api/v1/process-definitions'],
      ['POST', '/api/v1/jobs/activate'],
      ['GET', '/api/v1/account'],
      ['POST', '/api/v1/platform/register'],
      ['GET', '/api/v1/mailbox/messages'],
      ['POST', '/api/keys/rotate'],
    ];
    for (const [method, path] of elsewhere) {
      for (const headers of [bearer(app.token), { 'x-api-key': app.token }]) {
        const response = await api.call(method, path, { headers, json: method === 'POST' ? { name: 'x', type: 't', maxJobsToActivate: 1 } : undefined });
        expect(response.status, `${method} ${path}`).toBe(401);
      }
    }
    expect((await api.call('GET', '/api/v1/platform/app', { headers: bearer(app.token) })).status).toBe(200);
  });

  it("an account key (any way it is sent) and an agent token are refused on the app's routes", async () => {
    const { apiKey, app } = await registered();
    const { token: agentToken } = await api.service.agents.register({ apiKey, name: 'agent' });
    for (const headers of [bearer(apiKey), { 'x-api-key': apiKey }, bearer(agentToken), {}] as Record<string, string>[]) {
      for (const [method, path] of [
        ['GET', '/api/v1/platform/app'],
        ['POST', '/api/v1/platform/app/rotate'],
        ['DELETE', '/api/v1/platform/app'],
      ]) {
        const response = await api.call(method, path, { headers, query: { api_key: apiKey } });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="orca-platform-apps"');
      }
    }
    expect((await api.call('GET', '/api/v1/platform/app', { headers: bearer(app.token) })).status).toBe(200);
  });

  it('rotate answers a new token once; the old one is refused at once, though just used', async () => {
    const { app } = await registered();
    expect((await api.call('GET', '/api/v1/platform/app', { headers: bearer(app.token) })).status).toBe(200);
    const rotated = await api.call('POST', '/api/v1/platform/app/rotate', { headers: bearer(app.token) });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ appId: app.appId, token: expect.stringMatching(/^orcaap_/), rotatedAt: expect.any(String) });
    expect(rotated.json.token).not.toBe(app.token);
    expect((await api.call('GET', '/api/v1/platform/app', { headers: bearer(app.token) })).status).toBe(401);
    expect((await api.call('POST', '/api/v1/platform/app/rotate', { headers: bearer(app.token) })).status).toBe(401);
    expect((await api.call('GET', '/api/v1/platform/app', { headers: bearer(rotated.json.token) })).json.appId).toBe(app.appId);
  });

  it('two rotations racing with one token: one answers a token, the other is a 401, and only one token is live', async () => {
    const { app } = await registered();
    const results = await Promise.all([0, 1].map(() => api.call('POST', '/api/v1/platform/app/rotate', { headers: bearer(app.token) })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    const winner = results.find((r) => r.status === 200)!.json.token as string;
    const live = await Promise.all([app.token, winner].map((t) => api.call('GET', '/api/v1/platform/app', { headers: bearer(t) })));
    expect(live.map((r) => r.status)).toEqual([401, 200]);
  });

  it('unregister answers 204; the token is refused from then on', async () => {
    const { app } = await registered();
    const removed = await api.call('DELETE', '/api/v1/platform/app', { headers: bearer(app.token) });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect((await api.call('GET', '/api/v1/platform/app', { headers: bearer(app.token) })).status).toBe(401);
    expect((await api.call('DELETE', '/api/v1/platform/app', { headers: bearer(app.token) })).status).toBe(401);
    expect((await api.call('POST', '/api/v1/platform/app/rotate', { headers: bearer(app.token) })).status).toBe(401);
  });
});
