// How the API serves the web apps (api/routes/ui.ts) over real HTTP: / leads
// to the console, every address under /console/ and /tasklist/ answers its
// app (the history fallback that makes shared links work), the hashed
// bundles are served with a long cache, nothing else of the build is, and
// without a build the pages answer a 503 page saying how to build.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveUi } from '../../api/routes/ui.ts';
import { ensureUiBuilt } from '../ui/browser-support.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

let api: ApiFixture;
beforeAll(async () => {
  ensureUiBuilt();
  api = await apiFixture();
}, 240_000);
afterAll(() => api?.close(), 30_000);

describe('the web apps', () => {
  it('answers deep links under /console/ and /tasklist/ with the app, uncached', async () => {
    for (const [path, app] of [
      ['/console/', 'console'],
      ['/console/instances/2251799813685249', 'console'],
      ['/console/definitions/order?version=2', 'console'],
      ['/tasklist/', 'tasklist'],
      ['/tasklist/tasks/2251799813685300', 'tasklist'],
    ]) {
      const res = await fetch(`${api.baseUrl}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const page = await res.text();
      expect(page).toContain('<div id="app">');
      expect(page).toMatch(new RegExp(`/ui/assets/${app}-[\\w-]+\\.js`));
    }
    const bare = await fetch(`${api.baseUrl}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/console/');
    await bare.arrayBuffer();
  });

  it('serves the hashed bundles with a long cache, and nothing else of the build', async () => {
    const page = await (await fetch(`${api.baseUrl}/console/`)).text();
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(page)![1];
    const res = await fetch(`${api.baseUrl}${script}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toContain('immutable');
    await res.arrayBuffer();
    const index = await fetch(`${api.baseUrl}/ui/console/index.html`);
    expect(index.status).toBe(404);
    await index.arrayBuffer();
    const missing = await fetch(`${api.baseUrl}/ui/assets/nothing-here.js`);
    expect(missing.status).toBe(404);
    await missing.arrayBuffer();
  });

  it('leaves the API as it was: unknown API routes are still problem+json 404s', async () => {
    const res = await api.call('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers 503 with a page saying how to build when there is no build', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'orca-ui-'));
    const app = Fastify();
    try {
      await serveUi(app, `${empty}/`);
      for (const path of ['/console/', '/tasklist/tasks/1']) {
        const res = await app.inject({ method: 'GET', url: path });
        expect(res.statusCode, path).toBe(503);
        expect(res.headers['content-type']).toContain('text/html');
        expect(res.body).toContain('npm run build:ui');
      }
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
