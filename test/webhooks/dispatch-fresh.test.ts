// The in-memory path: a dispatcher attached to its process's engine sends
// the events of the batches its leaders commit without reading them back
// from the outbox. A batch's row is held while they are sent and marked
// delivered (with each delivery's outcome) once all succeeded, leaving no
// delivery row; a failed one becomes a delivery row with its retry
// schedule and is sent again from there. A dispatcher that dies after the
// commit and before sending leaves the row held: another takes it over once
// the hold lapses, not before, so nothing committed is lost. An endpoint
// that never answers holds up no instance.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import type { CommittedWebhookEvents, Engine } from '../../engine/index.ts';
import { end, flow, processXml, start } from '../../engine/runtime/testing.ts';
import { rows } from '../../engine/store/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { addEndpoint, deliveriesOf, eventually } from './outbox.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/** Completes as soon as it starts: one process_instance.completed per start. */
const QUICK = processXml('quick', start() + end() + flow('f1', 'start', 'end'));

let fixture: EngineFixture;
let engine: Engine;
let receiver: Receiver;
let secrets: string[] = [];

interface BatchRow {
  key: string;
  events: { i: string }[];
  claimed_until: string | null;
  delivered_at: string | null;
  outcomes: { e: string; i: string; c: number; ms: number; at: string }[] | null;
  endpoints: string[] | null;
}

async function batchesWith(eventIds: readonly string[]): Promise<BatchRow[]> {
  const all = await rows<BatchRow>(
    engine.store.db,
    sql`select key, events, claimed_until, delivered_at, outcomes, endpoints from webhook_batches order by created_at`,
  );
  return all.filter((b) => b.events.some((e) => eventIds.includes(e.i)));
}

async function startQuick(account: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const started = await engine.startInstance(account, 'quick');
    ids.push(`msg_${started.processInstanceKey}_process_instance_completed`);
  }
  return ids;
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

