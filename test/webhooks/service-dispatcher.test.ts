// The dispatcher as `orca start` runs it: on by default in the service
// (role all), delivering what is written to the outbox and counting it in
// the metrics (orca_webhook_deliveries_total by outcome, the backlog gauge);
// on an engine shard too; off with ORCA_WEBHOOK_DISPATCHER=off, and never on
// an `api` process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appConfig } from '../../api/config.ts';
import { createEngineService } from '../../api/engine-service.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';
import { serviceDispatcher } from '../../api/webhooks/service.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { addEndpoint, deliveriesOf, enqueueCompleted, eventually } from './outbox.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let api: ApiFixture;
let receiver: Receiver;
let secrets: string[] = [];

beforeAll(async () => {
  api = await apiFixture({ config: { webhooks: { allowPrivateNetworks: true, dispatcher: true } } });
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

  it('runs on an engine shard (orca start --role engine) and stops with it', async () => {
    const testDb = createTestDatabase();
    const service = await createEngineService(
      appConfig({
        http: { port: 0, host: '127.0.0.1' },
        engine: { databaseUrl: testDb.url, schema: testDb.schema, dataDir: 'memory://', partitions: 1 },
        webhooks: { allowPrivateNetworks: true },
      }),
    );
    try {
      expect(service.webhookDispatcher).toBeDefined();
      const db = service.engine.store.db;
      const endpoint = await addEndpoint(db, `${receiver.url}/shard`);
      secrets = [endpoint.secret];
      const [eventId] = await enqueueCompleted(db, endpoint.account);
      const got = await receiver.waitFor(receiver.received.length + 1);
      expect(got.at(-1)!.headers['webhook-id']).toBe(eventId);
    } finally {
      await service.close();
      await testDb.cleanup();
    }
  });

  it('does not run when switched off, nor on an api process', () => {
    const log = () => {};
    expect(serviceDispatcher(appConfig({ webhooks: { dispatcher: false } }), api.engine, undefined, log)).toBeUndefined();
    expect(serviceDispatcher(appConfig({ engine: { role: 'api' } }), api.engine, undefined, log)).toBeUndefined();
  });
});
