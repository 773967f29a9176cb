// Webhook endpoints over real HTTP (/api/v1/webhooks): each route, each
// refusal of bad input naming its field (and changing nothing), the SSRF
// refusal of every reserved address class with the default configuration,
// another account's endpoint not found, the signing secret shown once,
// sealed in the database and never logged, rotation keeping the previous
// secret for 24 hours, the test event and redelivery as delivery rows, and
// the per-account cap, batched delivery set, changed, turned off and its
// bad values refused. No dispatcher runs here: delivery rows stay as the
// routes leave them.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, WEBHOOK_EVENT_TYPES } from '../../engine/store/index.ts';
import { secretSealer } from '../../api/webhooks/signing-secret.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import type { Json } from './workflow-support.ts';

const secretKey = randomBytes(32).toString('base64');
const logged: string[] = [];
let api: ApiFixture;
let apiKey: string;
let otherKey: string;

beforeAll(async () => {
  api = await apiFixture({ config: { webhooks: { secretKey } }, logger: { stream: { write: (line: string) => void logged.push(line) } } });
  ({ apiKey } = await api.newAccount());
  ({ apiKey: otherKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

const PUBLIC_URL = 'https://93.184.216.34/hooks/orca';

async function create(body: Json, key = apiKey) {
  return api.call('POST', '/api/v1/webhooks', { apiKey: key, json: body });
}

async function mustCreate(body: Json = {}, key = apiKey): Promise<Json> {
  const res = await create({ url: PUBLIC_URL, events: ['process_instance.completed'], ...body }, key);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function storedEndpoint(id: string) {
  const [row] = await rows<{ secret: string; previous_secret: string | null }>(
    api.engine.store.db,
    sql`select secret, previous_secret from webhook_endpoints where id = ${id}`,
  );
  return row;
}

async function endpointCount(key = apiKey): Promise<number> {
  const res = await api.call('GET', '/api/v1/webhooks', { apiKey: key, query: { limit: 1000 } });
  return res.json.items.length;
}

describe('creating an endpoint', () => {
  it('answers 201 with the endpoint and its secret, shown only then, sealed in the database and never logged', async () => {
    const res = await create({ url: PUBLIC_URL, events: ['process_instance.completed', 'incident.created'], description: 'orders' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      url: PUBLIC_URL,
      events: ['process_instance.completed', 'incident.created'],
      description: 'orders',
      status: 'enabled',
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
    });
    expect(res.json.id).toMatch(/^ep_[0-9a-f]{24}$/);
    const secret: string = res.json.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const read = await api.call('GET', `/api/v1/webhooks/${res.json.id}`, { apiKey });
    expect(read.status).toBe(200);
    expect(read.json).not.toHaveProperty('secret');
    expect(read.json).toEqual(Object.fromEntries(Object.entries(res.json).filter(([k]) => k !== 'secret')));
    const listed = await api.call('GET', '/api/v1/webhooks', { apiKey });
    expect(JSON.stringify(listed.json)).not.toContain(secret.slice(6));

    const stored = await storedEndpoint(res.json.id);
    expect(stored.secret.startsWith('v1:')).toBe(true);
    expect(stored.secret).not.toContain(secret.slice(6));
    expect(secretSealer(secretKey).open(stored.secret)).toBe(secret);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).not.toContain(secret.slice(6));
  });

  it('counts a repeated event type once', async () => {
    const endpoint = await mustCreate({ events: ['incident.closed', 'incident.closed'] });
    expect(endpoint.events).toEqual(['incident.closed']);
  });

  it.each<[string, Json, string, RegExp]>([
    ['a missing url', { events: ['incident.created'] }, 'body.url', /./],
    ['a relative url', { url: '/hooks', events: ['incident.created'] }, 'body.url', /absolute URL/],
    ['a url that is not http(s)', { url: 'ftp://93.184.216.34/x', events: ['incident.created'] }, 'body.url', /http or https, not ftp/],
    ['a url with credentials', { url: 'https://user:pw@93.184.216.34/x', events: ['incident.created'] }, 'body.url', /credentials/],
    ['a url over 2,048 characters', { url: `https://93.184.216.34/${'a'.repeat(2048)}`, events: ['incident.created'] }, 'body.url', /at most 2048/],
    ['missing events', { url: PUBLIC_URL }, 'body.events', /./],
    ['no events', { url: PUBLIC_URL, events: [] }, 'body.events', /at least one/],
    ['an unknown event type', { url: PUBLIC_URL, events: ['incident.created', 'order.shipped'] }, 'body.events.1', /unknown event type 'order.shipped'/],
    ['a description over 500 characters', { url: PUBLIC_URL, events: ['incident.created'], description: 'd'.repeat(501) }, 'body.description', /at most 500/],
  ])('refuses %s: 400 naming the field, nothing created', async (_, body, field, message) => {
    const before = await endpointCount();
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.json.code).toBe('INVALID_INPUT');
    const error = res.json.errors.find((e: Json) => e.field === field);
    expect(error, JSON.stringify(res.json.errors)).toBeDefined();
    expect(error.message).toMatch(message);
    expect(await endpointCount()).toBe(before);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://[::1]/hook', 'loopback'],
    ['http://localhost:3000/hook', 'resolves to'],
    ['http://2130706433/hook', 'loopback'],
    ['http://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://10.0.0.7/hook', 'private'],
    ['http://172.16.5.4/hook', 'private'],
    ['https://192.168.1.10/hook', 'private'],
    ['http://[fd00::1]/hook', 'unique local'],
    ['http://100.64.0.1/hook', 'shared'],
    ['http://0.0.0.0/hook', 'this network'],
    ['http://224.0.0.1/hook', 'multicast'],
    ['http://192.0.2.1/hook', 'documentation'],
  ])('refuses %s by default (%s), saying why', async (url, why) => {
    const before = await endpointCount();
    const res = await create({ url, events: ['incident.created'] });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([{ field: 'body.url', message: expect.stringContaining(why) }]);
    expect(res.json.detail).toContain('ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS');
    expect(await endpointCount()).toBe(before);
  });

  it('takes a name that does not resolve (the dispatcher checks the address it connects to)', async () => {
    await mustCreate({ url: 'https://hooks.invalid/orca' });
  });

  it('allows at most 20 endpoints per account: 409 beyond, saying so', async () => {
    const { apiKey: key } = await api.newAccount();
    for (let i = 0; i < 20; i++) await mustCreate({ description: `#${i}` }, key);
    const res = await create({ url: PUBLIC_URL, events: ['incident.created'] }, key);
    expect(res.status).toBe(409);
    expect(res.json.detail).toMatch(/20 webhook endpoints/);
    expect(await endpointCount(key)).toBe(20);
  });
});

describe('reading, changing and deleting endpoints', () => {
  it('lists the account’s endpoints oldest first in pages, and nothing of another account', async () => {
    const { apiKey: key } = await api.newAccount();
    const made = [await mustCreate({}, key), await mustCreate({}, key), await mustCreate({}, key)];
    const first = await api.call('GET', '/api/v1/webhooks', { apiKey: key, query: { limit: 2 } });
    expect(first.json.items).toHaveLength(2);
    const second = await api.call('GET', '/api/v1/webhooks', { apiKey: key, query: { limit: 2, cursor: first.json.nextCursor } });
    expect(second.json.nextCursor).toBeNull();
    const ids = [...first.json.items, ...second.json.items].map((e: Json) => e.id);
    expect(ids).toEqual(made.map((e) => e.id).sort());
    expect((await api.call('GET', '/api/v1/webhooks', { apiKey: key, query: { cursor: 'bogus' } })).status).toBe(400);
    expect((await api.call('GET', '/api/v1/webhooks', { apiKey: otherKey })).json.items).toEqual([]);
  });

  it('changes url, events and description (each alone), checking a new url as creation does', async () => {
    const endpoint = await mustCreate();
    const patch = (json: Json) => api.call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { apiKey, json });
    expect((await patch({ url: 'https://93.184.216.35/new' })).json.url).toBe('https://93.184.216.35/new');
    expect((await patch({ events: ['user_task.created'] })).json).toMatchObject({ events: ['user_task.created'], url: 'https://93.184.216.35/new' });
    const described = await patch({ description: 'tasks' });
    expect(described.json).toMatchObject({ description: 'tasks', events: ['user_task.created'] });
    expect(Date.parse(described.json.updatedAt)).toBeGreaterThanOrEqual(Date.parse(endpoint.updatedAt));

    for (const [json, field] of [
      [{}, 'body'],
      [{ url: 'http://10.1.1.1/x' }, 'body.url'],
      [{ url: 'gopher://93.184.216.34/' }, 'body.url'],
      [{ events: [] }, 'body.events'],
      [{ events: ['nope'] }, 'body.events.0'],
      [{ description: 'x'.repeat(501) }, 'body.description'],
    ] as const) {
      const res = await patch(json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.json.errors.map((e: Json) => e.field)).toContain(field);
    }
    expect((await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey })).json).toMatchObject({
      url: 'https://93.184.216.35/new',
      events: ['user_task.created'],
      description: 'tasks',
    });
  });

  it('disables and enables an endpoint; disabled, it says why, gives up its pending deliveries and takes no test event', async () => {
    const endpoint = await mustCreate();
    const test = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey });
    expect(test.json.status).toBe('pending');
    const disabled = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/disable`, { apiKey });
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({ status: 'disabled', disabledReason: 'Disabled through the API.' });
    const [delivery] = (await api.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { apiKey })).json.items;
    expect(delivery).toMatchObject({ id: test.json.id, status: 'failed', lastError: 'endpoint disabled', nextAttemptAt: null });
    expect((await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey })).status).toBe(409);
    expect((await api.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`, { apiKey })).status).toBe(409);

    const enabled = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/enable`, { apiKey });
    expect(enabled.json).toMatchObject({ status: 'enabled', disabledReason: null });
    expect((await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey })).status).toBe(202);
  });

  it('deletes an endpoint with its delivery log', async () => {
    const endpoint = await mustCreate();
    await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey });
    expect((await api.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { apiKey })).status).toBe(204);
    expect((await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey })).status).toBe(404);
    expect((await api.call('DELETE', `/api/v1/webhooks/${endpoint.id}`, { apiKey })).status).toBe(404);
    const left = await rows(api.engine.store.db, sql`select 1 from webhook_deliveries where endpoint_id = ${endpoint.id}`);
    expect(left).toEqual([]);
  });

  it('refuses a malformed endpoint or delivery id with a 400 naming it', async () => {
    const bad = await api.call('GET', '/api/v1/webhooks/nope', { apiKey });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].field).toBe('params.id');
    const endpoint = await mustCreate();
    const badDelivery = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/x1/redeliver`, { apiKey });
    expect(badDelivery.status).toBe(400);
    expect(badDelivery.json.errors[0].field).toBe('params.deliveryId');
  });

  it("answers 404 on every route for another account's endpoint, and changes nothing", async () => {
    const endpoint = await mustCreate();
    const test = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey });
    const before = (await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey })).json;
    const base = `/api/v1/webhooks/${endpoint.id}`;
    for (const [method, path, json] of [
      ['GET', base],
      ['PATCH', base, { description: 'mine now' }],
      ['PATCH', base, { url: 'http://127.0.0.1/' }],
      ['POST', `${base}/disable`],
      ['POST', `${base}/enable`],
      ['POST', `${base}/rotate-secret`],
      ['POST', `${base}/test`],
      ['GET', `${base}/deliveries`],
      ['POST', `${base}/deliveries/${test.json.id}/redeliver`],
      ['DELETE', base],
    ] as const) {
      const res = await api.call(method, path, { apiKey: otherKey, json });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey })).json).toEqual(before);
    expect((await api.call('GET', `${base}/deliveries`, { apiKey })).json.items).toHaveLength(1);
  });
});

