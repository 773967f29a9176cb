// Floods over MCP get RATE_LIMITED results, not transport errors: tool calls
// count against the account's request limit as REST requests do, and
// orca.register has its own flood limit per account and address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { connectMcp, type McpClient } from './mcp-support.ts';

let api: ApiFixture;
let client: McpClient;
beforeAll(async () => {
  api = await apiFixture({ config: { rateLimit: { perSecond: 0.01, burst: 5 }, agents: { registerBurst: 3, registerPerMinute: 1 } } });
  client = await connectMcp('v2', api.baseUrl);
});
afterAll(async () => {
  await client?.close();
  await api.close();
});

describe('MCP floods', () => {
  it("a session's tool calls take from the account's request limit", async () => {
    const { apiKey } = await api.newAccount();
    const { token } = (await client.call('orca.register', { apiKey, name: 'busy' })).data;
    const { sessionId } = (await client.call('orca.connect', { token })).data;
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++) codes.push((await client.call('orca.list_instances', { sessionId })).error?.code);
    expect(codes.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(codes.slice(5)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    const limited = await client.call('orca.list_instances', { sessionId });
    expect(limited.error?.retryAfterSeconds).toBeGreaterThan(0);
    // The REST budget is the same one.
    expect((await api.call('GET', '/api/v1/process-instances', { apiKey })).status).toBe(429);
  });

  it('a flood of orca.register is refused past the burst', async () => {
    const { apiKey } = await api.newAccount();
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) codes.push((await client.call('orca.register', { apiKey, name: `agent ${i}` })).error?.code);
    expect(codes.filter((code) => code === 'RATE_LIMITED').length).toBeGreaterThanOrEqual(2);
    expect(codes.slice(0, 2)).toEqual([undefined, undefined]);
  });
});
