// Agents and apps across API pods on one store: pod A has just used a token
// and a session (and keeps them, auth-cache.ts, here for a whole minute);
// pod B rotates. A must refuse the old token and the ended session at once:
// B's notice evicts them there. On the in-process queues and, with
// REDIS_URL, Redis pub/sub between two connections; with DATABASE_URL and
// REDIS_URL also two whole servers, the old token refused over HTTP by the
// pod that did not rotate.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgents } from '../../api/agents/index.ts';
import { createApp, type App } from '../../api/app.ts';
import { createIdentity } from '../../api/identity/index.ts';
import { createMailer } from '../../api/mail/index.ts';
import { createPlatformApps } from '../../api/platform/index.ts';
import { implementations, title, type Harness } from '../../engine/queue/testing/implementations.ts';
import { createStore, type Store } from '../../engine/store/index.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

const testDb = createTestDatabase();
let store: Store;

beforeAll(async () => {
  store = createStore((await testDb.open()).db);
});
afterAll(() => testDb.cleanup());

/** Polls `check` until it holds or 2 s pass: pub/sub delivery takes milliseconds, far inside the caches' minute. */
async function soon(check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 2_000;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return check();
}

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`agent rotation across pods: ${title(implementation)}`, () => {
    let harness: Harness;
    afterEach(() => harness.cleanup());

    it('a token rotated on one pod stops working on the other at once, and the sessions it ended end there too', async () => {
      harness = implementation.harness();
      const identity = createIdentity({ store, mailer: createMailer({ outbox: store.mailOutbox }), config: { publicUrl: 'http://localhost' } });
      const pod = async () => createAgents({ store, identity, notices: (await harness.open()).notices, authCacheMs: 60_000 });
      const [a, b] = [await pod(), await pod()];
      await Promise.all([a.listening, b.listening]);
      try {
        const { apiKey } = await identity.createAccount(`agents-pods-${implementation.name}@example.com`);
        const { agentId, token } = await a.register({ apiKey, name: 'roamer' });
        const [kept, ended] = [await a.connect({ token }), await a.connect({ token })];
        // Both pods have now seen, and keep, the token and the session about to end.
        for (const pod of [a, b]) {
          expect(await pod.authenticateToken(token)).toMatchObject({ agentId });
          expect(await pod.session(ended.sessionId)).toMatchObject({ agentId });
        }

        const { token: next } = await b.rotateToken(kept.sessionId);
        expect(await soon(async () => (await a.authenticateToken(token)) === null)).toBe(true);
        await expect(a.session(ended.sessionId)).rejects.toMatchObject({ code: 'SESSION_ENDED' });
        expect(await b.authenticateToken(token)).toBeNull();
        expect(await a.authenticateToken(next)).toMatchObject({ agentId });
        expect(await a.session(kept.sessionId)).toEqual(kept);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('an app token rotated on one pod stops working on the other at once', async () => {
      harness = implementation.harness();
      const pod = async () => createPlatformApps({ store, notices: (await harness.open()).notices, authCacheMs: 60_000 });
      const [a, b] = [await pod(), await pod()];
      await Promise.all([a.listening, b.listening]);
      try {
        const app = await a.register('acc_pods', 'bridge');
        expect(await a.authenticate(app.token)).toMatchObject({ appId: app.appId });
        expect(await b.authenticate(app.token)).toMatchObject({ appId: app.appId });
        const rotated = await b.rotate(app.token);
        expect(await soon(async () => (await a.authenticate(app.token)) === null)).toBe(true);
        expect(await a.authenticate(rotated.token)).toMatchObject({ appId: app.appId });
        await a.unregister(rotated.token);
        expect(await soon(async () => (await b.authenticate(rotated.token)) === null)).toBe(true);
      } finally {
        a.close();
        b.close();
      }
    });
  });
}

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('two servers on one database', () => {
  let api: ApiFixture;
  let second: App;
  beforeAll(async () => {
    api = await apiFixture();
    // A second pod: the same configuration (schema, Redis prefix), its own port.
    second = await createApp(api.config);
    await second.listen();
    await Promise.all([api.service.agents.listening, second.agents.listening]);
  });
  afterAll(async () => {
    await second?.close();
    await api?.close();
  });

  it('a session opened on one server is served by the other; a rotation on one is a 401 on the other at once', async () => {
    const { apiKey } = await api.newAccount();
    const { agentId, token } = await api.service.agents.register({ apiKey, name: 'writer' });
    const { agentId: readerId } = await second.agents.register({ apiKey, name: 'reader' });
    const session = await api.service.agents.connect({ token });
    expect(await second.agents.session(session.sessionId)).toEqual(session);

    const sendFrom = (url: string, bearer: string) =>
      fetch(`${url}/api/v1/mailbox/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: readerId, body: 'hello' }),
      });
    expect((await sendFrom(second.url, token)).status).toBe(201);
    const { token: next } = await api.service.agents.rotateToken(session.sessionId);
    let status = 0;
    expect(await soon(async () => (status = (await sendFrom(second.url, token)).status) === 401)).toBe(true);
    expect(status).toBe(401);
    expect((await sendFrom(second.url, next)).status).toBe(201);
    expect((await second.agents.session(session.sessionId)).agentId).toBe(agentId);
  });
});
