// Contract of JobQueue.waitForJobs (types.ts): the long-poll wake-up.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { implementations, title, type Harness } from './testing/implementations.ts';
import { queuedJob } from './testing/jobs.ts';
import type { Queues } from './types.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`JobQueue.waitForJobs: ${title(implementation)}`, () => {
    let harness: Harness;
    let queues: Queues;
    let pusher: Queues;

    beforeEach(async () => {
      harness = implementation.harness();
      queues = await harness.open();
      // Another pod pushes: the wake-up must cross connections.
      pusher = await harness.open();
    });
    afterEach(() => harness.cleanup());

    it('wakes as soon as a job of (account, type) is pushed', async () => {
      const started = Date.now();
      const waiting = queues.jobs.waitForJobs('acme', 'charge-card', 5000);
      await settle();
      await pusher.jobs.push([queuedJob('1')]);
      expect(await waiting).toBe(true);
      expect(Date.now() - started).toBeLessThan(2000);
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('wakes on a requeue', async () => {
      await pusher.jobs.push([queuedJob('1')]);
      const [job] = await queues.jobs.activate('acme', 'charge-card', 1, 'w');
      const waiting = queues.jobs.waitForJobs('acme', 'charge-card', 5000);
      await settle();
      await pusher.jobs.requeue({ ...job, retries: 2 });
      expect(await waiting).toBe(true);
    });

    it('answers true at once when a job is queued already', async () => {
      await pusher.jobs.push([queuedJob('1')]);
      expect(await queues.jobs.waitForJobs('acme', 'charge-card', 5000)).toBe(true);
      expect(harness.listeners()).toBe(0);
    });

    it('times out with false, and ignores other accounts and types, without leaking', async () => {
      const started = Date.now();
      const waiting = queues.jobs.waitForJobs('acme', 'charge-card', 300);
      await settle();
      await pusher.jobs.push([queuedJob('1', { account: 'globex' }), queuedJob('2', { type: 'ship' })]);
      expect(await waiting).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('many waiters on one (account, type) share a subscription and all wake', async () => {
      const waiting = Array.from({ length: 20 }, () => queues.jobs.waitForJobs('acme', 'charge-card', 5000));
      await settle();
      await pusher.jobs.push([queuedJob('1')]);
      expect(await Promise.all(waiting)).toEqual(Array(20).fill(true));
      await settle();
      expect(harness.listeners()).toBe(0);
    });

    it('an abort ends the wait with false and removes its abort listener', async () => {
      const controller = new AbortController();
      const waiting = queues.jobs.waitForJobs('acme', 'charge-card', 5000, controller.signal);
      await settle();
      controller.abort();
      expect(await waiting).toBe(false);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await settle();
      expect(harness.listeners()).toBe(0);
      expect(await queues.jobs.waitForJobs('acme', 'charge-card', 5000, controller.signal)).toBe(false);
    });

    it('a wait that ends otherwise removes its abort listener too', async () => {
      const controller = new AbortController();
      expect(await queues.jobs.waitForJobs('acme', 'charge-card', 50, controller.signal)).toBe(false);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('close() ends pending waits with false', async () => {
      const waiting = queues.jobs.waitForJobs('acme', 'charge-card', 10_000);
      await settle();
      await queues.close();
      expect(await waiting).toBe(false);
    });
  });
}
