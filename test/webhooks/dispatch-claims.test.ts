// Several dispatchers share one outbox: two on the same database deliver
// every row exactly once (the claims), a dispatcher that dies holding claims
// loses them when they lapse and another delivers those rows then, not
// before — one that only claimed, and on Postgres a process killed with
// SIGKILL in the middle of its requests — and a dispatcher that stops gives
// back what it had not sent.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../../api/webhooks/delivery-statements.ts';
import { startWebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import type { Database } from '../../engine/store/database.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';
import { addEndpoint, deliveriesOf, enqueueCompleted, eventually } from './outbox.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const testDb = createTestDatabase();
let first: Database;
let second: Database;
let receiver: Receiver;
let secrets: string[] = [];

beforeAll(async () => {
  first = await testDb.open();
  // On Postgres a pool of its own, as another pod has; on PGlite the same instance.
  second = await testDb.open();
  receiver = await startReceiver(() => secrets);
});
afterAll(async () => {
  await receiver?.close();
  await testDb.cleanup();
});

describe('dispatchers sharing the outbox', () => {
  it('two on one database deliver each row once', async () => {
    const endpoints = await Promise.all([1, 2, 3].map((n) => addEndpoint(first.db, `${receiver.url}/pair/${n}`)));
    secrets = endpoints.map((e) => e.secret);
    const ids = (await Promise.all(endpoints.map((e) => enqueueCompleted(first.db, e.account, 100)))).flat();
    const options = { allowPrivateNetworks: true, idlePollMs: 20, busyPollMs: 5, concurrency: 8, perEndpoint: 2 };
    const a = startWebhookDispatcher({ db: first.db, ...options });
    const b = startWebhookDispatcher({ db: second.db, ...options });
    try {
      await receiver.waitFor(ids.length, 60_000);
      const rows = await eventually(async () => {
        const all = (await Promise.all(endpoints.map((e) => deliveriesOf(first.db, e.id)))).flat();
        return all.every((r) => r.status === 'delivered') ? all : undefined;
      });
      expect(rows).toHaveLength(ids.length);
      for (const row of rows) expect(row.attempts).toBe(1);
      const seen = receiver.received.filter((d) => d.path.startsWith('/pair/')).map((d) => String(d.headers['webhook-id']));
      expect(seen.sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("a dead dispatcher's claims lapse and another delivers those rows then, not before", async () => {
    const endpoint = await addEndpoint(first.db, `${receiver.url}/takeover`);
    secrets = [endpoint.secret];
    await enqueueCompleted(first.db, endpoint.account, 5);
    // What a dispatcher that dies right after claiming leaves behind: claimed rows nobody will record.
    const until = new Date(Date.now() + 1_500);
    // A millisecond on: Postgres stamped the rows due in microseconds, a Date has milliseconds, and the claim may follow within one.
    const claimed = await claimDue(first.db, { now: new Date(Date.now() + 1), limit: 100, until, skipEndpoints: [] });
    expect(claimed.filter((c) => c.endpointId === endpoint.id)).toHaveLength(5);
    const survivor = startWebhookDispatcher({ db: second.db, allowPrivateNetworks: true, idlePollMs: 50 });
    try {
      const rows = await eventually(async () => {
        const found = await deliveriesOf(first.db, endpoint.id);
        return found.every((r) => r.status === 'delivered') ? found : undefined;
      });
      for (const row of rows) {
        expect(row.attempts).toBe(1);
        expect(row.delivered_at!.getTime()).toBeGreaterThanOrEqual(until.getTime());
      }
    } finally {
      await survivor.stop();
    }
  });

  it.skipIf(testDb.url === undefined)("a killed dispatcher process's claims are taken over (Postgres: PGlite is one process's)", async () => {
    const endpoint = await addEndpoint(first.db, `${receiver.url}/killed`);
    secrets = [endpoint.secret];
    // The doomed process's requests hang; once it is dead, the survivor's are answered.
    let killed = false;
    receiver.answer = (_d, response) => {
      if (killed) response.writeHead(200).end('ok');
    };
    await enqueueCompleted(first.db, endpoint.account, 4);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/webhooks/dispatcher-process.ts'], {
      env: { ...process.env, DATABASE_URL: testDb.url, ORCA_DB_SCHEMA: testDb.schema, CLAIM_MS: '2000' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const claimed = await eventually(async () => {
        const rows = await deliveriesOf(first.db, endpoint.id);
        return receiver.open() === 4 && rows.every((r) => r.claimed_until !== null) ? rows : undefined;
      });
      child.kill('SIGKILL');
      await exited;
      killed = true;
      const lapse = Math.max(...claimed.map((r) => r.claimed_until!.getTime()));
      const survivor = startWebhookDispatcher({ db: second.db, allowPrivateNetworks: true, idlePollMs: 50 });
      try {
        const rows = await eventually(async () => {
          const found = await deliveriesOf(first.db, endpoint.id);
          return found.every((r) => r.status === 'delivered') ? found : undefined;
        });
        for (const row of rows) {
          expect(row.attempts).toBe(1);
          expect(row.log).toHaveLength(1);
          expect(row.delivered_at!.getTime()).toBeGreaterThanOrEqual(lapse);
        }
      } finally {
        await survivor.stop();
      }
    } finally {
      child.kill('SIGKILL');
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
    }
  });

  it('stopping gives back what was claimed and not sent, without recording an attempt', async () => {
    const endpoint = await addEndpoint(first.db, `${receiver.url}/stopping`);
    secrets = [endpoint.secret];
    receiver.answer = () => {}; // never answers
    await enqueueCompleted(first.db, endpoint.account, 6);
    const dispatcher = startWebhookDispatcher({ db: first.db, allowPrivateNetworks: true, idlePollMs: 20, perEndpoint: 2 });
    try {
      await eventually(async () => (receiver.open() === 2 ? true : undefined));
      const held = await deliveriesOf(first.db, endpoint.id);
      expect(held.filter((r) => r.claimed_until !== null).length).toBeGreaterThanOrEqual(2);
    } finally {
      await dispatcher.stop();
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
    }
    const after = await deliveriesOf(first.db, endpoint.id);
    for (const row of after) expect(row).toMatchObject({ status: 'pending', attempts: 0, claimed_until: null, log: [] });
  });
});
