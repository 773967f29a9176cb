// Server spans for HTTP requests (tracing on): one span per request, named
// by its method and route pattern (`POST /api/v1/jobs/:jobKey/complete`,
// never the URL), continuing the trace of an incoming W3C `traceparent`.
// The route handlers run inside it (wrapped as routes are added), so the
// engine's command and activation spans become its children and log lines
// written meanwhile carry its ids. Probes and scrapes are not traced: an
// orchestrator's polling is not work anyone follows. A small hook pair rather than
// @fastify/otel: that one brings @opentelemetry/instrumentation of another
// release set and module hooks we do not need.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

/** Polled by Kubernetes and Prometheus every few seconds: no spans. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

export function registerTracing(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', async (request) => {
    const pattern = request.routeOptions.url;
    if (pattern !== undefined && UNTRACED.has(pattern)) return;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      pattern === undefined ? `${request.method}` : `${request.method} ${pattern}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': pattern ?? 'unmatched', 'url.path': request.url.split('?', 1)[0] },
      },
      parent,
    );
    spans.set(request, span);
  });

  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const span = spans.get(request);
      if (span === undefined) return handler.call(this, request, reply);
      return context.with(trace.setSpan(context.active(), span), handler, this, request, reply);
    } as RouteHandlerMethod;
  });

  app.addHook('onError', async (request, _reply, error) => {
    spans.get(request)?.recordException(error);
  });

  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });

  app.addHook('onRequestAbort', async (request) => {
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted by the client' });
    span.end();
  });
}
