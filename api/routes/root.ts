// GET /: where a person lands who opens the server's address in a browser
// after `npm start`: the console (api/routes/ui.ts), which signs them in. A
// temporary redirect (302), so browsers and proxies do not remember a
// target that may change.
import { route } from '../openapi/route.ts';
import type { RegisterRoutes } from './index.ts';

/** Where GET / sends a visitor; relative, so it holds behind any proxy or PUBLIC_URL. */
export const ROOT_TARGET = '/console/';

export const register: RegisterRoutes = async (app) => {
  route(
    app,
    {
      method: 'GET',
      path: '/',
      summary: `Redirects (302) to ${ROOT_TARGET}, the monitoring console.`,
      tags: ['meta'],
      auth: 'none',
      response: { status: 302, description: `Found: the Location header names ${ROOT_TARGET}.` },
    },
    async (_input, _request, reply) => reply.redirect(ROOT_TARGET, 302),
  );
};
