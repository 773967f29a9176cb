// Two API pods on one store and one set of queues: pod A has just
// authenticated a key (and keeps the result, auth-cache.ts), pod B rotates
// it. The old key must stop working on pod A at once too: B's notice
// evicts it there. Runs on the in-process queues and, with REDIS_URL, on
// Redis pub/sub between two connections.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIdentity } from '../../api/identity/index.ts';
import { createMailer } from '../../api/mail/index.ts';
import { implementations, title, type Harness } from '../../engine/queue/testing/implementations.ts';
import { createStore, type Store } from '../../engine/store/index.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';

const testDb = createTestDatabase();
let store: Store;

beforeAll(async () => {
  store = createStore((await testDb.open()).db);
});
afterAll(() => testDb.cleanup());

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`key retirement across pods: ${title(implementation)}`, () => {
    let harness: Harness;
    afterEach(() => harness.cleanup());

    it('a key rotated on one pod stops working on the other at once, though it was just used there', async () => {
      harness = implementation.harness();
      const pod = async () =>
        createIdentity({
          store,
          notices: (await harness.open()).notices,
          mailer: createMailer({ outbox: store.mailOutbox }),
          config: { publicUrl: 'http://localhost', authCacheMs: 60_000 },
        });
      const [a, b] = [await pod(), await pod()];
      await Promise.all([a.listening, b.listening]);
      const { account, apiKey } = await a.createAccount(`pods-${implementation.name}@example.com`);
      expect(await a.authenticate(apiKey)).toBe(account);
      expect(await b.authenticate(apiKey)).toBe(account);

      const rotated = await b.rotateKey(apiKey);
      expect(rotated?.account).toBe(account);
      // Pub/sub delivery takes a moment; "at once" is within milliseconds, far inside the cache's minute.
      const deadline = Date.now() + 2_000;
      while ((await a.authenticate(apiKey)) !== null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await a.authenticate(apiKey)).toBeNull();
      expect(await b.authenticate(apiKey)).toBeNull();
      expect(await a.authenticate(rotated!.newKey)).toBe(account);
    });
  });
}
