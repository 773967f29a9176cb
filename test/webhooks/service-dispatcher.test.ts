// The dispatcher as `orca start` runs it: on by default in the service
// (role all), delivering what is written to the outbox and counting it in
// the metrics (orca_webhook_deliveries_total by outcome, the backlog gauge);
// off with ORCA_WEBHOOK_DISPATCHER=off, and never on an `api` process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appConfig } from '../../api/config.ts';
import { serviceDispatcher } from '../../api/webhooks/service.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { addEndpoint, deliveriesOf, enqueueCompleted, eventually } from './outbox.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let api: ApiFixture;
let receiver: Receiver;
let secrets: string[] = [];

beforeAll(async () => {
  api = await apiFixture({ config: { webhooks: { allowPrivateNetworks: true } } });
  receiver = await startReceiver(() => secrets);
});
afterAll(async () => {
  await receiver?.close();
  await api?.close();
});

describe('the service dispatcher', () => {
  it('runs by default, delivers what the outbox holds and counts it', async () => {
    expect(api.service.webhookDispatcher).toBeDefined();
    const db = api.engine.store.db;
    const endpoint = await addEndpoint(db, `${receiver.url}/service`);
    secrets = [endpoint.secret];
    const [eventId] = await enqueueCompleted(db, endpoint.account);
    const [got] = await receiver.waitFor(1);
    expect(got.headers['webhook-id']).toBe(eventId);
    await eventually(async () => ((await deliveriesOf(db, endpoint.id))[0].status === 'delivered' ? true : undefined));
    const scrape = await api.call('GET', '/metrics');
    expect(scrape.text).toMatch(/^orca_webhook_deliveries_total\{outcome="delivered"\} 1$/m);
    expect(scrape.text).toMatch(/^orca_webhook_deliveries_total\{outcome="failed"\} 0$/m);
    expect(scrape.text).toMatch(/^orca_webhook_deliveries_pending 0$/m);
  });

  it('does not run when switched off, nor on an api process', () => {
    const log = () => {};
    expect(serviceDispatcher(appConfig({ webhooks: { dispatcher: false } }), api.engine, undefined, log)).toBeUndefined();
    expect(serviceDispatcher(appConfig({ engine: { role: 'api' } }), api.engine, undefined, log)).toBeUndefined();
  });
});
