// The webhook tools over MCP (v2 client, real port): an agent creates an
// endpoint of its account and gets the secret once, lists it (no secret)
// beside the ones made over REST, deletes it; batching given is filled in
// and shown, a bad one refused naming its field; bad arguments and a
// forbidden address are INVALID_INPUT naming the field, another account's
// endpoint is NOT_FOUND.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { connectMcp, type McpClient } from './mcp-support.ts';

let api: ApiFixture;
let client: McpClient;

beforeAll(async () => {
  api = await apiFixture();
  client = await connectMcp('v2', api.baseUrl);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await api?.close();
});

async function session() {
  const { apiKey } = await api.newAccount();
  const registered = await client.call('orca.register', { apiKey, name: 'hooks' });
  const connected = await client.call('orca.connect', { token: registered.data.token });
  return { apiKey, sessionId: connected.data.sessionId as string };
}

describe('webhook tools', () => {
  it('create (secret once), list (no secret, REST-made ones too), delete', async () => {
    const { apiKey, sessionId } = await session();
    const created = await client.call('orca.create_webhook', {
      sessionId,
      url: 'https://93.184.216.34/agent',
      events: ['incident.created'],
      description: 'from an agent',
    });
    expect(created.isError).toBe(false);
    expect(created.data).toMatchObject({ url: 'https://93.184.216.34/agent', events: ['incident.created'], status: 'enabled' });
    expect(created.data.secret).toMatch(/^whsec_/);
    const rest = await api.call('POST', '/api/v1/webhooks', { apiKey, json: { url: 'https://93.184.216.35/rest', events: ['incident.closed'] } });

    const listed = await client.call('orca.list_webhooks', { sessionId });
    expect(listed.data.items.map((e: { id: string }) => e.id).sort()).toEqual([created.data.id, rest.json.id].sort());
    expect(JSON.stringify(listed.data)).not.toContain(created.data.secret.slice(6));

    expect((await client.call('orca.delete_webhook', { sessionId, endpointId: created.data.id })).data).toEqual({ deleted: true, endpointId: created.data.id });
    expect((await api.call('GET', `/api/v1/webhooks/${created.data.id}`, { apiKey })).status).toBe(404);
    expect((await client.call('orca.delete_webhook', { sessionId, endpointId: created.data.id })).error?.code).toBe('NOT_FOUND');
  });

  it('takes batching: defaults filled, shown on list and REST; out of range is INVALID_INPUT naming the field', async () => {
    const { apiKey, sessionId } = await session();
    const url = 'https://93.184.216.34/batched';
    const created = await client.call('orca.create_webhook', { sessionId, url, events: ['incident.created'], batching: { maxEvents: 25 } });
    expect(created.isError).toBe(false);
    expect(created.data.batching).toEqual({ maxEvents: 25, maxWaitMs: 0 });
    expect((await client.call('orca.list_webhooks', { sessionId })).data.items[0].batching).toEqual({ maxEvents: 25, maxWaitMs: 0 });
    expect((await api.call('GET', `/api/v1/webhooks/${created.data.id}`, { apiKey })).json.batching).toEqual({ maxEvents: 25, maxWaitMs: 0 });
    expect((await client.call('orca.create_webhook', { sessionId, url, events: ['incident.created'] })).data.batching).toBeNull();

    const bad = await client.call('orca.create_webhook', { sessionId, url, events: ['incident.created'], batching: { maxEvents: 1001 } });
    expect(bad.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(bad.error?.errors?.[0].field).toBe('batching.maxEvents');
    expect((await client.call('orca.list_webhooks', { sessionId })).data.items).toHaveLength(2);
  });

  it('refuses bad arguments and forbidden addresses naming the field, and does not reach another account', async () => {
    const { sessionId } = await session();
    const other = await session();
    const unknown = await client.call('orca.create_webhook', { sessionId, url: 'https://93.184.216.34/x', events: ['nope'] });
    expect(unknown.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(unknown.error?.errors?.[0].field).toMatch(/events/);
    const loopback = await client.call('orca.create_webhook', { sessionId, url: 'http://127.0.0.1:9/x', events: ['incident.created'] });
    expect(loopback.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(loopback.error?.message).toContain('loopback');

    const theirs = await client.call('orca.create_webhook', { sessionId: other.sessionId, url: 'https://93.184.216.34/x', events: ['incident.created'] });
    expect((await client.call('orca.delete_webhook', { sessionId, endpointId: theirs.data.id })).error?.code).toBe('NOT_FOUND');
    expect((await client.call('orca.list_webhooks', { sessionId })).data.items).toEqual([]);
    expect((await client.call('orca.list_webhooks', { sessionId: other.sessionId })).data.items).toHaveLength(1);
  });
});
