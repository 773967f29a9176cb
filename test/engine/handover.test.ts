import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

// Two shards on the same store: a joining shard gets its fair share handed
// over, and a leaving one hands its partitions back.
const onRealServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

let fixture: EngineFixture;
beforeAll(async () => {
  fixture = await engineFixture();
});
afterAll(() => fixture.cleanup());

describe.skipIf(!onRealServices)('partition handover (needs DATABASE_URL and REDIS_URL: two shards share one store)', () => {
  it('splits the partitions when a shard joins and takes them back when it leaves', async () => {
    const a = await fixture.start({ role: 'engine', leaseMs: 600 }, { owner: 'shard-a' });
    expect(a.ownedPartitions()).toEqual([0, 1, 2, 3]);
    const b = await fixture.start({ role: 'engine', leaseMs: 600 }, { owner: 'shard-b' });
    await eventually(async () => (a.ownedPartitions().length === 2 && b.ownedPartitions().length === 2 ? true : undefined), 'a fair split', 15_000);
    expect([...a.ownedPartitions(), ...b.ownedPartitions()].sort()).toEqual([0, 1, 2, 3]);
    await b.close();
    await eventually(async () => (a.ownedPartitions().length === 4 ? true : undefined), 'shard a to lead everything again', 15_000);
  });
});
