// Case instances (CMMN) in the batch statement and read back: a case
// document committed with its partition's fence is read by key, listed
// newest first and loaded by its partition's next leader while live; a
// later batch updates it; another account's batch cannot take its key over
// (the whole batch is refused), and a stale epoch writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseInstance } from '../cmmn/runtime/types.ts';
import { commitBatch } from './commit-batch.ts';
import type { Database } from './database.ts';
import { StaleEpochError } from './errors.ts';
import { createStore, type Store } from './index.ts';
import { createTestDatabase } from './testing/database.ts';
import { historyWrite, keyOf } from './test-fixtures.ts';

const testDb = createTestDatabase();
let database: Database;
let store: Store;

beforeAll(async () => {
  database = await testDb.open();
  store = createStore(database.db);
});
afterAll(() => testDb.cleanup());

function caseDoc(key: string, fields: Partial<CaseInstance> = {}): CaseInstance {
  return {
    key,
    caseDefinitionId: 'claim',
    version: 2,
    state: 'ACTIVE',
    planItems: {
      [key]: { key, id: 'plan', definitionId: 'plan', type: 'stage', state: 'ACTIVE', createdAt: 1_700_000_000_000 },
    },
    variables: { orderId: 'A1' },
    jobs: {},
    incidents: {},
    timers: {},
    startedAt: 1_700_000_000_000,
    ...fields,
  };
}

describe('case_instances through the batch statement', () => {
  it('stores a case with its history, reads it back, updates it, and loads only live cases for the next leader', async () => {
    const lease = (await store.leases.acquireLease(3, 'shard-a', 10_000))!;
    const key = keyOf(3, 1);
    const ended = keyOf(3, 2);
    await commitBatch(database.db, {
      partition: 3,
      epoch: lease.epoch,
      cases: [
        { account: 'acme', document: caseDoc(key) },
        { account: 'acme', document: caseDoc(ended, { state: 'COMPLETED', endedAt: 1_700_000_001_000 }), parentKey: key },
      ],
      history: [historyWrite('acme', key, 'start')],
    });
    const row = (await store.caseInstances.getCaseInstance('acme', key))!;
    expect(row).toMatchObject({ key, caseDefinitionId: 'claim', version: 2, state: 'ACTIVE', variables: { orderId: 'A1' }, parentKey: null, endedAt: null });
    expect(row.createdAt.getTime()).toBe(1_700_000_000_000);
    expect(row.document.planItems[key].state).toBe('ACTIVE');
    expect((await store.caseInstances.getCaseInstance('acme', ended))!).toMatchObject({ state: 'COMPLETED', parentKey: key });
    expect(await store.caseInstances.getCaseInstance('other', key)).toBeNull();
    expect(await store.caseInstances.caseKeys('acme', [key, '42', 'x'])).toEqual(new Set([key]));
    expect((await store.caseInstances.loadPartitionCases(3)).map((c) => c.document.key)).toEqual([key]);
    expect((await store.history.listHistory('acme', key)).items.map((r) => r.record.type)).toEqual(['ELEMENT_ACTIVATED']);

    await commitBatch(database.db, {
      partition: 3,
      epoch: lease.epoch,
      cases: [{ account: 'acme', document: caseDoc(key, { state: 'TERMINATED', endedAt: 1_700_000_002_000, variables: { orderId: 'A2' } }) }],
    });
    expect((await store.caseInstances.getCaseInstance('acme', key))!).toMatchObject({ state: 'TERMINATED', variables: { orderId: 'A2' } });
    expect(await store.caseInstances.loadPartitionCases(3)).toEqual([]);
    const page = await store.caseInstances.listCaseInstances('acme', { state: 'TERMINATED' });
    expect(page.items.map((c) => c.key)).toEqual([key]);
  });

  it("refuses a batch that would overwrite another account's case, and writes nothing on a stale epoch", async () => {
    const lease = (await store.leases.acquireLease(4, 'shard-a', 10_000))!;
    const key = keyOf(4, 1);
    await commitBatch(database.db, { partition: 4, epoch: lease.epoch, cases: [{ account: 'acme', document: caseDoc(key) }] });
    const hijack = commitBatch(database.db, {
      partition: 4,
      epoch: lease.epoch,
      cases: [{ account: 'evil', document: caseDoc(key, { state: 'TERMINATED' }) }],
      history: [historyWrite('evil', keyOf(4, 9), 'start')],
    });
    await expect(hijack).rejects.toThrow(/case instance key collision with another account/);
    expect((await store.caseInstances.getCaseInstance('acme', key))!.state).toBe('ACTIVE');
    expect((await store.history.listHistory('evil', keyOf(4, 9))).items).toEqual([]);

    const stale = commitBatch(database.db, { partition: 4, epoch: lease.epoch - 1, cases: [{ account: 'acme', document: caseDoc(keyOf(4, 2)) }] });
    await expect(stale).rejects.toBeInstanceOf(StaleEpochError);
    expect(await store.caseInstances.getCaseInstance('acme', keyOf(4, 2))).toBeNull();
  });
});
