// Batched delivery end to end: an endpoint created over REST with
// `batching` gets the service's own dispatcher's requests as signed JSON
// arrays (verified by the `standardwebhooks` package), the delivery log
// lists each event with the answer of the request that carried it, a test
// event and a redelivery arrive as arrays of one, and with batching turned
// off by PATCH the next event is a request of its own again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../webhooks/outbox.ts';
import type { ReceivedDelivery, Receiver } from '../webhooks/receiver.ts';
import type { ApiFixture } from './api-fixture.ts';
import { webhookEndpointFixture, type WebhookEndpointFixture } from './webhook-endpoint-fixture.ts';
import { startInstance, type Json } from './workflow-support.ts';

let fixture: WebhookEndpointFixture;
let api: ApiFixture;
let receiver: Receiver;
let apiKey: string;
let endpointId: string;

beforeAll(async () => {
  fixture = await webhookEndpointFixture('/batched', { batching: { maxEvents: 5, maxWaitMs: 200 } });
  ({ api, receiver, apiKey, endpointId } = fixture);
  expect(fixture.created.batching).toEqual({ maxEvents: 5, maxWaitMs: 200 });
}, 60_000);
afterAll(() => fixture?.close());

const verified = () => receiver.received.filter((d) => d.refused === undefined && d.path === '/batched');
const elements = (d: ReceivedDelivery): { id: string; type: string }[] => {
  const body = JSON.parse(d.body) as unknown;
  return Array.isArray(body) ? (body as { id: string; type: string }[]) : [];
};

async function log(): Promise<Json[]> {
  const res = await api.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`, { apiKey, query: { limit: 1000 } });
  expect(res.status, res.text).toBe(200);
  return res.json.items;
}

describe('batched delivery over the API', () => {
  it('sends the engine events as signed arrays of at most maxEvents, each listed in the log with its answer', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(`msg_${await startInstance(api, apiKey, 'quick')}_process_instance_completed`);
    const requests = await eventually(async () => (verified().flatMap(elements).length >= 7 ? verified() : undefined));
    expect(
      requests
        .flatMap(elements)
        .map((e) => e.id)
        .sort(),
    ).toEqual([...ids].sort());
    for (const r of requests) {
      expect(elements(r).length).toBeGreaterThan(0);
      expect(elements(r).length).toBeLessThanOrEqual(5);
      expect(String(r.headers['webhook-id'])).toMatch(/^msg_b[0-9a-f]{32}$/);
    }
    const items = await eventually(async () => {
      const found = await log();
      return found.length === 7 && found.every((d) => d.status === 'delivered') ? found : undefined;
    });
    expect(items.map((d) => d.eventId).sort()).toEqual([...ids].sort());
    for (const d of items) expect(d.log).toEqual([expect.objectContaining({ statusCode: 200 })]);
  });

  it('sends a test event and a redelivery as arrays of one', async () => {
    const before = verified().length;
    const test = await api.call('POST', `/api/v1/webhooks/${endpointId}/test`, { apiKey });
    expect(test.status, test.text).toBe(202);
    const [sent] = await eventually(async () => (verified().length > before ? verified().slice(before) : undefined));
    expect(elements(sent)).toEqual([expect.objectContaining({ id: test.json.eventId, type: 'webhook.test' })]);

    const [delivered] = (await log()).filter((d) => d.type === 'process_instance.completed');
    const again = await api.call('POST', `/api/v1/webhooks/${endpointId}/deliveries/${delivered.id}/redeliver`, { apiKey });
    expect(again.status, again.text).toBe(202);
    const resent = await eventually(async () => verified().find((d) => elements(d).length === 1 && elements(d)[0].id === delivered.eventId && d !== sent));
    expect(elements(resent)).toHaveLength(1);
  });

  it('with batching turned off, the next event is a request of its own', async () => {
    const off = await api.call('PATCH', `/api/v1/webhooks/${endpointId}`, { apiKey, json: { batching: null } });
    expect(off.status, off.text).toBe(200);
    expect(off.json.batching).toBeNull();
    // The in-memory path reads an account's endpoints at most a second old.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const id = `msg_${await startInstance(api, apiKey, 'quick')}_process_instance_completed`;
    const single = await eventually(async () => verified().find((d) => d.headers['webhook-id'] === id));
    expect(JSON.parse(single.body)).toMatchObject({ type: 'process_instance.completed' });
  });
});
