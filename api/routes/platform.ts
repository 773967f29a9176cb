// Platform apps over REST (issue #18): an account registers an app with its
// API key and gets the app token once; the app's own calls — read its
// registration, rotate its token, unregister — take that token as
// Authorization: Bearer, and it opens nothing else (plugins/auth.ts). The
// rules live in api/platform/.
import { z } from 'zod';
import { MAX_AGENT_NAME_LENGTH } from '../agents/index.ts';
import { route } from '../openapi/route.ts';
import { bearerOf } from '../plugins/auth.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['platform'];

const appSchema = z.object({
  appId: z.string(),
  account: z.string().describe('The account the app was registered on.'),
  name: z.string(),
  createdAt: z.string(),
  rotatedAt: z.string().nullable().describe('When its token was last rotated; null if never.'),
});

const appWithToken = appSchema.extend({
  token: z
    .string()
    .describe('The app token (orcaap_…): shown this once and stored only hashed. Send it as Authorization: Bearer on the /api/v1/platform/app routes.'),
});

const registerBody = z.object({
  name: z.string().min(1).max(MAX_AGENT_NAME_LENGTH).describe('A name for the app, shown in its registration.'),
});

const APP_AUTH = " Authenticated with the app's token as Authorization: Bearer; an account API key is refused.";

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/platform/register',
      summary: "Register an app on the caller's account. Answers the app token once; it works only on the /api/v1/platform/app routes.",
      tags: TAGS,
      auth: 'apiKey',
      body: registerBody,
      response: { status: 201, schema: appWithToken },
      errors: [400, 401],
    },
    async ({ body }, request) => ctx.platformApps.register(request.account, body.name),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/platform/app',
      summary: "The calling app's registration." + APP_AUTH,
      tags: TAGS,
      auth: 'appToken',
      response: { status: 200, schema: appSchema },
      errors: [401],
    },
    async (_input, request) => ctx.platformApps.describe(bearerOf(request) ?? ''),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/platform/app/rotate',
      summary: 'A new token for the calling app, answered once; the token this request carried stops working at once, on every pod.' + APP_AUTH,
      tags: TAGS,
      auth: 'appToken',
      response: { status: 200, schema: appWithToken },
      errors: [401],
    },
    async (_input, request) => ctx.platformApps.rotate(bearerOf(request) ?? ''),
  );

  route(
    app,
    {
      method: 'DELETE',
      path: '/api/v1/platform/app',
      summary: 'Unregister the calling app; its token stops working at once.' + APP_AUTH,
      tags: TAGS,
      auth: 'appToken',
      response: { status: 204, description: 'Unregistered.' },
      errors: [401],
    },
    async (_input, request, reply) => {
      await ctx.platformApps.unregister(bearerOf(request) ?? '');
      return reply.code(204).send();
    },
  );
};
