// The HTTP server: fastify with problem+json errors, API-key auth, raw XML
// and multipart bodies, and one module per resource family under routes/.
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ApiContext } from './context.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { routeFamilies } from './routes/index.ts';

export async function buildServer(ctx: ApiContext, options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.bodyLimit,
    // Keys and tokens must never reach the logs.
    disableRequestLogging: true,
    return503OnClosing: true,
  });
  registerErrorHandling(app);
  registerAuth(app, ctx.identity);
  // Models arrive as raw XML (SPEC.md: Content-Type application/xml with ?resourceName=).
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) => done(null, body));
  await app.register(multipart, { limits: { fileSize: ctx.config.bodyLimit, files: 1, fields: 10 } });
  for (const register of routeFamilies) await register(app, ctx);
  return app;
}