describe('batched delivery', () => {
  // An account of its own: the shared one is near its 20 endpoints.
  let key: string;
  beforeAll(async () => {
    ({ apiKey: key } = await api.newAccount());
  });
  const storedBatching = async (id: string) =>
    (await rows<{ batching: unknown }>(api.engine.store.db, sql`select batching from webhook_endpoints where id = ${id}`))[0].batching;

  it('is off unless asked for; an object given fills in the defaults, shown on get and list and stored as it is', async () => {
    expect((await mustCreate({}, key)).batching).toBeNull();
    const defaults = await mustCreate({ batching: {} }, key);
    expect(defaults.batching).toEqual({ maxEvents: 100, maxWaitMs: 0 });
    const some = await mustCreate({ batching: { maxEvents: 10 } }, key);
    expect(some.batching).toEqual({ maxEvents: 10, maxWaitMs: 0 });
    expect((await mustCreate({ batching: { maxEvents: 1000, maxWaitMs: 0 } }, key)).batching).toEqual({ maxEvents: 1000, maxWaitMs: 0 });
    expect((await mustCreate({ batching: null }, key)).batching).toBeNull();

    expect((await api.call('GET', `/api/v1/webhooks/${some.id}`, { apiKey: key })).json.batching).toEqual({ maxEvents: 10, maxWaitMs: 0 });
    const listed = (await api.call('GET', '/api/v1/webhooks', { apiKey: key, query: { limit: 1000 } })).json.items;
    expect(listed.find((e: Json) => e.id === defaults.id).batching).toEqual({ maxEvents: 100, maxWaitMs: 0 });
    expect(await storedBatching(some.id)).toEqual({ maxEvents: 10, maxWaitMs: 0 });
  });

  it('is changed by an object (defaults filled), left alone when absent, turned off by null', async () => {
    const endpoint = await mustCreate({}, key);
    const patch = async (json: Json) => {
      const res = await api.call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { apiKey: key, json });
      expect(res.status, res.text).toBe(200);
      return res.json.batching;
    };
    expect(await patch({ batching: { maxEvents: 500, maxWaitMs: 2000 } })).toEqual({ maxEvents: 500, maxWaitMs: 2000 });
    expect(await patch({ description: 'still batched' })).toEqual({ maxEvents: 500, maxWaitMs: 2000 });
    expect(await patch({ batching: { maxWaitMs: 10_000 } })).toEqual({ maxEvents: 100, maxWaitMs: 10_000 });
    expect(await patch({ batching: null })).toBeNull();
    expect(await storedBatching(endpoint.id)).toBeNull();
    expect((await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey: key })).json.batching).toBeNull();
    expect(await patch({ batching: {} })).toEqual({ maxEvents: 100, maxWaitMs: 0 });
  });

  it.each<[string, Json, string]>([
    ['maxEvents 0', { maxEvents: 0 }, 'body.batching.maxEvents'],
    ['maxEvents 1001', { maxEvents: 1001 }, 'body.batching.maxEvents'],
    ['maxEvents 2.5', { maxEvents: 2.5 }, 'body.batching.maxEvents'],
    ['maxEvents "10"', { maxEvents: '10' }, 'body.batching.maxEvents'],
    ['maxWaitMs -1', { maxWaitMs: -1 }, 'body.batching.maxWaitMs'],
    ['maxWaitMs 10001', { maxWaitMs: 10_001 }, 'body.batching.maxWaitMs'],
    ['batching a string', 'fast', 'body.batching'],
  ])('refuses %s: 400 naming the field, on create and update, changing nothing', async (_, batching, field) => {
    const endpoint = await mustCreate({ batching: { maxEvents: 7, maxWaitMs: 70 } }, key);
    const before = await endpointCount(key);
    const refusals = [
      await create({ url: PUBLIC_URL, events: ['incident.created'], batching }, key),
      await api.call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { apiKey: key, json: { description: 'changed?', batching } }),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors).toEqual([
        { field, message: expect.stringMatching(field.endsWith('batching') ? /must be an object/ : /must be an integer from/) },
      ]);
    }
    expect(await endpointCount(key)).toBe(before);
    const { secret: _secret, ...shown } = endpoint;
    expect((await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey: key })).json).toEqual(shown);
  });
});

