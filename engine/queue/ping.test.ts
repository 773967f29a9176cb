// Contract of Queues.ping (types.ts), which the readiness probe calls without
// knowing which implementation it holds: it resolves while the backing
// service answers, and on Redis it is a real round trip, so a handle whose
// connection is gone fails it.
import { describe, expect, it } from 'vitest';
import { implementations, title } from './testing/implementations.ts';

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`Queues.ping: ${title(implementation)}`, () => {
    it('resolves while the queues are reachable', async () => {
      const harness = implementation.harness();
      try {
        const queues = await harness.open();
        await expect(queues.ping()).resolves.toBeUndefined();
      } finally {
        await harness.cleanup();
      }
    });
  });
}

const redis = implementations.find((i) => i.name === 'redis')!;

describe.skipIf(redis.skip)('Queues.ping: redis (round trip)', () => {
  it('rejects once the connection is closed', async () => {
    const harness = redis.harness();
    try {
      const queues = await harness.open();
      await queues.close();
      await expect(queues.ping()).rejects.toThrow();
    } finally {
      await harness.cleanup();
    }
  });
});
