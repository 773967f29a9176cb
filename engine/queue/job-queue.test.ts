// Contract of JobQueue (types.ts), run against every implementation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import { keysOf, queuedJob, queuedJobs } from './testing/jobs.ts';
import type { Queues } from './types.ts';

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`JobQueue: ${title(implementation)}`, () => {
    let harness: Harness;
    let queues: Queues;

    beforeEach(async () => {
      harness = implementation.harness();
      queues = await harness.open();
    });
    afterEach(() => harness.cleanup());

    it('delivers FIFO per (account, type)', async () => {
      await queues.jobs.push(queuedJobs(3));
      await queues.jobs.push(queuedJobs(2, {}, 4));
      const first = await queues.jobs.activate('acme', 'charge-card', 2, 'w1');
      const rest = await queues.jobs.activate('acme', 'charge-card', 10, 'w1');
      expect(keysOf(first)).toEqual(['1', '2']);
      expect(keysOf(rest)).toEqual(['3', '4', '5']);
    });

    it('returns the whole payload, marked with worker and time', async () => {
      const job = queuedJob('7', { partition: 3, retries: 2, customHeaders: { a: 'b' }, variables: { total: 250, items: [1, 2] } });
      await queues.jobs.push([job]);
      const before = Date.now();
      const [activated] = await queues.jobs.activate('acme', 'charge-card', 1, 'worker-a');
      expect(activated).toEqual({ ...job, worker: 'worker-a', activatedAt: activated.activatedAt });
      expect(activated.activatedAt).toBeGreaterThanOrEqual(before - 1000);
      expect(activated.activatedAt).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('respects max', async () => {
      await queues.jobs.push(queuedJobs(10));
      expect(await queues.jobs.activate('acme', 'charge-card', 4, 'w')).toHaveLength(4);
      expect(await queues.jobs.depth('acme', 'charge-card')).toBe(6);
      expect(await queues.jobs.activate('acme', 'charge-card', 0, 'w')).toEqual([]);
      expect(await queues.jobs.depth('acme', 'charge-card')).toBe(6);
    });

    it('answers [] at once when nothing is queued', async () => {
      const started = Date.now();
      expect(await queues.jobs.activate('acme', 'nothing-here', 10, 'w')).toEqual([]);
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('keeps accounts apart, even with the same type and job key', async () => {
      await queues.jobs.push([queuedJob('1', { account: 'acme' }), queuedJob('2', { account: 'acme' })]);
      await queues.jobs.push([queuedJob('1', { account: 'globex', variables: { who: 'globex' } })]);
      const globex = await queues.jobs.activate('globex', 'charge-card', 10, 'w');
      expect(globex.map((job) => [job.account, job.key, job.variables])).toEqual([['globex', '1', { who: 'globex' }]]);
      expect(await queues.jobs.activate('globex', 'charge-card', 10, 'w')).toEqual([]);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['1', '2']);
    });

    it('keeps types apart', async () => {
      await queues.jobs.push([queuedJob('1', { type: 'a' }), queuedJob('2', { type: 'b' })]);
      expect(keysOf(await queues.jobs.activate('acme', 'b', 10, 'w'))).toEqual(['2']);
      expect(keysOf(await queues.jobs.activate('acme', 'a', 10, 'w'))).toEqual(['1']);
    });

    it('does not redeliver an activated job on another activation', async () => {
      await queues.jobs.push(queuedJobs(2));
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 1, 'w1'))).toEqual(['1']);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w2'))).toEqual(['2']);
      expect(await queues.jobs.activate('acme', 'charge-card', 10, 'w3')).toEqual([]);
    });

    it('never delivers a job removed while queued', async () => {
      await queues.jobs.push(queuedJobs(3));
      expect(await queues.jobs.remove('acme', ['2', 'unknown'])).toBe(1);
      expect(await queues.jobs.depth('acme', 'charge-card')).toBe(2);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['1', '3']);
    });

    it('forgets a removed activated job: requeue would start it afresh, a push is new again', async () => {
      await queues.jobs.push(queuedJobs(1));
      await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      expect(await queues.jobs.remove('acme', ['1'])).toBe(1);
      expect(await queues.jobs.remove('acme', ['1'])).toBe(0);
      expect(await queues.jobs.updateVariables('acme', '1', { late: true })).toBe(false);
      expect(await queues.jobs.push(queuedJobs(1))).toBe(1);
    });

    it('requeue offers a failed job again at once with the new retries, ahead of later jobs', async () => {
      await queues.jobs.push(queuedJobs(3));
      const [job] = await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      await queues.jobs.requeue({ ...job, retries: 2, variables: { ...job.variables, attempt: 2 } });
      const again = await queues.jobs.activate('acme', 'charge-card', 2, 'w');
      expect(keysOf(again)).toEqual(['1', '2']);
      expect(again[0].retries).toBe(2);
      expect(again[0].variables).toEqual({ orderId: '1', attempt: 2 });
    });

    it('requeue of a job that is still queued only updates it', async () => {
      await queues.jobs.push(queuedJobs(2));
      await queues.jobs.requeue(queuedJob('2', { retries: 1 }));
      const jobs = await queues.jobs.activate('acme', 'charge-card', 10, 'w');
      expect(jobs.map((job) => [job.key, job.retries])).toEqual([
        ['1', 3],
        ['2', 1],
      ]);
    });

    it('requeue of an unknown job queues it at the back', async () => {
      await queues.jobs.push(queuedJobs(1));
      await queues.jobs.requeue(queuedJob('9', { retries: 1 }));
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['1', '9']);
    });

    it('does not deliver a duplicate push twice, queued or activated', async () => {
      expect(await queues.jobs.push([queuedJob('1'), queuedJob('1'), queuedJob('2')])).toBe(2);
      expect(await queues.jobs.push([queuedJob('1')])).toBe(0);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 1, 'w'))).toEqual(['1']);
      expect(await queues.jobs.push([queuedJob('1')])).toBe(0);
      expect(keysOf(await queues.jobs.activate('acme', 'charge-card', 10, 'w'))).toEqual(['2']);
      expect(await queues.jobs.activate('acme', 'charge-card', 10, 'w')).toEqual([]);
    });

    it('activation returns the variables as updated after the push', async () => {
      await queues.jobs.push([queuedJob('1', { variables: { status: 'new' } })]);
      expect(await queues.jobs.updateVariables('acme', '1', { status: 'paid', amount: 10 })).toBe(true);
      expect(await queues.jobs.updateVariables('acme', 'unknown', { x: 1 })).toBe(false);
      expect(await queues.jobs.updateVariables('globex', '1', { x: 1 })).toBe(false);
      const [job] = await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      expect(job.variables).toEqual({ status: 'paid', amount: 10 });
    });

    it('does not share objects with the caller', async () => {
      const job = queuedJob('1', { variables: { list: [1] } });
      await queues.jobs.push([job]);
      (job.variables.list as number[]).push(2);
      const [activated] = await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      expect(activated.variables).toEqual({ list: [1] });
    });

    it('50 concurrent activations over 1,000 jobs deliver each job exactly once', async () => {
      const pods = [queues, ...(await Promise.all(Array.from({ length: 4 }, () => harness.open())))];
      const jobs = queuedJobs(1000);
      for (let i = 0; i < jobs.length; i += 100) await queues.jobs.push(jobs.slice(i, i + 100));
      const delivered: string[] = [];
      await Promise.all(
        Array.from({ length: 50 }, async (_, worker) => {
          const pod = pods[worker % pods.length];
          for (;;) {
            const batch = await pod.jobs.activate('acme', 'charge-card', 1 + (worker % 9), `w${worker}`);
            if (batch.length === 0) return;
            for (const job of batch) delivered.push(job.key);
          }
        }),
      );
      expect(delivered).toHaveLength(1000);
      expect(new Set(delivered).size).toBe(1000);
      expect(await queues.jobs.depth('acme', 'charge-card')).toBe(0);
    });
  });
}
