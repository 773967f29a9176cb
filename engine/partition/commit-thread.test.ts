// The commit thread against real Postgres (it runs only there): sealed
// batches commit through a thread of its own, and every way a batch can
// fail reaches the leader as the error type it acts on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../store/testing/database.ts';
import { createStore, sealBatch, StaleEpochError, StoreUnavailableError, type Batch, type Database, type Store } from '../store/index.ts';
import { instanceDoc, keyOf } from '../store/test-fixtures.ts';
import { CommitThread } from './commit-thread.ts';

const testDb = createTestDatabase();
let database: Database;
let store: Store;
let thread: CommitThread;

function batch(partition: number, epoch: number, n: number, account = 'acme'): Batch {
  return { partition, epoch, instances: [{ account, document: instanceDoc(keyOf(partition, n)) }] };
}

describe.skipIf(!testDb.url)('CommitThread (needs DATABASE_URL)', () => {
  beforeAll(async () => {
    database = await testDb.open();
    store = createStore(database.db);
    thread = new CommitThread(database.writerConnection!);
  });
  afterAll(async () => {
    await thread?.close();
    await testDb.cleanup();
  });

  it('commits sealed batches of several partitions', async () => {
    const epochs = await Promise.all([1, 2].map(async (p) => (await store.leases.acquireLease(p, 'shard', 10_000))!.epoch));
    await Promise.all([thread.commit(sealBatch(batch(1, epochs[0], 1))), thread.commit(sealBatch(batch(2, epochs[1], 1)))]);
    for (const p of [1, 2]) expect(await store.instances.getInstance('acme', keyOf(p, 1))).not.toBeNull();
  });

  it('rejects a batch whose lease moved on with StaleEpochError, and the batch handed in behind it too', async () => {
    const lost = (await store.leases.acquireLease(3, 'shard', 1))!.epoch;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = (await store.leases.acquireLease(3, 'other', 10_000))!.epoch;
    const results = [thread.commit(sealBatch(batch(3, lost, 1))), thread.commit(sealBatch(batch(3, lost, 2)))].map((p) =>
      p.then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    const [first, second] = await Promise.all(results);
    for (const error of [first, second]) {
      expect(error).toBeInstanceOf(StaleEpochError);
      expect(error).toMatchObject({ partition: 3, epoch: lost, currentEpoch: now });
    }
    for (const n of [1, 2]) expect(await store.instances.getInstance('acme', keyOf(3, n))).toBeNull();
  });

  it("passes a refused batch's reason on, writing nothing", async () => {
    const epoch = (await store.leases.acquireLease(4, 'shard', 10_000))!.epoch;
    await thread.commit(sealBatch(batch(4, epoch, 1, 'acme')));
    // The same instance key under another account: the tenancy check refuses the whole batch.
    const refused = thread.commit(
      sealBatch({ ...batch(4, epoch, 1, 'intruder'), instances: [...batch(4, epoch, 1, 'intruder').instances!, ...batch(4, epoch, 2).instances!] }),
    );
    await expect(refused).rejects.toThrow(/instance key collision with another account.*batch refused/);
    expect(await store.instances.getInstance('acme', keyOf(4, 2))).toBeNull();
    // The thread goes on committing, for this partition once its leader has recovered.
    thread.resume(4);
    await thread.commit(sealBatch(batch(4, epoch, 3)));
    expect(await store.instances.getInstance('acme', keyOf(4, 3))).not.toBeNull();
  });

  it('fails what a thread that died held with StoreUnavailableError, refuses that partition until its leader resumes it, then starts a new thread', async () => {
    const epoch = (await store.leases.acquireLease(5, 'shard', 10_000))!.epoch;
    // A thread that dies before answering anything.
    const dying = new CommitThread(database.writerConnection!, new URL('data:text/javascript,process.exit(3)'));
    const lost = await dying.commit(sealBatch(batch(5, epoch, 1))).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(StoreUnavailableError);
    expect((lost as Error).message).toMatch(/commit thread stopped: exit code 3/);
    // A batch built on the lost one is refused with its error, not sent to a new thread that knows nothing of it.
    expect(await dying.commit(sealBatch(batch(5, epoch, 2))).catch((e: unknown) => e)).toBe(lost);
    // Once the leader recovered, the next commit starts a new thread (the same script: it dies again, with an error of its own).
    dying.resume(5);
    const again = await dying.commit(sealBatch(batch(5, epoch, 3))).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(StoreUnavailableError);
    expect(again).not.toBe(lost);
    await dying.close();
  });

  it('closes after the statements it was given, and opens again on the next commit', async () => {
    const epoch = (await store.leases.acquireLease(6, 'shard', 10_000))!.epoch;
    const own = new CommitThread(database.writerConnection!);
    const committed = own.commit(sealBatch(batch(6, epoch, 1)));
    await own.close();
    await committed;
    expect(await store.instances.getInstance('acme', keyOf(6, 1))).not.toBeNull();
    await own.commit(sealBatch(batch(6, epoch, 2)));
    expect(await store.instances.getInstance('acme', keyOf(6, 2))).not.toBeNull();
    await own.close();
  });
});
