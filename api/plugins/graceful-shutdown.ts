// Graceful shutdown of the HTTP server: app.close() stops taking new
// requests (a 503 problem with Retry-After, so the client tries another
// pod; fastify's own 503 would not be problem+json), lets the ones in flight
// finish — a long-polling activation gets its answer — and only then runs
// the onClose hooks that close the engine. Node keeps a finished keep-alive
// connection open until it times out (72 s in fastify), which would hold
// close() that long, so responses sent while closing say `Connection: close`.
// A request still running after the grace period is cut off, so a pod
// always stops within its termination grace; `app.shutdownSignal` aborts
// when closing starts, for handlers that can answer early (a long poll
// ending with no jobs rather than being cut off).
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Aborted when app.close() starts: long-running handlers may answer early. */
    shutdownSignal: AbortSignal;
  }
}

export interface GracefulShutdownOptions {
  /** How long in-flight requests may take once closing starts. Default 25 s (Kubernetes gives 30). */
  graceMs?: number;
}

export function registerGracefulShutdown(app: FastifyInstance, options: GracefulShutdownOptions = {}): void {
  const graceMs = options.graceMs ?? 25_000;
  let closing = false;
  let deadline: NodeJS.Timeout | undefined;
  const shutdown = new AbortController();
  app.decorate('shutdownSignal', shutdown.signal);

  app.addHook('preClose', async () => {
    closing = true;
    shutdown.abort();
    deadline = setTimeout(() => app.server.closeAllConnections(), graceMs);
    deadline.unref();
  });

  app.addHook('onRequest', async () => {
    if (closing) throw new ApiError('UNAVAILABLE', 'This server is shutting down; retry, another one will answer.', { retryAfterSeconds: 1 });
  });

  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  app.addHook('onClose', async () => {
    clearTimeout(deadline);
  });
}
