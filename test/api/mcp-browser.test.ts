// A real browser (Debian's Chromium through playwright-core) on a page from
// another origin (a second loopback server): its calls to /mcp work, after
// a CORS preflight the API server sees, while its fetches to a REST route
// are blocked by CORS, since no REST route answers CORS.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchBrowser } from '../ui/browser-support.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>agent page</title></head><body>agent</body></html>';

describe.skipIf(browserMissing !== null)('MCP from a browser page of another origin', () => {
  let api: ApiFixture;
  let pageServer: Server;
  let pageOrigin: string;
  let browser: Browser;
  const preflights: string[] = [];

  beforeAll(async () => {
    api = await apiFixture();
    api.app.server.on('request', (request) => {
      if (request.method === 'OPTIONS') preflights.push(`${request.url} ${request.headers.origin}`);
    });
    pageServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await api?.close();
  });

  it('calls /mcp (preflight seen) and is blocked on /api/v1', async () => {
    const { apiKey } = await api.newAccount();
    const page = await browser.newPage();
    try {
      await page.goto(pageOrigin);
      expect(new URL(api.baseUrl).origin).not.toBe(pageOrigin);
      const outcome = await page.evaluate(
        async ({ base, key }) => {
          const rpc = async (id: number, method: string, params: unknown) => {
            const res = await fetch(`${base}/mcp`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
              body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
            });
            const text = await res.text();
            // The 2025 stateless leg may frame its answer as one server-sent event.
            const json = text.startsWith('{') ? text : (text.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
            return { status: res.status, exposed: res.headers.get('mcp-protocol-version'), body: JSON.parse(json) };
          };
          const blocked = async (path: string, headers: Record<string, string>) => {
            try {
              await fetch(`${base}${path}`, { headers });
              return 'read';
            } catch (error) {
              return `blocked: ${(error as Error).name}`;
            }
          };
          const initialized = await rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } });
          const registered = await rpc(2, 'tools/call', { name: 'orca.register', arguments: { apiKey: key, name: 'browser agent' } });
          return {
            initialized,
            registered,
            rest: await blocked('/api/v1/account', { 'x-api-key': key }),
            simpleRest: await blocked('/api/v1/openapi.json', {}),
          };
        },
        { base: api.baseUrl, key: apiKey },
      );
      expect(outcome.initialized.status).toBe(200);
      expect(outcome.initialized.body.result.serverInfo.name).toBe('orca');
      expect(outcome.registered.body.result.structuredContent.agentId).toMatch(/^agt_/);
      expect(outcome.rest).toBe('blocked: TypeError');
      expect(outcome.simpleRest).toBe('blocked: TypeError');
      expect(preflights).toContain(`/mcp ${pageOrigin}`);
    } finally {
      await page.close();
    }
  });
});
