// The signed-in person's API keys (docs/account.md): listed by prefix and
// creation time, never in full, and rotated by id — the old key and its
// tokens stop at once and the new key is shown once, in the answer. The
// key-authed rotation (POST /api/keys/rotate) stays in auth.ts.
import { z } from 'zod';
import { identityServiceOf } from '../identity/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['account'];

const keySchema = z.object({
  id: z.string(),
  prefix: z.string().nullable().describe("The key's first 12 characters; null for keys made before prefixes were kept."),
  createdAt: z.string(),
});

export const register: RegisterRoutes = async (app, ctx) => {
  const identity = identityServiceOf(ctx.identity);
  if (!identity || !ctx.signIn) return;

  route(
    app,
    {
      method: 'GET',
      path: '/api/account/keys',
      summary: "The signed-in account's active API keys, newest first, by prefix.",
      tags: TAGS,
      auth: 'session',
      response: { status: 200, schema: z.object({ items: z.array(keySchema) }) },
      errors: [401],
    },
    async (_input, request) => {
      const keys = await ctx.engine.store.login.listKeys(request.account);
      return { items: keys.map((k) => ({ id: k.id, prefix: k.prefix, createdAt: k.createdAt.toISOString() })) };
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/account/keys/:keyId/rotate',
      summary: 'Replaces one of the account’s API keys: it and its tokens stop working at once; the new key is shown only here.',
      tags: TAGS,
      auth: 'session',
      params: z.object({ keyId: z.string().min(1).max(64).describe('The id from the key list.') }),
      response: {
        status: 200,
        schema: z.object({ id: z.string(), prefix: z.string(), key: z.string().describe('The new API key; it is not shown again.') }),
      },
      errors: [401, 404],
    },
    async ({ params }, request, reply) => {
      const rotated = await identity.rotateKeyById(request.account, params.keyId);
      if (!rotated) throw new ApiError('NOT_FOUND', 'The account has no active API key with this id (it may have been rotated already).');
      reply.header('cache-control', 'no-store');
      return { id: rotated.keyId, prefix: rotated.prefix, key: rotated.newKey };
    },
  );
};
