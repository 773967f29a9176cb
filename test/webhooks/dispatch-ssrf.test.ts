// The SSRF guard at connect time, with the default configuration (private
// networks not allowed): each address class — loopback by IPv4 and IPv6
// literal, cloud metadata, a private range, a name resolving to loopback —
// is a failed attempt naming the reason, and a server listening on loopback
// sees no request at all. A name is connected to at the address that was
// checked, not looked up again: a resolver that answers a private address
// among public ones is refused, and one mapping a made-up name to loopback
// (with private networks allowed) is what the connection uses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookDispatcher, type DispatcherOptions, type WebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import { checkedAddress } from '../../api/webhooks/guarded-connector.ts';
import type { Database } from '../../engine/store/database.ts';
import { createTestDatabase } from '../../engine/store/testing/database.ts';
import { addEndpoint, deliveriesOf, enqueueCompleted, eventually } from './outbox.ts';

const testDb = createTestDatabase();
let database: Database;
let dispatcher: WebhookDispatcher | undefined;
const servers: Server[] = [];
let requests = 0;
let port4 = 0;
let port6: number | undefined;

async function listen(host: string): Promise<number | undefined> {
  const server = createServer((_request, response) => {
    requests++;
    response.end('ok');
  });
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  } catch {
    return undefined; // no IPv6 loopback on this machine
  }
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  database = await testDb.open();
  port4 = (await listen('127.0.0.1'))!;
  port6 = await listen('::1');
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await testDb.cleanup();
});

async function attempt(url: string, options: Partial<DispatcherOptions> = {}) {
  const endpoint = await addEndpoint(database.db, url);
  await enqueueCompleted(database.db, endpoint.account);
  dispatcher = startWebhookDispatcher({ db: database.db, allowPrivateNetworks: false, idlePollMs: 40, timeoutMs: 3_000, ...options });
  const row = await eventually(async () => (await deliveriesOf(database.db, endpoint.id)).find((r) => r.attempts === 1));
  await dispatcher.stop();
  return row;
}

describe('with private networks not allowed (the default)', () => {
  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port4}/hook`, /^refused: 127\.0\.0\.1 is a loopback address$/],
    ['[::1]', () => `http://[::1]:${port6 ?? port4}/hook`, /^refused: ::1 is a loopback address$/],
    ['169.254.169.254 (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/', /^refused: 169\.254\.169\.254 is a link-local address/],
    ['10.x (private)', () => 'http://10.20.30.40:8080/hook', /^refused: 10\.20\.30\.40 is a private address$/],
    [
      'a name resolving to loopback (localhost)',
      () => `http://localhost:${port4}/hook`,
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    ],
  ])('%s is a failed attempt with the reason, and no request is made', async (_what, url, reason) => {
    const before = requests;
    const row = await attempt(url());
    expect(row.status).toBe('pending');
    expect(row.last_status_code).toBeNull();
    expect(row.last_error).toMatch(reason);
    expect(row.log[0].error).toBe(row.last_error);
    expect(requests).toBe(before);
  });

  it('a name any of whose addresses is forbidden is refused', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(checkedAddress('mixed.example', { allowPrivateNetworks: false, resolve })).rejects.toThrow(
      'refused: mixed.example resolves to 10.0.0.7, a private address',
    );
    const row = await attempt('http://mixed.example/hook', { resolve });
    expect(row.last_error).toBe('refused: mixed.example resolves to 10.0.0.7, a private address');
  });
});

describe('with private networks allowed', () => {
  it('a name is connected to at the address checked, with no second lookup', async () => {
    const before = requests;
    // receiver.invalid resolves nowhere but through this resolver: the request can only have gone to the address it gave.
    const row = await attempt(`http://receiver.invalid:${port4}/hook`, {
      allowPrivateNetworks: true,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(row).toMatchObject({ status: 'delivered', last_status_code: 200 });
    expect(requests).toBe(before + 1);
  });

  it('link-local (cloud metadata) stays refused', async () => {
    const row = await attempt('http://169.254.169.254/latest/meta-data/', { allowPrivateNetworks: true });
    expect(row.last_error).toMatch(/^refused: 169\.254\.169\.254 is a link-local address/);
  });
});