describe('signing secret rotation', () => {
  it('gives a new secret once; the previous one keeps signing beside it for 24 hours', async () => {
    const endpoint = await mustCreate();
    const before = Date.now();
    const rotated = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(endpoint.secret);
    const expires = Date.parse(rotated.json.previousSecretExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    const stored = await storedEndpoint(endpoint.id);
    expect(secretSealer(secretKey).open(stored.secret)).toBe(rotated.json.secret);
    expect(secretSealer(secretKey).open(stored.previous_secret!)).toBe(endpoint.secret);
    const read = await api.call('GET', `/api/v1/webhooks/${endpoint.id}`, { apiKey });
    expect(read.json).not.toHaveProperty('secret');
    expect(read.json.previousSecretExpiresAt).toBe(rotated.json.previousSecretExpiresAt);
    expect(logged.join('\n')).not.toContain(rotated.json.secret.slice(6));
  });
});

describe('test events, the delivery log and redelivery', () => {
  it('writes a webhook.test delivery to this endpoint only, though it is not subscribed to it', async () => {
    const endpoint = await mustCreate();
    const bystander = await mustCreate();
    const res = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ endpointId: endpoint.id, type: 'webhook.test', status: 'pending', attempts: 0, log: [], lastStatusCode: null });
    expect(res.json.eventId).toMatch(/^msg_[0-9a-f]{24}_webhook_test$/);
    expect(res.json.payload).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { endpointId: endpoint.id } });
    expect(Math.abs(Date.parse(res.json.payload.timestamp) - Date.now())).toBeLessThan(60_000);
    const listed = await api.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { apiKey });
    expect(listed.json).toEqual({ items: [res.json], nextCursor: null });
    expect((await api.call('GET', `/api/v1/webhooks/${bystander.id}/deliveries`, { apiKey })).json.items).toEqual([]);
  });

  it('lists deliveries newest first, in pages', async () => {
    const endpoint = await mustCreate();
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push((await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey })).json.id);
    const first = await api.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { apiKey, query: { limit: 2 } });
    const second = await api.call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`, { apiKey, query: { limit: 2, cursor: first.json.nextCursor } });
    expect([...first.json.items, ...second.json.items].map((d: Json) => d.id)).toEqual(sent.reverse());
    expect(second.json.nextCursor).toBeNull();
  });

  it('sends a delivery again: pending and due now under the same webhook-id; not while a dispatcher holds it', async () => {
    const endpoint = await mustCreate();
    const test = (await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { apiKey })).json;
    // As the dispatcher leaves a delivery whose retries ran out.
    await api.engine.store.db.execute(
      sql`update webhook_deliveries set status = 'failed', attempts = 8, last_status_code = 500, next_attempt_at = now() + interval '1 day' where id = ${Number(test.id)}`,
    );
    const before = Date.now();
    const res = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${test.id}/redeliver`, { apiKey });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ id: test.id, eventId: test.eventId, status: 'pending', attempts: 8, lastStatusCode: 500, payload: test.payload });
    expect(Date.parse(res.json.nextAttemptAt)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(Date.parse(res.json.nextAttemptAt)).toBeGreaterThanOrEqual(before - 60_000);

    await api.engine.store.db.execute(sql`update webhook_deliveries set claimed_until = now() + interval '1 minute' where id = ${Number(test.id)}`);
    const held = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${test.id}/redeliver`, { apiKey });
    expect(held.status).toBe(409);
    const missing = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/999999999/redeliver`, { apiKey });
    expect(missing.status).toBe(404);
    expect(missing.json.errors[0].field).toBe('params.deliveryId');
  });
});

describe('the OpenAPI document', () => {
  it('describes every event type under `webhooks`, with the signature headers and its payload, and the routes under the webhooks tag', async () => {
    const document = (await api.call('GET', '/api/v1/openapi.json')).json;
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES, 'webhook.test'].sort());
    const completed = document.webhooks['process_instance.completed'].post;
    expect(completed.parameters.map((p: Json) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const payload = completed.requestBody.content['application/json'].schema;
    expect(payload.properties.type).toMatchObject({ const: 'process_instance.completed' });
    expect(Object.keys(payload.properties.data.properties).sort()).toEqual(['bpmnProcessId', 'processInstanceKey', 'version']);
    const create = document.paths['/api/v1/webhooks'].post;
    expect(create.tags).toEqual(['webhooks']);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '409']));
  });
});
