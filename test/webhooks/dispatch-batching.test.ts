// Batched delivery (docs/webhooks.md): an endpoint with `batching` gets its
// events as JSON arrays of at most maxEvents, each element the event with
// its id first, the request signed the Standard Webhooks way over the
// whole array (the `standardwebhooks` package verifies it) — from the
// leaders' in-memory path and from delivery rows alike; every event keeps
// its own record of the request that carried it, and a failed request
// leaves each of its events pending on its own retry schedule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import type { Engine } from '../../engine/index.ts';
import { end, flow, processXml, start } from '../../engine/runtime/testing.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { addEndpoint, deliveriesOf, enqueueCompleted, eventually } from './outbox.ts';
import { startReceiver, type ReceivedDelivery, type Receiver } from './receiver.ts';

const QUICK = processXml('quick', start() + end() + flow('f1', 'start', 'end'));
const SHORT = [50, 50, 50];

let fixture: EngineFixture;
let engine: Engine;
let receiver: Receiver;
let secrets: string[] = [];

interface Element {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const elementsOf = (d: ReceivedDelivery): Element[] => JSON.parse(d.body) as Element[];
const at = (path: string) => receiver.received.filter((d) => d.path === path && d.refused === undefined);

async function until(path: string, events: number): Promise<ReceivedDelivery[]> {
  return eventually(async () => {
    const got = at(path);
    return got.flatMap(elementsOf).length >= events ? got : undefined;
  });
}

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start({ partitions: 2 });
  receiver = await startReceiver(() => secrets);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await fixture?.cleanup();
});

describe('batched delivery', () => {
  it('sends the events committed by the leaders as signed arrays of at most maxEvents, each with its id', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/batched`, { batching: { maxEvents: 4, maxWaitMs: 300 } });
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    const dispatcher = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, attach: (t) => engine.attachWebhookTaker(t) });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const started = await engine.startInstance(endpoint.account, 'quick');
        ids.push(`msg_${started.processInstanceKey}_process_instance_completed`);
      }
      const requests = await until('/batched', 10);
      const elements = requests.flatMap(elementsOf);
      expect(elements.map((e) => e.id).sort()).toEqual([...ids].sort());
      for (const e of elements) {
        expect(Object.keys(e)[0]).toBe('id');
        expect(e).toMatchObject({ type: 'process_instance.completed', data: { bpmnProcessId: 'quick' } });
      }
      for (const r of requests) {
        expect(elementsOf(r).length).toBeLessThanOrEqual(4);
        expect(String(r.headers['webhook-id'])).toMatch(/^msg_b[0-9a-f]{32}$/);
      }
      // Ten events within the wait went out in fewer requests than events.
      expect(requests.length).toBeLessThan(10);
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(requests.length);
    } finally {
      await dispatcher.stop();
    }
  });

  it('sends due delivery rows at once, grouped, and records each event as delivered by the request that carried it', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/rows`, { batching: { maxEvents: 3, maxWaitMs: 60_000 } });
    secrets = [endpoint.secret];
    const ids = await enqueueCompleted(engine.store.db, endpoint.account, 7);
    const dispatcher = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, idlePollMs: 40 });
    try {
      // Due rows do not wait out maxWaitMs (a minute here).
      const requests = await until('/rows', 7);
      expect(
        requests
          .flatMap(elementsOf)
          .map((e) => e.id)
          .sort(),
      ).toEqual([...ids].sort());
      for (const r of requests) expect(elementsOf(r).length).toBeLessThanOrEqual(3);
      const rows = await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.length === 7 && found.every((r) => r.status === 'delivered') ? found : undefined;
      });
      for (const row of rows) {
        expect(row).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null });
        expect(row.log).toHaveLength(1);
      }
    } finally {
      await dispatcher.stop();
    }
  });

  it('a failed request leaves each of its events pending on its own schedule, and they are delivered on retry', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/flaky`, { batching: { maxEvents: 10, maxWaitMs: 0 } });
    secrets = [endpoint.secret];
    let failures = 1;
    receiver.answer = (delivery, response) => {
      if (delivery.path === '/flaky' && failures-- > 0) response.writeHead(500, { 'content-type': 'text/plain' }).end('try later');
      else response.writeHead(200).end('ok');
    };
    const ids = await enqueueCompleted(engine.store.db, endpoint.account, 5);
    const dispatcher = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, idlePollMs: 40, schedule: SHORT });
    try {
      const rows = await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.length === 5 && found.every((r) => r.status === 'delivered') ? found : undefined;
      });
      const first = at('/flaky')[0];
      const failedIds = new Set(elementsOf(first).map((e) => e.id));
      expect(failedIds.size).toBeGreaterThan(0);
      for (const row of rows) {
        if (!failedIds.has(row.event_id)) continue;
        expect(row.attempts).toBe(2);
        expect(row.log[0]).toMatchObject({ statusCode: 500, error: 'answered 500: try later' });
        expect(row.log[1]).toMatchObject({ statusCode: 200 });
      }
      const delivered = at('/flaky').slice(1).flatMap(elementsOf);
      expect(new Set(delivered.map((e) => e.id))).toEqual(new Set(ids));
    } finally {
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
      await dispatcher.stop();
    }
  });
});
