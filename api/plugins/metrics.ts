// Metrics over HTTP: GET /metrics serves the Prometheus text format
// (unauthenticated, like the probes: a scraper holds no API key), and every
// request is timed into orca_http_request_duration_seconds by its route
// pattern, never its URL: a request no route matched is `unmatched`, with
// its method kept only when it is a standard one, so no label value comes
// from what a client sends. Scrapes themselves are not timed.
import type { FastifyInstance } from 'fastify';
import type { Histogram } from 'prom-client';
import type { OrcaMetrics } from '../metrics/orca-metrics.ts';
import { route } from '../openapi/route.ts';

const METRICS_PATH = '/metrics';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

type Child = ReturnType<Histogram['labels']>;

export function registerMetrics(app: FastifyInstance, metrics: OrcaMetrics): void {
  // One bound child per (route, method, status class): no label hashing per request after the first.
  const children = new Map<string, Child[]>();
  const childFor = (route: string, method: string, status: number): Child => {
    const key = `${method} ${route}`;
    let byClass = children.get(key);
    if (byClass === undefined) {
      byClass = STATUS_CLASSES.map((statusClass) => metrics.httpDuration.labels(route, method, statusClass));
      children.set(key, byClass);
    }
    return byClass[Math.min(4, Math.max(0, Math.floor(status / 100) - 1))];
  };

  app.addHook('onResponse', async (request, reply) => {
    const pattern = request.routeOptions.url;
    if (pattern === METRICS_PATH) return;
    const method = pattern === undefined ? (METHODS.has(request.method) ? request.method : 'OTHER') : request.method;
    childFor(pattern ?? 'unmatched', method, reply.statusCode).observe(reply.elapsedTime / 1000);
  });

  route(
    app,
    {
      method: 'GET',
      path: METRICS_PATH,
      summary: 'Prometheus metrics of this process (text exposition format): the orca_ series of docs/observability.md and Node process metrics.',
      tags: ['operations'],
      auth: 'none',
      response: { status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', description: 'The metrics, in the Prometheus text format.' },
    },
    async (_input, _request, reply) => {
      const text = await metrics.text();
      return reply.code(200).type(metrics.contentType).send(text);
    },
  );
}
