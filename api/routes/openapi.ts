// GET /api/v1/openapi.json: the machine-readable REST contract (SPEC.md
// "Versioning"), generated from the routes' own zod schemas. No auth: a
// client needs it before it has a key. Built once, after every route family
// has registered, since the registry only grows while the server is built.
import { z } from 'zod';
import { buildOpenApiDocument } from '../openapi/document.ts';
import { route } from '../openapi/route.ts';
import type { RegisterRoutes } from './index.ts';

export const register: RegisterRoutes = async (app, ctx) => {
  let document: Record<string, unknown> | undefined;
  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document.',
      tags: ['meta'],
      auth: 'none',
      response: { status: 200, schema: z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.') },
    },
    async () => {
      document ??= buildOpenApiDocument({ serverUrl: ctx.config.publicUrl || undefined });
      return document;
    },
  );
};
