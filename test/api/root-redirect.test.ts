// GET / over real HTTP: someone who opens the server's address after
// `npm start` is sent (302, no key needed) to the OpenAPI document, and
// following the redirect, as a browser does, lands on that document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(() => api?.close(), 30_000);

describe('GET /', () => {
  it('redirects with 302 to /api/v1/openapi.json, without an API key', async () => {
    const res = await fetch(`${api.baseUrl}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/api/v1/openapi.json');
    await res.arrayBuffer();
  });

  it('lands a browser that follows it on the OpenAPI document', async () => {
    const res = await fetch(`${api.baseUrl}/`, { headers: { accept: 'text/html' } });
    expect(res.redirected).toBe(true);
    expect(new URL(res.url).pathname).toBe('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.paths['/'].get).toBeDefined();
  });

  it('keeps the query string out of it and still redirects', async () => {
    const res = await fetch(`${api.baseUrl}/?from=bookmark`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/api/v1/openapi.json');
    await res.arrayBuffer();
  });

  it('answers other methods on / with a 404 problem, as for any unknown route', async () => {
    const res = await api.call('POST', '/', { json: {} });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});
