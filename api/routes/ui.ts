// The console and the task list (issue 17): single-page apps built by Vite
// into ui/dist (never committed; `npm ci` builds it through `prepare`, `npm
// start` when it is missing). Their hashed assets are served by
// @fastify/static under /ui/; every address under /console/ and /tasklist/
// answers its app's index.html (a history fallback), so a shared link such
// as /console/instances/<key> opens that page once signed in. Without a
// build they answer a 503 page saying how to build, never a bare 404. The
// apps call the REST API from the same origin, so no CORS is involved.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RegisterRoutes } from './index.ts';

/** Where `npm run build:ui` writes the apps. */
export const UI_DIST = fileURLToPath(new URL('../../ui/dist/', import.meta.url));
/** The URL prefix of the built assets (Vite's `base`, ui/vite.config.ts). */
export const UI_ASSETS_PREFIX = '/ui/';
/** Each app's address and its page inside the build. */
export const UI_APPS = [
  { prefix: '/console', page: 'console/index.html', title: 'Orca console' },
  { prefix: '/tasklist', page: 'tasklist/index.html', title: 'Orca task list' },
] as const;

function notBuilt(reply: FastifyReply, title: string) {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} is not built</title></head>
<body><main><h1>${title} is not built</h1>
<p>This server has no build of its web apps. Run <code>npm run build:ui</code> (or <code>npm ci</code>, which builds them) in the Orca checkout, then reload this page.</p>
</main></body></html>`;
  return reply.code(503).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('retry-after', '30').send(body);
}

export const register: RegisterRoutes = async (app) => serveUi(app, UI_DIST);

/** Serves the apps built in `dist` (a directory path ending in a slash). */
export async function serveUi(app: FastifyInstance, dist: string): Promise<void> {
  // Registered even when the build is absent, so a build made later is served without a restart.
  // Only the hashed bundles: the pages are served below, with their fallback.
  await app.register(fastifyStatic, {
    root: `${dist}assets/`,
    prefix: `${UI_ASSETS_PREFIX}assets/`,
    wildcard: true,
    index: false,
    immutable: true,
    maxAge: '365d',
  });

  for (const ui of UI_APPS) {
    const page = async (_request: unknown, reply: FastifyReply) => {
      if (!existsSync(`${dist}${ui.page}`)) return notBuilt(reply, ui.title);
      // The page names the current bundles: never cached, so a rebuild is picked up.
      return reply.header('cache-control', 'no-cache').sendFile(ui.page, dist, { cacheControl: false });
    };
    app.get(ui.prefix, (_request, reply) => reply.redirect(`${ui.prefix}/`, 302));
    app.get(`${ui.prefix}/`, page);
    app.get(`${ui.prefix}/*`, page);
  }
}
