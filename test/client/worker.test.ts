// createWorker against a real server: handlers see variables and custom
// headers, a returned object completes the job with it, a thrown error
// fails it with retries - 1 until an incident (visible through the API), a
// JobFailure chooses retries and a back-off the worker waits itself, the
// number of jobs in hand stays within maxJobsActive with activation at the
// threshold, long polling, and stop() finishing the jobs in hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, JobFailure, OrcaClient, type ActivatedJob, type WorkerEvent } from '../../client/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually, serviceProcess } from '../api/workflow-support.ts';

let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(() => api?.close());

async function newClient(): Promise<OrcaClient> {
  const { apiKey } = await api.newAccount();
  return new OrcaClient({ url: api.baseUrl, apiKey });
}

async function startMany(client: OrcaClient, bpmnProcessId: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) keys.push((await client.startInstance({ bpmnProcessId, variables: { n: i } })).processInstanceKey);
  return keys;
}

async function statesOf(client: OrcaClient, keys: string[]): Promise<string[]> {
  return Promise.all(keys.map(async (key) => (await client.getInstance(key)).state));
}

/** A promise and the function that settles it. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const FAST_POLL: [number, number] = [20, 50];

describe('createWorker', () => {
  it('passes variables and custom headers to the handler and completes with what it returns', async () => {
    const client = await newClient();
    const headers = '<zeebe:taskHeaders><zeebe:header key="currency" value="EUR"/></zeebe:taskHeaders>';
    const xml = processXml('priced', start() + service('task', 'price', headers) + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));
    await client.deploy({ name: 'priced.bpmn', content: xml });
    const keys = await startMany(client, 'priced', 3);
    const seen: ActivatedJob[] = [];
    const worker = createWorker({
      client,
      type: 'price',
      pollIntervalMs: FAST_POLL,
      handler: (job) => {
        seen.push(job);
        return { price: `${(job.variables.n as number) * 10} ${job.customHeaders.currency}` };
      },
    });
    await eventually(async () => (worker.stats().completed === 3 ? true : undefined), 'three jobs completed');
    await worker.stop();
    expect(seen.map((j) => j.customHeaders)).toEqual([{ currency: 'EUR' }, { currency: 'EUR' }, { currency: 'EUR' }]);
    for (const [n, key] of keys.entries()) {
      expect(await client.getInstance(key)).toMatchObject({ state: 'COMPLETED', variables: { n, price: `${n * 10} EUR` } });
    }
  });

  it('deploy with inlineScripts (extension) runs a zeebe:script inline; the worker sees its result', async () => {
    const client = await newClient();
    const sum =
      '<bpmn:scriptTask id="sum"><bpmn:extensionElements><zeebe:script expression="=n * 2" resultVariable="doubled"/></bpmn:extensionElements></bpmn:scriptTask>';
    const xml = processXml(
      'doubling',
      start() + sum + service('task', 'use') + end() + flow('f1', 'start', 'sum') + flow('f2', 'sum', 'task') + flow('f3', 'task', 'end'),
    );
    const deployed = await client.deploy({ name: 'doubling.bpmn', content: xml, inlineScripts: true });
    expect(deployed).toMatchObject({ kind: 'process', deployments: [{ version: 1, isNew: true }] });
    const [key] = await startMany(client, 'doubling', 1);
    const seen: ActivatedJob[] = [];
    const worker = createWorker({ client, type: 'use', pollIntervalMs: FAST_POLL, handler: (job) => (seen.push(job), {}) });
    await eventually(async () => (seen.length === 1 ? true : undefined), 'the job after the script');
    await worker.stop();
    expect(seen[0].variables).toEqual({ n: 0, doubled: 0 });
    expect((await client.getInstance(key)).state).toBe('COMPLETED');
  });

  it('with a timeout (extension), a job its handler holds too long is offered to another worker', async () => {
    const client = await newClient();
    await client.deploy({ name: 'slow.bpmn', content: serviceProcess('slow', 'slow-work', 3) });
    const [key] = await startMany(client, 'slow', 1);
    const stuck = gate();
    const held: ActivatedJob[] = [];
    const slow = createWorker({
      client,
      type: 'slow-work',
      name: 'slow',
      timeout: 500,
      maxJobsActive: 1,
      pollIntervalMs: FAST_POLL,
      handler: async (job) => {
        held.push(job);
        await stuck.opened;
        return {};
      },
    });
    await eventually(async () => (held.length === 1 ? true : undefined), 'the slow worker to hold the job');
    const done: ActivatedJob[] = [];
    const quick = createWorker({ client, type: 'slow-work', name: 'quick', pollIntervalMs: FAST_POLL, handler: (job) => (done.push(job), { by: 'quick' }) });
    await eventually(async () => (done.length === 1 ? true : undefined), 'the job to be offered again to the quick worker', 15_000);
    await quick.stop();
    stuck.open();
    await slow.stop();
    expect(done[0]).toMatchObject({ key: held[0].key, worker: 'quick' });
    // What every job carries (issue #21 item 6): its instance, process id and version, element and headers.
    expect(held[0]).toMatchObject({
      processInstanceKey: key,
      bpmnProcessId: 'slow',
      processDefinitionVersion: 1,
      elementId: expect.any(String),
      customHeaders: {},
    });
    expect(await client.getInstance(key)).toMatchObject({ state: 'COMPLETED', variables: { by: 'quick' } });
  });

  it('fails a job with retries - 1 and the message on each throw, until an incident shows in the API', async () => {
    const client = await newClient();
    await client.deploy({ name: 'flaky.bpmn', content: serviceProcess('flaky', 'flaky-work', 3) });
    const [key] = await startMany(client, 'flaky', 1);
    const calls: number[] = [];
    const events: WorkerEvent[] = [];
    const worker = createWorker({
      client,
      type: 'flaky-work',
      pollIntervalMs: FAST_POLL,
      onEvent: (e) => events.push(e),
      handler: (job) => {
        calls.push(job.retries);
        throw new Error(`downstream refused (attempt ${calls.length})`);
      },
    });
    const incidents = await eventually(async () => {
      const page = await client.listIncidents({ processInstanceKey: key });
      return page.items.length > 0 ? page.items : undefined;
    }, 'an incident');
    await worker.stop();
    expect(calls).toEqual([3, 2, 1]);
    const failed = events.filter((e) => e.type === 'job-failed');
    expect(failed.map((e) => e.retries)).toEqual([2, 1, 0]);
    expect(incidents).toMatchObject([{ state: 'OPEN', jobKey: failed[0].job.key }]);
    expect(incidents[0].message).toContain('downstream refused (attempt 3)');
    expect((await client.getInstance(key)).state).toBe('INCIDENT');
  });

  it('lets a handler choose the retries left and a back-off the worker waits before failing', async () => {
    const client = await newClient();
    await client.deploy({ name: 'backoff.bpmn', content: serviceProcess('backoff', 'backoff-work', 5) });
    const [key] = await startMany(client, 'backoff', 1);
    const waits: number[] = [];
    let calls = 0;
    const worker = createWorker({
      client,
      type: 'backoff-work',
      pollIntervalMs: FAST_POLL,
      sleep: async (ms, signal) => {
        waits.push(ms);
        await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
        signal?.throwIfAborted();
      },
      handler: () => {
        calls++;
        if (calls === 1) throw new JobFailure('rate limited upstream', { retries: 1, retryBackoffMs: 7_500 });
        return { ok: true };
      },
    });
    await eventually(async () => ((await client.getInstance(key)).state === 'COMPLETED' ? true : undefined), 'completed on the second try');
    await worker.stop();
    expect(calls).toBe(2);
    expect(waits).toContain(7_500);
  });

  it('refuses a handler result that is not an object by failing the job', async () => {
    const client = await newClient();
    await client.deploy({ name: 'odd.bpmn', content: serviceProcess('odd', 'odd-work', 1) });
    const [key] = await startMany(client, 'odd', 1);
    const worker = createWorker({ client, type: 'odd-work', pollIntervalMs: FAST_POLL, handler: () => 42 as never });
    const incidents = await eventually(async () => {
      const page = await client.listIncidents({ processInstanceKey: key });
      return page.items.length > 0 ? page.items : undefined;
    }, 'an incident');
    await worker.stop();
    expect(incidents[0].message).toContain('return an object of variables');
  });

  it('holds at most maxJobsActive jobs and activates more only at the threshold; stop() finishes the jobs in hand', async () => {
    const client = await newClient();
    await client.deploy({ name: 'held.bpmn', content: serviceProcess('held', 'held-work') });
    const keys = await startMany(client, 'held', 14);
    const release = gate();
    const events: WorkerEvent[] = [];
    let running = 0;
    let most = 0;
    const worker = createWorker({
      client,
      type: 'held-work',
      maxJobsActive: 10,
      activateThreshold: 0.5,
      pollIntervalMs: FAST_POLL,
      onEvent: (e) => events.push(e),
      handler: async () => {
        most = Math.max(most, ++running);
        await release.opened;
        running--;
        return {};
      },
    });
    await eventually(async () => (worker.stats().active === 10 ? true : undefined), 'ten jobs in hand');
    const polls = () => events.filter((e): e is Extract<WorkerEvent, { type: 'poll' }> => e.type === 'poll');
    const pollsWhileFull = polls().length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(polls().length).toBe(pollsWhileFull); // Full: no poll.
    expect(polls()[0]).toEqual({ type: 'poll', requested: 10, activated: 10 });

    const stopping = worker.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false); // Ten jobs still in hand.
    release.open();
    await stopping;
    await worker.stopped;
    expect(most).toBe(10);
    expect(worker.stats()).toMatchObject({ active: 0, completed: 10 });
    expect(events.at(-1)).toEqual({ type: 'stopped' });
    const states = await statesOf(client, keys);
    expect(states.filter((s) => s === 'COMPLETED')).toHaveLength(10);
    expect(states.filter((s) => s === 'ACTIVE')).toHaveLength(4);
  });

  it('activates again once the jobs in hand fall to the threshold, asking for the free room', async () => {
    const client = await newClient();
    await client.deploy({ name: 'refill.bpmn', content: serviceProcess('refill', 'refill-work') });
    await startMany(client, 'refill', 16);
    const gates = new Map<number, () => void>();
    const events: WorkerEvent[] = [];
    const worker = createWorker({
      client,
      type: 'refill-work',
      maxJobsActive: 8,
      activateThreshold: 0.5,
      pollIntervalMs: FAST_POLL,
      onEvent: (e) => events.push(e),
      handler: (job) => new Promise((resolve) => gates.set(job.variables.n as number, () => resolve({}))),
    });
    await eventually(async () => (gates.size === 8 ? true : undefined), 'eight jobs in hand');
    const polls = () => events.filter((e): e is Extract<WorkerEvent, { type: 'poll' }> => e.type === 'poll');
    let released = 0;
    const release = async (count: number) => {
      for (const [n, resolve] of [...gates.entries()].slice(0, count)) {
        gates.delete(n);
        resolve();
        released++;
      }
      await eventually(async () => (worker.stats().completed === released ? true : undefined), `${released} completed`);
    };
    await release(3); // Five in hand: above the threshold of four, no poll.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(polls()).toHaveLength(1);
    await release(1); // Four in hand: at the threshold, it asks for the four free places.
    await eventually(async () => (polls().length === 2 ? true : undefined), 'a second poll');
    expect(polls()[1]).toMatchObject({ requested: 4, activated: 4 });
    await eventually(async () => (gates.size === 8 ? true : undefined), 'eight in hand again');
    const stopping = worker.stop();
    await release(8);
    await stopping;
  });

  it('at the threshold, waits for the outcomes already on their way before polling, then asks for all the room', async () => {
    const { apiKey } = await api.newAccount();
    // Completions are held before they are sent, and let through one by one: outcomes on their way.
    const held: (() => void)[] = [];
    const heldFetch: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/complete')) await new Promise<void>((resolve) => held.push(resolve));
      return fetch(input, init);
    };
    const client = new OrcaClient({ url: api.baseUrl, apiKey, fetch: heldFetch });
    await client.deploy({ name: 'batched.bpmn', content: serviceProcess('batched', 'batched-work') });
    await startMany(client, 'batched', 8);
    const events: WorkerEvent[] = [];
    const worker = createWorker({
      client,
      type: 'batched-work',
      maxJobsActive: 4,
      activateThreshold: 0.5,
      pollIntervalMs: FAST_POLL,
      onEvent: (e) => events.push(e),
      handler: () => ({}),
    });
    const polls = () => events.filter((e): e is Extract<WorkerEvent, { type: 'poll' }> => e.type === 'poll');
    await eventually(async () => (held.length === 4 ? true : undefined), 'four completions on their way');
    for (const release of held.splice(0, 2)) release();
    // Two in hand, at the threshold of two; both are outcomes on their way, so no poll for two jobs yet.
    await eventually(async () => (worker.stats().completed === 2 ? true : undefined), 'two completed');
    for (const release of held.splice(0, 2)) release();
    await eventually(async () => (held.length === 4 ? true : undefined), 'the next four on their way');
    expect(polls().map((p) => p.requested)).toEqual([4, 4]);
    const stopping = worker.stop();
    for (const release of held.splice(0)) release();
    await stopping;
    expect(worker.stats().completed).toBe(8);
  });

  it('with a threshold of 1 activates whenever there is room, never asking for no job', async () => {
    const client = await newClient();
    await client.deploy({ name: 'eager.bpmn', content: serviceProcess('eager', 'eager-work') });
    await startMany(client, 'eager', 6);
    const gates: (() => void)[] = [];
    const events: WorkerEvent[] = [];
    const worker = createWorker({
      client,
      type: 'eager-work',
      maxJobsActive: 4,
      activateThreshold: 1,
      pollIntervalMs: FAST_POLL,
      onEvent: (e) => events.push(e),
      handler: () => new Promise((resolve) => gates.push(() => resolve({}))),
    });
    await eventually(async () => (gates.length === 4 ? true : undefined), 'four jobs in hand');
    // Full: it waits for room rather than asking for nothing (a 400).
    await new Promise((resolve) => setTimeout(resolve, 150));
    gates.shift()!();
    await eventually(async () => (gates.length === 4 ? true : undefined), 'a fifth job taken as soon as one finished');
    const stopping = worker.stop();
    while (gates.length > 0) gates.shift()!();
    await eventually(async () => (gates.length === 0 && worker.stats().active === 0 ? true : undefined), 'jobs in hand done');
    await stopping;
    const polls = events.filter((e): e is Extract<WorkerEvent, { type: 'poll' }> => e.type === 'poll');
    expect(events.filter((e) => e.type === 'poll-error')).toEqual([]);
    expect(polls.every((p) => p.requested >= 1)).toBe(true);
    expect(worker.stats().completed).toBe(5);
  });

  it('long-polls when asked: an empty poll waits on the server, not in a sleep', async () => {
    const client = await newClient();
    await client.deploy({ name: 'waiting.bpmn', content: serviceProcess('waiting', 'waiting-work') });
    const sleeps: number[] = [];
    const events: WorkerEvent[] = [];
    const worker = createWorker({
      client,
      type: 'waiting-work',
      requestTimeout: 2_000,
      onEvent: (e) => events.push(e),
      sleep: async (ms) => void sleeps.push(ms),
      handler: () => ({ done: true }),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [key] = await startMany(client, 'waiting', 1);
    await eventually(async () => ((await client.getInstance(key)).state === 'COMPLETED' ? true : undefined), 'completed');
    await worker.stop();
    expect(sleeps).toEqual([]);
    // The poll that was waiting when the instance started is the one that got the job.
    expect(events.find((e) => e.type === 'poll')).toEqual({ type: 'poll', requested: 32, activated: 1 });
  });
});
