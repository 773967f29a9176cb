// Contract of JobQueue.rebuild (types.ts): putting a partition's queues back
// from Postgres after a Redis flush or a leader takeover.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import { keysOf, queuedJob, queuedJobs } from './testing/jobs.ts';
import type { ActivatedJob, Queues, StoredJob } from './types.ts';

/** What Postgres would say about jobs: activated ones carry their activation. */
const stored = (job: ActivatedJob): StoredJob => {
  const { worker, activatedAt, ...rest } = job;
  return { ...rest, activation: { worker, at: activatedAt } };
};

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`JobQueue.rebuild: ${title(implementation)}`, () => {
    let harness: Harness;
    let queues: Queues;

    beforeEach(async () => {
      // Logical database 15: the flush below must not wipe other runs' keys.
      harness = implementation.harness({ db: 15 });
      queues = await harness.open();
    });
    afterEach(() => harness.cleanup());

    it('after a flush, queues the jobs again and keeps activated ones activated', async () => {
      const jobs = queuedJobs(5, { partition: 2 });
      await queues.jobs.push(jobs);
      const activated = await queues.jobs.activate('acme', 'charge-card', 2, 'w1');
      await harness.flush();
      expect(await queues.jobs.activate('acme', 'charge-card', 10, 'w')).toEqual([]);

      const fromPostgres = [...activated.map(stored), ...jobs.slice(2)];
      expect(await queues.jobs.rebuild(2, fromPostgres)).toEqual({ queued: 3, activated: 2, removed: 0 });

      const delivered = await queues.jobs.activate('acme', 'charge-card', 10, 'w2');
      expect(keysOf(delivered)).toEqual(['3', '4', '5']);
      expect(delivered[0].variables).toEqual({ orderId: '3' });
      expect(await queues.jobs.activate('acme', 'charge-card', 10, 'w3')).toEqual([]);
      // The activated jobs are known again: completing them removes them, a failure offers them again.
      expect(await queues.jobs.remove('acme', ['1'])).toBe(1);
      await queues.jobs.requeue({ ...jobs[1], retries: 1 });
      expect((await queues.jobs.activate('acme', 'charge-card', 10, 'w4')).map((job) => [job.key, job.retries])).toEqual([['2', 1]]);
    });

    it('on takeover, drops what Postgres no longer has and keeps places in line', async () => {
      await queues.jobs.push(queuedJobs(4, { partition: 1 }));
      await queues.jobs.push([queuedJob('other', { partition: 2 })]);
      await queues.jobs.push([queuedJob('g1', { partition: 1, account: 'globex' })]);
      // Postgres: job 1 completed, job 3 still there, job 2 before job 4; globex's job gone.
      const fromPostgres = [queuedJob('4', { partition: 1 }), queuedJob('2', { partition: 1, retries: 1 }), queuedJob('3', { partition: 1 })];
      expect(await queues.jobs.rebuild(1, fromPostgres)).toEqual({ queued: 3, activated: 0, removed: 2 });
      const delivered = await queues.jobs.activate('acme', 'charge-card', 10, 'w');
      expect(keysOf(delivered)).toEqual(['2', '3', '4', 'other']);
      expect(delivered[0].retries).toBe(1);
      expect(await queues.jobs.activate('globex', 'charge-card', 10, 'w')).toEqual([]);
    });

    it('keeps a job activated that the queues know is activated even when Postgres does not', async () => {
      await queues.jobs.push(queuedJobs(2, { partition: 0 }));
      await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      expect(await queues.jobs.rebuild(0, queuedJobs(2, { partition: 0 }))).toEqual({ queued: 1, activated: 1, removed: 0 });
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['2']);
    });

    it('takes an activation recorded in Postgres over a queued copy', async () => {
      await queues.jobs.push(queuedJobs(2, { partition: 0 }));
      const rebuilt = [{ ...queuedJob('1', { partition: 0 }), activation: { worker: 'w', at: 1 } }, queuedJob('2', { partition: 0 })];
      expect(await queues.jobs.rebuild(0, rebuilt)).toEqual({ queued: 1, activated: 1, removed: 0 });
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['2']);
    });

    it('empties a partition that Postgres has no jobs for, and leaves the others alone', async () => {
      await queues.jobs.push([queuedJob('1', { partition: 0 }), queuedJob('2', { partition: 1 })]);
      await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      expect(await queues.jobs.rebuild(0, [])).toEqual({ queued: 0, activated: 0, removed: 1 });
      expect(await queues.jobs.rebuild(0, [])).toEqual({ queued: 0, activated: 0, removed: 0 });
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['2']);
    });

    it('rebuilds a large partition', async () => {
      const jobs = queuedJobs(1200, { partition: 4 });
      expect(await queues.jobs.rebuild(4, jobs)).toEqual({ queued: 1200, activated: 0, removed: 0 });
      const delivered = await queues.jobs.activate('acme', 'charge-card', 2000, 'w');
      expect(keysOf(delivered)).toEqual(keysOf(jobs));
    });
  });
}
