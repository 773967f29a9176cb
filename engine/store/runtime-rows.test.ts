// runtime-rows.ts maps both ways between what the runtime holds and the
// rows the batch commit writes: a job stored from its offer reads back as
// that offer (what a queue rebuild pushes again), a timer start event's row
// reads back as its schedule, and job rows carry plain objects even when the
// compiled model's headers are prototype-less records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { jobOffer } from '../runtime/behavior/job.ts';
import type { Job } from '../runtime/types.ts';
import { createStore, type Store } from './index.ts';
import { jobRow, offeredJobRow, offerOfJobRow, startTimerOf, startTimerRow, type StartTimer } from './runtime-rows.ts';
import { instanceDoc, keyOf } from './test-fixtures.ts';

const testDb = createTestDatabase();
let store: Store;

beforeAll(async () => {
  store = createStore((await testDb.open()).db);
});
afterAll(() => testDb.cleanup());

describe('runtime rows', () => {
  it('stores a job from its offer and reads the same offer back', async () => {
    const lease = await store.leases.acquireLease(1, 'shard-a', 10_000);
    const key = keyOf(1, 1);
    const document = instanceDoc(key, { bpmnProcessId: 'invoice', version: 3 });
    const headers = Object.assign(Object.create(null) as Record<string, string>, { region: 'eu' });
    const job: Job = {
      key: keyOf(1, 2),
      type: 'charge',
      retries: 2,
      elementId: 'pay',
      elementInstanceKey: keyOf(1, 3),
      customHeaders: headers,
      state: 'ACTIVATABLE',
    };
    document.jobs[job.key] = job;
    const offer = jobOffer(document, job);
    const row = offeredJobRow('acme', offer, 'ACTIVATABLE');
    expect(Object.getPrototypeOf(row.customHeaders)).toBe(Object.prototype);
    expect(jobRow('acme', document, job)).toEqual(row);
    await store.commitBatch({ partition: 1, epoch: lease!.epoch, instances: [{ account: 'acme', document }], jobsUpsert: [row] });
    const [stored] = await store.jobs.loadPartitionJobs(1);
    expect(offerOfJobRow(stored)).toEqual({ ...offer, customHeaders: { region: 'eu' } });
  });

  it("keeps a message wait's message (extension) through its row, apart from the custom headers", async () => {
    const lease = await store.leases.acquireLease(3, 'shard-a', 10_000);
    const key = keyOf(3, 1);
    const document = instanceDoc(key, { bpmnProcessId: 'orders', version: 1 });
    const job: Job = {
      key: keyOf(3, 2),
      type: 'message:paid',
      retries: 3,
      elementId: 'wait-paid',
      elementInstanceKey: keyOf(3, 3),
      customHeaders: { region: 'eu' },
      state: 'ACTIVATABLE',
      message: { name: 'paid', correlationKey: 'A-17' },
    };
    const keyless: Job = { ...job, key: keyOf(3, 4), message: { name: 'paid' } };
    document.jobs[job.key] = job;
    document.jobs[keyless.key] = keyless;
    const rows = [jobRow('acme', document, job), jobRow('acme', document, keyless)];
    await store.commitBatch({ partition: 3, epoch: lease!.epoch, instances: [{ account: 'acme', document }], jobsUpsert: rows });
    const stored = await store.jobs.loadPartitionJobs(3);
    expect(stored.map(offerOfJobRow)).toEqual([jobOffer(document, job), jobOffer(document, keyless)]);
    expect(offerOfJobRow(stored[0])).toMatchObject({ customHeaders: { region: 'eu' }, message: { name: 'paid', correlationKey: 'A-17' } });
  });

  it('stores a timer start event and reads the same schedule back', async () => {
    const lease = await store.leases.acquireLease(2, 'shard-a', 10_000);
    const dueAt = Date.UTC(2025, 0, 2);
    const start: StartTimer = {
      bpmnProcessId: 'nightly',
      version: 4,
      elementId: 'every-night',
      schedule: { kind: 'date', text: '2025-01-02T00:00:00Z', at: dueAt } as never,
      firedCount: 5,
    };
    await store.commitBatch({ partition: 2, epoch: lease!.epoch, timersUpsert: [startTimerRow(keyOf(2, 1), 'acme', dueAt, start)] });
    const [stored] = await store.timers.loadDueTimers(2, new Date(dueAt + 1));
    expect(stored).toMatchObject({ key: keyOf(2, 1), account: 'acme', instanceKey: null, ownerKey: null });
    expect(stored.dueAt.getTime()).toBe(dueAt);
    expect(startTimerOf(stored)).toEqual(start);
  });
});
