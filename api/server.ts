// The HTTP server: fastify with problem+json errors, API-key auth, raw XML
// and multipart bodies, and one module per resource family under routes/.
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ApiContext } from './context.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerGracefulShutdown, type GracefulShutdownOptions } from './plugins/graceful-shutdown.ts';
import { rateLimitOptionsFromEnv, registerRateLimit, type RateLimitOptions } from './plugins/rate-limit.ts';
import { routeFamilies } from './routes/index.ts';

export interface ServerOptions {
  logger?: boolean;
  /** Per-account limits; false turns them off. Default: from the environment (see rate-limit.ts). */
  rateLimit?: RateLimitOptions | false;
  shutdown?: GracefulShutdownOptions;
}

export async function buildServer(ctx: ApiContext, options: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: ctx.config.bodyLimit,
    // Keys and tokens must never reach the logs.
    logController: new LogController({ disableRequestLogging: true }),
    // graceful-shutdown.ts answers requests that arrive while closing, as problem+json.
    return503OnClosing: false,
  });
  registerErrorHandling(app);
  registerAuth(app, ctx.identity);
  // After auth: the limit is per account.
  await registerRateLimit(app, options.rateLimit ?? rateLimitOptionsFromEnv(process.env));
  registerGracefulShutdown(app, options.shutdown);
  // Models arrive as raw XML (SPEC.md: Content-Type application/xml with ?resourceName=).
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) => done(null, body));
  await app.register(multipart, { limits: { fileSize: ctx.config.bodyLimit, files: 1, fields: 10 } });
  for (const register of routeFamilies) await register(app, ctx);
  return app;
}
