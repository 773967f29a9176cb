// Signup, token exchange and key rotation (SPEC.md "Endpoints",
// "Authentication"). Signup never answers with a key: the key travels only
// in the welcome message sent once the address is confirmed. Responses that
// carry a secret say `Cache-Control: no-store`.
import { z } from 'zod';
import { identityServiceOf } from '../identity/index.ts';
import { route } from '../openapi/route.ts';
import { credentialOf } from '../plugins/auth.ts';
import { ApiError } from '../problem.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['auth'];

const signupBody = z.object({
  email: z.email().max(254).describe('Where the confirmation link, and then the API key, are sent.'),
});

const messageSchema = z.object({ message: z.string() });

const confirmQuery = z.object({
  token: z.string().min(1).max(256).describe('The token from the confirmation link.'),
});

const tokenBody = z.object({
  api_key: z.string().min(1).max(256).describe('The account API key.'),
});

const tokenSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Seconds until the token expires (1800).'),
});

const rotateSchema = z.object({
  new_key: z.string().describe('The new API key; it is shown only here.'),
  message: z.string(),
});

export const register: RegisterRoutes = async (app, ctx) => {
  const identity = identityServiceOf(ctx.identity);
  // Built with a different Identity (a test double): no account routes.
  if (!identity) return;

  route(
    app,
    {
      method: 'POST',
      path: '/api/signup',
      summary: 'Ask for an account: a confirmation link is mailed to the address; confirming it mails the API key.',
      tags: TAGS,
      auth: 'none',
      body: signupBody,
      response: { status: 202, schema: messageSchema, description: 'Accepted; the confirmation message is on its way.' },
      errors: [400, 413, 429],
    },
    async ({ body }) => {
      await identity.signup(body.email);
      // The same answer whether or not the address already has an account.
      return { message: `A confirmation link has been sent to ${body.email}. Open it to receive your API key by mail.` };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/signup/confirm',
      summary: 'Confirm a signup (the link in the confirmation message). The API key is then mailed, never shown here.',
      tags: TAGS,
      auth: 'none',
      query: confirmQuery,
      response: { status: 200, schema: messageSchema },
      errors: [400, 404, 409, 503],
    },
    async ({ query }, _request, reply) => {
      const { email, outcome } = await identity.confirmSignup(query.token);
      reply.header('cache-control', 'no-store');
      if (outcome === 'exists') return { message: `${email} already has an account, so no new key was issued. We sent a note to that address.` };
      return { message: `Your account is ready. Your API key has been sent to ${email}.` };
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/token',
      summary: 'Exchange the API key for a bearer token valid 30 minutes, with the same authority. No authentication header needed.',
      tags: TAGS,
      auth: 'none',
      body: tokenBody,
      response: { status: 200, schema: tokenSchema },
      errors: [400, 401],
    },
    async ({ body }, _request, reply) => {
      const minted = await identity.mintToken(body.api_key);
      if (!minted) throw new ApiError('UNAUTHENTICATED', 'The API key is unknown or retired.');
      reply.header('cache-control', 'no-store');
      return { access_token: minted.accessToken, token_type: 'Bearer' as const, expires_in: minted.expiresIn };
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/keys/rotate',
      summary: 'Replace the API key sent in X-API-Key. The old key, and every token minted from it, stop working at once.',
      tags: TAGS,
      auth: 'apiKey',
      response: { status: 200, schema: rotateSchema },
      errors: [401],
    },
    async (_input, request, reply) => {
      // The auth hook also accepts tokens; only the key itself may be rotated.
      const rotated = await identity.rotateKey(credentialOf(request) ?? '');
      if (!rotated) throw new ApiError('UNAUTHENTICATED', 'Send the current API key itself (not a bearer token) to rotate it.');
      reply.header('cache-control', 'no-store');
      return {
        new_key: rotated.newKey,
        message: 'The old key and every token minted from it have stopped working. Store the new key now: it is not shown again.',
      };
    },
  );
};
