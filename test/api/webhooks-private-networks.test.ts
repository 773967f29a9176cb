// With ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS on (config webhooks.allowPrivateNetworks),
// endpoints may point at loopback and private addresses, for receivers
// inside the cluster — the same URLs webhooks.test.ts shows refused by
// default — while link-local (cloud metadata) and the other reserved
// ranges stay refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture({ config: { webhooks: { allowPrivateNetworks: true } } });
  ({ apiKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

const create = (url: string) => api.call('POST', '/api/v1/webhooks', { apiKey, json: { url, events: ['process_instance.completed'] } });

describe('webhook endpoints with private networks allowed', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://[::1]:8080/hook',
    'http://localhost:3000/hook',
    'http://10.0.0.7/hook',
    'https://192.168.1.10/hook',
    'http://[fd00::1]/hook',
  ])('takes %s', async (url) => {
    const res = await create(url);
    expect(res.status, res.text).toBe(201);
    expect(res.json.url).toBe(url);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://224.0.0.1/hook', 'multicast'],
    ['http://0.0.0.0/hook', 'this network'],
  ])('still refuses %s (%s)', async (url, why) => {
    const res = await create(url);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([{ field: 'body.url', message: expect.stringContaining(why) }]);
    expect(res.json.detail).not.toContain('ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  });
});
