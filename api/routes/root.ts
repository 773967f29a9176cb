// GET /: where a person lands who opens the server's address in a browser
// after `npm start`. There is no page of Orca's own there yet, so it
// redirects to the most useful document the server has, the OpenAPI
// description of the REST API (the console will take its place once it
// exists). A temporary redirect (302), so browsers and proxies do not
// remember a target that is meant to change.
import { route } from '../openapi/route.ts';
import type { RegisterRoutes } from './index.ts';

/** Where GET / sends a visitor; relative, so it holds behind any proxy or PUBLIC_URL. */
export const ROOT_TARGET = '/api/v1/openapi.json';

export const register: RegisterRoutes = async (app) => {
  route(
    app,
    {
      method: 'GET',
      path: '/',
      summary: `Redirects (302) to ${ROOT_TARGET}, this API's description.`,
      tags: ['meta'],
      auth: 'none',
      response: { status: 302, description: `Found: the Location header names ${ROOT_TARGET}.` },
    },
    async (_input, _request, reply) => reply.redirect(ROOT_TARGET, 302),
  );
};
