// Contract of Queues.publish (types.ts), run against every implementation:
// a committed batch's effects land in the Publication's order, in one call.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import { keysOf, queuedJob, queuedJobs } from './testing/jobs.ts';
import type { Queues } from './types.ts';

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`Queues.publish: ${title(implementation)}`, () => {
    let harness: Harness;
    let queues: Queues;

    beforeEach(async () => {
      harness = implementation.harness();
      queues = await harness.open();
    });
    afterEach(() => harness.cleanup());

    it('pushes, refreshes variables, requeues and removes in that order', async () => {
      const [waiting, held] = [queuedJob('1', { variables: { n: 1 } }), queuedJob('2')];
      await queues.jobs.push([waiting, held]);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 1, 'w'))).toEqual(['1']);
      await queues.publish({
        // 3 is created and cancelled in one batch: it must end up gone.
        push: queuedJobs(2, {}, 3),
        variables: [{ account: 'acme', jobKey: '2', variables: { n: 2 } }],
        // 1 failed with retries left: offered again, ahead of the others.
        requeue: [{ ...waiting, retries: 2 }],
        remove: [{ account: 'acme', jobKeys: ['3'] }],
      });
      const offered = await queues.jobs.activate('acme', 'charge-card', 10, 'w');
      expect(keysOf(offered)).toEqual(['1', '2', '4']);
      expect(offered[0].retries).toBe(2);
      expect(offered[1].variables).toEqual({ n: 2 });
    });

    it('sends the replies and acknowledges the stream up to the id given', async () => {
      const expected = await queues.replies.expectReply('cmd-1', 5_000);
      await queues.commands.append(5, { key: 'cmd-1', payload: { n: 1 }, replyTo: expected.channel });
      const second = await queues.commands.append(5, { key: 'cmd-2', payload: { n: 2 } });
      const [first] = await queues.commands.read(5, '0', 1, 0);
      await queues.publish({ replies: [{ commandKey: 'cmd-1', result: { ok: true }, replyTo: expected.channel }], ack: { partition: 5, uptoId: first.id } });
      expect(await expected.promise).toEqual({ ok: true });
      expect((await queues.commands.read(5, '0', 10, 0)).map((e) => e.id)).toEqual([second]);
    });

    it('does nothing for an empty publication', async () => {
      await queues.publish({});
      await queues.publish({ push: [], variables: [], requeue: [], remove: [], replies: [] });
      expect(await queues.jobs.depth('acme', 'charge-card')).toBe(0);
    });

    it('carries out publications made together, each in its own order', async () => {
      // Two partitions' batches committed by one statement publish in the same turn.
      await Promise.all([
        queues.publish({ push: queuedJobs(2, {}, 10), remove: [{ account: 'acme', jobKeys: ['10'] }] }),
        queues.publish({ push: queuedJobs(1, {}, 20) }),
        queues.publish({}),
      ]);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w')).sort()).toEqual(['11', '20']);
    });
  });
}
