import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import type { Database } from './database.ts';
import { leasesRepository } from './leases-repository.ts';

const testDb = createTestDatabase();
let database: Database;
let leases: ReturnType<typeof leasesRepository>;

beforeAll(async () => {
  database = await testDb.open();
  leases = leasesRepository(database.db);
});
afterAll(() => testDb.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('partition leases', () => {
  it('acquires a free partition at epoch 1 and refuses a second owner while the lease lives', async () => {
    const lease = await leases.acquireLease(0, 'shard-a', 60_000);
    expect(lease).toMatchObject({ epoch: 1 });
    expect(lease!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(await leases.acquireLease(0, 'shard-b', 60_000)).toBeNull();
  });

  it('renews only for the holder of the current epoch', async () => {
    const lease = await leases.acquireLease(1, 'shard-a', 60_000);
    expect(await leases.renewLease(1, 'shard-a', lease!.epoch, 60_000)).toBe(true);
    expect(await leases.renewLease(1, 'shard-b', lease!.epoch, 60_000)).toBe(false);
    expect(await leases.renewLease(1, 'shard-a', lease!.epoch - 1, 60_000)).toBe(false);
  });

  it('lets another owner steal an expired lease, bumping the epoch and fencing the old holder', async () => {
    const first = await leases.acquireLease(2, 'shard-a', 30);
    await sleep(60);
    const [info] = (await leases.listLeases()).filter((l) => l.partition === 2);
    expect(info).toMatchObject({ leader: 'shard-a', epoch: first!.epoch, expired: true });

    const stolen = await leases.acquireLease(2, 'shard-b', 60_000);
    expect(stolen!.epoch).toBe(first!.epoch + 1);
    expect(await leases.renewLease(2, 'shard-a', first!.epoch, 60_000)).toBe(false);
    expect(await leases.releaseLease(2, 'shard-a', first!.epoch)).toBe(false);
    const [after] = (await leases.listLeases()).filter((l) => l.partition === 2);
    expect(after).toMatchObject({ leader: 'shard-b', epoch: stolen!.epoch, expired: false });
  });

  it('renews a lapsed lease nobody took: no other writer can have happened', async () => {
    const lease = await leases.acquireLease(3, 'shard-a', 30);
    await sleep(60);
    expect(await leases.renewLease(3, 'shard-a', lease!.epoch, 60_000)).toBe(true);
    expect(await leases.acquireLease(3, 'shard-b', 60_000)).toBeNull();
  });

  it('re-acquiring by the same owner fences its previous incarnation', async () => {
    const first = await leases.acquireLease(4, 'shard-a', 60_000);
    const again = await leases.acquireLease(4, 'shard-a', 60_000);
    expect(again!.epoch).toBe(first!.epoch + 1);
    expect(await leases.renewLease(4, 'shard-a', first!.epoch, 60_000)).toBe(false);
  });

  it('release frees the partition at once and keeps the epoch rising', async () => {
    const first = await leases.acquireLease(5, 'shard-a', 60_000);
    expect(await leases.releaseLease(5, 'shard-a', first!.epoch)).toBe(true);
    const [info] = (await leases.listLeases()).filter((l) => l.partition === 5);
    expect(info).toMatchObject({ leader: null, expiresAt: null, expired: true });
    const next = await leases.acquireLease(5, 'shard-b', 60_000);
    expect(next!.epoch).toBe(first!.epoch + 1);
  });

  it('only one of many concurrent contenders wins', async () => {
    const attempts = await Promise.all(Array.from({ length: 8 }, (_, i) => leases.acquireLease(6, `shard-${i}`, 60_000)));
    expect(attempts.filter((a) => a !== null)).toHaveLength(1);
  });

  it('rejects a non-positive ttl', async () => {
    await expect(leases.acquireLease(7, 'shard-a', 0)).rejects.toThrow(TypeError);
  });
});