describe('deliveries taken from the leaders in memory', () => {
  it('sends a committed batch from memory, marks its row delivered with each outcome, and writes no delivery row', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/fresh`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    const dispatcher = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, attach: (t) => engine.attachWebhookTaker(t) });
    try {
      const ids = await startQuick(endpoint.account, 5);
      const got = await receiver.waitFor(5);
      expect(
        got
          .filter((d) => d.path === '/fresh')
          .map((d) => String(d.headers['webhook-id']))
          .sort(),
      ).toEqual([...ids].sort());
      const batches = await eventually(async () => {
        const found = await batchesWith(ids);
        return found.length > 0 && found.every((b) => b.delivered_at !== null) ? found : undefined;
      });
      const outcomes = batches.flatMap((b) => b.outcomes ?? []);
      expect(outcomes.map((o) => o.i).sort()).toEqual([...ids].sort());
      for (const o of outcomes) expect(o).toMatchObject({ e: endpoint.id, c: 200 });
      // What the endpoint's delivery log finds the rows by.
      for (const b of batches) expect(b.endpoints).toEqual([endpoint.id]);
      expect(await deliveriesOf(engine.store.db, endpoint.id)).toEqual([]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('turns a failed delivery into a delivery row with its retry schedule, sent again from there', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/flaky`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    let failures = 1;
    receiver.answer = (delivery, response) => {
      if (delivery.path === '/flaky' && failures-- > 0) response.writeHead(500).end('not now');
      else response.writeHead(200).end('ok');
    };
    const dispatcher = startWebhookDispatcher({
      db: engine.store.db,
      allowPrivateNetworks: true,
      attach: (t) => engine.attachWebhookTaker(t),
      schedule: [200],
      random: () => 0.5,
      idlePollMs: 50,
    });
    try {
      const [id] = await startQuick(endpoint.account, 1);
      const [row] = await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.length === 1 && found[0].status === 'delivered' ? found : undefined;
      });
      expect(row).toMatchObject({ event_id: id, attempts: 2, last_status_code: 200 });
      expect(row.log.map((l) => l.statusCode)).toEqual([500, 200]);
      expect(row.log[0].error).toBe('answered 500: not now');
      const [batch] = await batchesWith([id]);
      expect(batch.delivered_at).not.toBeNull();
      expect(batch.outcomes).toEqual([]);
      expect(receiver.received.filter((d) => d.path === '/flaky').map((d) => d.headers['webhook-id'])).toEqual([id, id]);
    } finally {
      await dispatcher.stop();
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
    }
  });

  it('sends a due retry while the same endpoint keeps getting fresh deliveries, not only once they stop', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/busy`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    let failures = 1;
    receiver.answer = (delivery, response) => {
      if (delivery.path !== '/busy') return void response.writeHead(200).end('ok');
      if (failures-- > 0) return void response.writeHead(500).end('not now');
      // Slower than the starts below come: the endpoint always has fresh deliveries queued here.
      setTimeout(() => response.writeHead(204).end(), 40);
    };
    const dispatcher = startWebhookDispatcher({
      db: engine.store.db,
      allowPrivateNetworks: true,
      attach: (t) => engine.attachWebhookTaker(t),
      perEndpoint: 1,
      schedule: [300],
      random: () => 0.5,
      busyPollMs: 25,
      idlePollMs: 50,
    });
    try {
      const [failed] = await startQuick(endpoint.account, 1);
      let streaming = true;
      let streamedUntil = 0;
      const stream = (async () => {
        const deadline = Date.now() + 4_000;
        while (streaming && Date.now() < deadline) {
          await startQuick(endpoint.account, 1);
          await new Promise((r) => setTimeout(r, 15));
        }
        streamedUntil = Date.now();
      })();
      const retried = await eventually(
        async () => receiver.received.filter((d) => d.path === '/busy' && d.headers['webhook-id'] === failed)[1],
        10_000,
        'the retry received',
      );
      streaming = false;
      await stream;
      // Received while fresh deliveries were still being made and sent, not after they stopped.
      expect(retried.receivedAt).toBeLessThan(streamedUntil);
      const [row] = await eventually(async () => {
        const found = (await deliveriesOf(engine.store.db, endpoint.id)).filter((r) => r.event_id === failed);
        return found.length === 1 && found[0].status === 'delivered' ? found : undefined;
      });
      expect(row.log.map((l) => l.statusCode)).toEqual([500, 204]);
    } finally {
      await dispatcher.stop();
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
    }
  });

  it("puts deliveries beyond an endpoint's queue here into the outbox at once, and sends them from there", async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/slow`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    receiver.answer = (delivery, response) => {
      if (delivery.path === '/slow') setTimeout(() => response.writeHead(204).end(), 300);
      else response.writeHead(200).end('ok');
    };
    // One request at a time to the endpoint and a short hold (claimMs, with the 1 s deadline), so at most two wait behind it here.
    const dispatcher = startWebhookDispatcher({
      db: engine.store.db,
      allowPrivateNetworks: true,
      attach: (t) => engine.attachWebhookTaker(t),
      perEndpoint: 1,
      timeoutMs: 1_000,
      claimMs: 33_000,
      idlePollMs: 50,
    });
    try {
      // Six starts at once: they commit in one batch or a few, and all but three go past the endpoint's queue here.
      const ids = await Promise.all([1, 2, 3, 4, 5, 6].map(() => startQuick(endpoint.account, 1))).then((all) => all.flat());
      const spilled = await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.length > 0 ? found : undefined;
      });
      expect(spilled[0].log.length).toBeLessThanOrEqual(1);
      await eventually(
        async () => {
          const got = new Set(receiver.received.filter((d) => d.path === '/slow').map((d) => String(d.headers['webhook-id'])));
          return ids.every((id) => got.has(id)) ? true : undefined;
        },
        30_000,
        'every event received',
      );
      const rowsNow = await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.every((r) => r.status === 'delivered') ? found : undefined;
      });
      // The spilled ones were sent by the claim path: one attempt each, from the outbox.
      expect(rowsNow.length).toBeGreaterThan(0);
      for (const row of rowsNow) expect(row.attempts).toBe(1);
    } finally {
      await dispatcher.stop();
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
    }
  });

  it('holds up no instance while its endpoint never answers: the leaders commit and answer, the requests hang apart', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/hang`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    const hanging: { end(): void }[] = [];
    receiver.answer = (delivery, response) => {
      if (delivery.path === '/hang') hanging.push(response);
      else response.writeHead(200).end('ok');
    };
    // The attempts' own deadline (15 s) is far past the test: whatever completes here did not wait for one.
    const dispatcher = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, attach: (t) => engine.attachWebhookTaker(t), perEndpoint: 4 });
    try {
      const ids = await startQuick(endpoint.account, 40);
      await eventually(async () => (receiver.open() >= 4 ? true : undefined));
      const states = await rows<{ state: string }>(engine.store.db, sql`select state from instances where account = ${endpoint.account}`);
      expect(states).toHaveLength(40);
      expect(states.every((r) => r.state === 'COMPLETED')).toBe(true);
      // The endpoint's four slots hang; none of its events was answered, and each is still held for delivery.
      const arrived = receiver.received.filter((d) => d.path === '/hang');
      expect(arrived.length).toBeLessThanOrEqual(4);
      const held = await batchesWith(ids);
      expect(held.every((b) => b.delivered_at === null)).toBe(true);
      expect(new Set(held.flatMap((b) => b.events.map((e) => e.i)))).toEqual(new Set(ids));
    } finally {
      await dispatcher.stop();
      for (const response of hanging) response.end();
      receiver.answer = (_d, response) => void response.writeHead(200).end('ok');
    }
  });

  it('leaves a batch its dispatcher never sent held until the hold lapses; another then takes it over and sends it', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/orphan`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    // A dispatcher that takes the events and dies before sending any: the commit wrote a 1.5 s hold.
    const dropped: CommittedWebhookEvents[] = [];
    engine.attachWebhookTaker({ holdMs: () => 1_500, take: (c) => dropped.push(c) });
    const ids = await startQuick(endpoint.account, 3);
    engine.attachWebhookTaker(undefined);
    expect(dropped.flatMap((c) => c.events.map((e) => e.id)).sort()).toEqual([...ids].sort());
    const committedAt = Date.now();
    const other = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, idlePollMs: 50 });
    try {
      await receiver.waitFor(receiver.received.filter((d) => d.refused === undefined).length + 3);
      expect(Date.now() - committedAt).toBeGreaterThanOrEqual(1_000);
      const sent = receiver.received.filter((d) => d.path === '/orphan').map((d) => String(d.headers['webhook-id']));
      expect(sent.sort()).toEqual([...ids].sort());
      // Taken over: the batch rows became delivery rows, now delivered, and are gone.
      const delivered = await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.length === 3 && found.every((r) => r.status === 'delivered') ? found : undefined;
      });
      expect(delivered.map((r) => r.event_id).sort()).toEqual([...ids].sort());
      expect(await batchesWith(ids)).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('writes the batch row unheld when no dispatcher is attached, and any dispatcher sends it at once', async () => {
    const endpoint = await addEndpoint(engine.store.db, `${receiver.url}/unheld`);
    secrets = [endpoint.secret];
    await engine.deploy(endpoint.account, QUICK, 'quick.bpmn');
    const ids = await startQuick(endpoint.account, 2);
    const held = await batchesWith(ids);
    expect(held.length).toBeGreaterThan(0);
    for (const b of held) expect(b.claimed_until).toBeNull();
    const other = startWebhookDispatcher({ db: engine.store.db, allowPrivateNetworks: true, idlePollMs: 50 });
    try {
      await eventually(async () => {
        const found = await deliveriesOf(engine.store.db, endpoint.id);
        return found.length === 2 && found.every((r) => r.status === 'delivered') ? true : undefined;
      });
    } finally {
      await other.stop();
    }
  });
});
