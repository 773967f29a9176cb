// The HTTP server: fastify with problem+json errors (the router's and the
// HTTP parser's included), API-key auth, JSON bodies checked for nesting
// before they are parsed, raw XML and multipart bodies, metrics, and one
// module per resource family under routes/.
import type { Tracer } from '@opentelemetry/api';
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ApiContext } from './context.ts';
import { registerAuth } from './plugins/auth.ts';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH, registerErrorHandling } from './plugins/errors.ts';
import { registerJsonBody } from './plugins/json-body.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerTracing } from './plugins/tracing.ts';
import { traceLogFields } from './tracing/log-fields.ts';
import { registerGracefulShutdown, type GracefulShutdownOptions } from './plugins/graceful-shutdown.ts';
import { registerRateLimit, type RateLimitOptions } from './plugins/rate-limit.ts';
import { registerMcp } from './mcp/plugin.ts';
import { routeFamilies } from './routes/index.ts';

export interface ServerOptions {
  /** true: log lines to stdout; a stream: to it instead (tests read what would be logged). */
  logger?: boolean | { stream: { write(line: string): void } };
  /** Per-account limits (the configuration's, app.ts); false turns them off. */
  rateLimit: RateLimitOptions | false;
  shutdown?: GracefulShutdownOptions;
  /** Tracing on: a server span per request (plugins/tracing.ts). */
  tracer?: Tracer;
}

export async function buildServer(ctx: ApiContext, options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Log lines written inside a traced request carry its trace_id and span_id.
    logger: options.logger ? { mixin: traceLogFields, ...(typeof options.logger === 'object' ? { stream: options.logger.stream } : {}) } : false,
    bodyLimit: ctx.config.bodyLimit,
    // Keys and tokens must never reach the logs.
    logController: new LogController({ disableRequestLogging: true }),
    // graceful-shutdown.ts answers requests that arrive while closing, as problem+json.
    return503OnClosing: false,
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  registerErrorHandling(app);
  // Before the routes, so every handler is wrapped to run in its request's span.
  if (options.tracer) registerTracing(app, options.tracer);
  // Before the routes, so every one of them is timed.
  if (ctx.metrics) registerMetrics(app, ctx.metrics);
  registerAuth(app, ctx);
  // After auth: the limit is per account.
  const accountLimit = await registerRateLimit(app, options.rateLimit);
  registerGracefulShutdown(app, options.shutdown);
  registerJsonBody(app);
  // Models arrive as raw XML (SPEC.md: Content-Type application/xml with ?resourceName=).
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) => done(null, body));
  await app.register(multipart, { limits: { fileSize: ctx.config.bodyLimit, files: 1, fields: 10 } });
  for (const register of routeFamilies) await register(app, ctx);
  await registerMcp(app, ctx, accountLimit);
  return app;
}
