// Charges in groups (chargeMany): one statement grants the charges that fit
// in order and refuses the rest, writing a ledger row per granted charge and
// nothing for a refused one; concurrent groups never overdraw; the charge
// that crosses the low threshold writes the account's credits.low delivery.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import type { Database } from './database.ts';
import { createStore, rows, schema, webhookEventId, type Db, type Store } from './index.ts';
import { ledgerRepository } from './ledger-repository.ts';

const testDb = createTestDatabase();
let database: Database;
let store: Store;
let accounts = 0;

beforeAll(async () => {
  database = await testDb.open();
  store = createStore(database.db);
});
afterAll(() => testDb.cleanup());

async function newAccount(creditBalance: number): Promise<string> {
  const id = `ledger-${++accounts}`;
  await store.accounts.createAccount(id, { creditBalance });
  return id;
}

async function movements(account: string) {
  const { items } = await store.ledger.list(account, { limit: 100 });
  return items.reverse().map(({ amount, reason, reference, balanceAfter }) => ({ amount, reason, reference, balanceAfter }));
}

/** Counts the queries `fn` sends through the database's driver client. */
async function countQueries(fn: () => Promise<unknown>): Promise<number> {
  const client = (database.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const original = Object.getOwnPropertyDescriptor(client, 'query');
  const query = client.query;
  let calls = 0;
  client.query = (...args: unknown[]) => {
    calls++;
    return query.apply(client, args);
  };
  try {
    await fn();
  } finally {
    if (original) Object.defineProperty(client, 'query', original);
    else delete (client as { query?: unknown }).query;
  }
  return calls;
}

describe('chargeMany', () => {
  it('grants each charge in order iff what the granted ones left covers it; refused ones write nothing', async () => {
    const account = await newAccount(10);
    const results = await store.ledger.chargeMany(account, [
      { amount: 4, reason: 'a', reference: 'ref-a' },
      { amount: 7, reason: 'b', reference: 'ref-b' },
      { amount: 3, reason: 'c' },
      { amount: 5, reason: 'd', reference: 'ref-d' },
      { amount: 3, reason: 'e', reference: null },
    ]);
    expect(results).toEqual([
      { granted: true, id: expect.any(String), balanceAfter: 6 },
      { granted: false, balance: 6 },
      { granted: true, id: expect.any(String), balanceAfter: 3 },
      { granted: false, balance: 3 },
      { granted: true, id: expect.any(String), balanceAfter: 0 },
    ]);
    expect(await store.ledger.balance(account)).toBe(0);
    expect(await movements(account)).toEqual([
      { amount: -4, reason: 'a', reference: 'ref-a', balanceAfter: 6 },
      { amount: -3, reason: 'c', reference: null, balanceAfter: 3 },
      { amount: -3, reason: 'e', reference: null, balanceAfter: 0 },
    ]);
    // Ledger ids ascend in charge order, as the ledger is read by id.
    const ids = results.flatMap((r) => (r.granted ? [BigInt(r.id)] : []));
    expect([...ids].sort((x, y) => (x < y ? -1 : 1))).toEqual(ids);
    const { items } = await store.ledger.list(account);
    expect(items.map((i) => i.id)).toEqual(ids.map(String).reverse());
  });

  it('runs a whole group as one statement', async () => {
    const account = await newAccount(100);
    const charges = Array.from({ length: 50 }, (_, i) => ({ amount: 1, reason: 'bulk', reference: `bulk-${i}` }));
    expect(await countQueries(() => store.ledger.chargeMany(account, charges))).toBe(1);
    expect(await store.ledger.balance(account)).toBe(50);
  });

  it('refuses every charge of an unknown account, writing nothing', async () => {
    const results = await store.ledger.chargeMany('ledger-nobody', [
      { amount: 1, reason: 'x' },
      { amount: 2, reason: 'y' },
    ]);
    expect(results).toEqual([
      { granted: false, balance: null },
      { granted: false, balance: null },
    ]);
    expect(await store.ledger.balance('ledger-nobody')).toBeNull();
    expect(await movements('ledger-nobody')).toEqual([]);
    expect(await store.ledger.charge('ledger-nobody', 1, 'z')).toBeNull();
  });

  it('answers an empty group without asking the database, and rejects a bad amount', async () => {
    const account = await newAccount(5);
    expect(await countQueries(async () => expect(await store.ledger.chargeMany(account, [])).toEqual([]))).toBe(0);
    await expect(
      store.ledger.chargeMany(account, [
        { amount: 1, reason: 'ok' },
        { amount: 0, reason: 'zero' },
      ]),
    ).rejects.toThrow(RangeError);
    expect(await movements(account)).toEqual([]);
  });

  it('never overdraws under concurrent groups', async () => {
    const account = await newAccount(50);
    const groups = await Promise.all(
      Array.from({ length: 10 }, (_, g) =>
        store.ledger.chargeMany(
          account,
          Array.from({ length: 10 }, (_, i) => ({ amount: 1, reason: 'race', reference: `${g}-${i}` })),
        ),
      ),
    );
    const granted = groups.flat().filter((r) => r.granted);
    expect(granted).toHaveLength(50);
    expect(await store.ledger.balance(account)).toBe(0);
    const rows = await movements(account);
    expect(rows.map((r) => r.balanceAfter)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
  });

  it('takes part in a surrounding transaction and rolls back with it', async () => {
    const account = await newAccount(10);
    await expect(
      database.db.transaction(async (tx) => {
        expect(
          await ledgerRepository(tx).chargeMany(account, [
            { amount: 8, reason: 'in tx' },
            { amount: 3, reason: 'too much' },
          ]),
        ).toEqual([
          { granted: true, id: expect.any(String), balanceAfter: 2 },
          { granted: false, balance: 2 },
        ]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await store.ledger.balance(account)).toBe(10);
    expect(await movements(account)).toEqual([]);
    expect(await store.ledger.charge(account, 10, 'all of it', 'ref')).toEqual({ id: expect.any(String), balanceAfter: 0 });
    expect(await movements(account)).toEqual([{ amount: -10, reason: 'all of it', reference: 'ref', balanceAfter: 0 }]);
  });

  // Alone, a group's commit does not wait for the WAL flush (see CHARGE_MANY):
  // that setting is its transaction's only — the next statement on the same
  // connection, and a caller's transaction it joins, keep their own.
  it('leaves synchronous_commit as it was, on its connection and in a surrounding transaction', async () => {
    const account = await newAccount(10);
    const setting = async (handle: Db) => (await rows<{ synchronous_commit: string }>(handle, sql`show synchronous_commit`))[0].synchronous_commit;
    // One connection, so the statement after the charge runs where the charge did.
    const single = await testDb.open({ poolSize: 1 });
    const before = await setting(single.db);
    expect(await ledgerRepository(single.db).chargeMany(account, [{ amount: 1, reason: 'alone' }])).toEqual([
      { granted: true, id: expect.any(String), balanceAfter: 9 },
    ]);
    expect(await setting(single.db)).toBe(before);
    await database.db.transaction(async (tx) => {
      await ledgerRepository(tx).chargeMany(account, [{ amount: 1, reason: 'in tx' }]);
      expect(await setting(tx)).toBe(before);
    });
    expect(await store.ledger.balance(account)).toBe(8);
  });
});

describe('chargeMany and credits.low', () => {
  async function subscribe(account: string): Promise<void> {
    await store.db
      .insert(schema.webhookEndpoints)
      .values({ id: `we-${account}`, account, url: 'https://hooks.example.org/', events: ['credits.low'], secret: 's' });
  }
  const lowEvents = (account: string) =>
    store.db.select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.account, account)).orderBy(schema.webhookDeliveries.id);

  it('writes one event, for the charge of a group that crosses the threshold', async () => {
    const account = await newAccount(12);
    await subscribe(account);
    // 12 → 9 → (7 refused) → 6 → 3: the threshold 5 is crossed by the third granted charge.
    const results = await store.ledger.chargeMany(
      account,
      [
        { amount: 3, reason: 'a' },
        { amount: 10, reason: 'b' },
        { amount: 3, reason: 'c' },
        { amount: 3, reason: 'd' },
      ],
      { lowThreshold: 5 },
    );
    const crossing = results[3];
    expect(crossing).toMatchObject({ granted: true, balanceAfter: 3 });
    const events = await lowEvents(account);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventId: webhookEventId('credits.low', crossing.granted ? crossing.id : ''),
      payload: { type: 'credits.low', data: { balance: 3, threshold: 5 } },
    });
    // Already below: further charges send nothing, nor does a group without the threshold.
    await store.ledger.chargeMany(account, [{ amount: 1, reason: 'e' }], { lowThreshold: 5 });
    expect(await lowEvents(account)).toHaveLength(1);
  });

  it('counts a balance that starts exactly at the threshold as above it', async () => {
    const account = await newAccount(5);
    await subscribe(account);
    await store.ledger.chargeMany(account, [{ amount: 1, reason: 'a' }], { lowThreshold: 5 });
    expect((await lowEvents(account)).map((e) => e.payload.data)).toEqual([{ balance: 4, threshold: 5 }]);
  });

  it('writes nothing when a refused charge would have crossed', async () => {
    const account = await newAccount(6);
    await subscribe(account);
    const [refused] = await store.ledger.chargeMany(account, [{ amount: 7, reason: 'a' }], { lowThreshold: 5 });
    expect(refused.granted).toBe(false);
    expect(await lowEvents(account)).toEqual([]);
  });
});
