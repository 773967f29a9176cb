// /mcp as HTTP: CORS there and nowhere else, the Origin check, and what the
// transport answers to bodies that are not a tool call it can run (bad JSON,
// not JSON-RPC, wrong media type, too large, an unknown tool, arguments past
// the variable limits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../engine/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { connectMcp } from './mcp-support.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await apiFixture({ config: { http: { bodyLimit: 256 * 1024 } } });
});
afterAll(() => api.close());

const ORIGIN = 'http://page.example:3000';
const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const corsHeaderNames = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS on /mcp only', () => {
  it('answers the preflight of /mcp with the MCP headers allowed and exposed', async () => {
    const res = await api.call('OPTIONS', '/mcp', {
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-method, mcp-name',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toContain('MCP-Protocol-Version');
    expect(res.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate');
  });

  it('sends CORS headers on /mcp answers, errors included', async () => {
    const res = await api.call('POST', '/mcp', { body: '{not json', headers: { ...JSON_RPC, origin: ORIGIN } });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('refuses the null origin with 403 and no CORS headers', async () => {
    const res = await api.call('POST', '/mcp', { body: '{}', headers: { ...JSON_RPC, origin: 'null' } });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe(-32000);
    expect(corsHeaderNames(res.headers)).toEqual([]);
  });

  it('sends no CORS header on any REST route, preflight or request', async () => {
    const { apiKey } = await api.newAccount();
    for (const path of ['/api/v1/account', '/api/v1/process-instances', '/api/v1/mailbox/messages', '/api/v1/openapi.json', '/health/live']) {
      const read = await api.call('GET', path, { apiKey, headers: { origin: ORIGIN } });
      expect(corsHeaderNames(read.headers), path).toEqual([]);
      const preflight = await api.call('OPTIONS', path, {
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
      });
      expect(corsHeaderNames(preflight.headers), path).toEqual([]);
    }
  });
});

describe('bad requests to /mcp', () => {
  it('answers malformed JSON-RPC with JSON-RPC errors', async () => {
    expect((await api.call('POST', '/mcp', { body: '{not json', headers: JSON_RPC })).json.error.code).toBe(-32700);
    expect((await api.call('POST', '/mcp', { body: '{"jsonrpc":"2.0"}', headers: JSON_RPC })).json.error.code).toBe(-32600);
    const media = await api.call('POST', '/mcp', { body: '{}', headers: { ...JSON_RPC, 'content-type': 'text/plain' } });
    expect(media.status).toBe(415);
  });

  it('refuses a body over the limit with 413 before reading it', async () => {
    const res = await api.call('POST', '/mcp', { body: JSON.stringify({ padding: 'x'.repeat(300 * 1024) }), headers: JSON_RPC });
    expect(res.status).toBe(413);
  });

  it('an unknown tool is a JSON-RPC error; arguments past the variable limits are INVALID_INPUT naming the field', async () => {
    const client = await connectMcp('v2', api.baseUrl);
    try {
      await expect(client.call('orca.nope', {})).rejects.toThrow(/not found/);
      const variables = Object.fromEntries(Array.from({ length: LIMITS.maxVariablesPerRequest + 1 }, (_, i) => [`v${i}`, i]));
      const result = await client.call('orca.start_instance', { sessionId: 'orcaas_x', bpmnProcessId: 'p', variables });
      expect(result.error).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: expect.stringMatching(/^variables/) }] });
    } finally {
      await client.close();
    }
  });
});
