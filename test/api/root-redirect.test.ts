// GET / over real HTTP: someone who opens the server's address after
// `npm start` is sent (302, no key needed) to the console, and following
// the redirect, as a browser does, lands on the console's page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuilt } from '../ui/browser-support.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

let api: ApiFixture;
beforeAll(async () => {
  ensureUiBuilt();
  api = await apiFixture();
}, 240_000);
afterAll(() => api?.close(), 30_000);

describe('GET /', () => {
  it('redirects with 302 to /console/, without an API key', async () => {
    const res = await fetch(`${api.baseUrl}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    await res.arrayBuffer();
  });

  it('lands a browser that follows it on the console, and the OpenAPI document still lists /', async () => {
    const res = await fetch(`${api.baseUrl}/`, { headers: { accept: 'text/html' } });
    expect(res.redirected).toBe(true);
    expect(new URL(res.url).pathname).toBe('/console/');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>Orca console</title>');
    const document = (await api.call('GET', '/api/v1/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    expect(document.paths['/'].get).toBeDefined();
  });

  it('keeps the query string out of it and still redirects', async () => {
    const res = await fetch(`${api.baseUrl}/?from=bookmark`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    await res.arrayBuffer();
  });

  it('answers other methods on / with a 404 problem, as for any unknown route', async () => {
    const res = await api.call('POST', '/', { json: {} });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});
