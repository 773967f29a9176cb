// The timer-boundary pattern docs/client.md recommends (SPEC.md: business
// deadlines belong in the model), against a real server: a worker whose
// handler hangs keeps its job — there is no lock period — until the timer on
// the task withdraws it and the instance takes the late path; the worker's
// late completion is then refused (404), reported as an `outcome-refused`
// event.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorker, OrcaClient, type WorkerEvent } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually } from '../api/workflow-support.ts';

let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(() => api?.close());

it('a job held by a hung worker stays held until the timer boundary withdraws it; the late completion is refused', { timeout: 60_000 }, async () => {
  const { apiKey } = await api.newAccount();
  const client = new OrcaClient({ url: api.baseUrl, apiKey });
  const model = await readFile(new URL('../../examples/order-deadline.bpmn', import.meta.url), 'utf8');
  expect(model).toContain('<bpmn:timeDuration>PT2H</bpmn:timeDuration>');
  // The example's two hours, shortened so the test can wait for them.
  await client.deploy({ name: 'order-deadline.bpmn', content: model.replace('PT2H', 'PT2S') });
  const started = await client.startInstance({ bpmnProcessId: 'order-deadline', variables: { orderId: 'D1' } });

  // A worker whose handler hangs (a crashed downstream call): it holds the job.
  const events: WorkerEvent[] = [];
  let release: () => void = () => {};
  const hung = new Promise<void>((resolve) => (release = resolve));
  const stuck = createWorker({
    client,
    type: 'ship',
    name: 'stuck',
    pollIntervalMs: [50, 100],
    onEvent: (e) => events.push(e),
    handler: async () => {
      await hung;
      return { tracking: 'T-late' };
    },
  });
  await eventually(async () => (stuck.stats().active === 1 ? true : undefined), 'the job in hand');
  // No lock period: nobody else is offered the job while it is held.
  expect(await client.activateJobs({ type: 'ship', maxJobsToActivate: 1, worker: 'another' })).toEqual([]);

  const late = createWorker({ client, type: 'handle-late-shipment', pollIntervalMs: [50, 100], handler: () => ({ lateHandled: true }) });
  const done = await eventually(
    async () => {
      const instance = await client.getInstance(started.processInstanceKey);
      return instance.state === 'COMPLETED' ? instance : undefined;
    },
    'the late path completed',
    30_000,
  );
  await late.stop();
  expect(done.variables).toMatchObject({ orderId: 'D1', lateHandled: true });

  // The handler finally returns: the job is gone, and the worker says so.
  release();
  await stuck.stop();
  const refused = events.find((e): e is Extract<WorkerEvent, { type: 'outcome-refused' }> => e.type === 'outcome-refused');
  expect(refused).toMatchObject({ outcome: 'complete', error: { status: 404, code: 'NOT_FOUND' }, repeated: false });
  expect(stuck.stats()).toMatchObject({ completed: 0, failed: 0, active: 0 });
  expect((await client.getInstance(started.processInstanceKey)).variables).not.toHaveProperty('tracking');
});
