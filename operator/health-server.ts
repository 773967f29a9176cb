// The operator's HTTP listener for the kubelet and Prometheus: /healthz
// (the process is alive), /readyz (its caches are synced — standbys
// included, so a rollout waits for a warm replica) and /metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(options: { port: number; host?: string; ready: () => boolean; registry: Registry }): Promise<HealthServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'method not allowed\n');
    if (path === '/healthz') return answer(200, 'ok\n');
    if (path === '/readyz') return options.ready() ? answer(200, 'ok\n') : answer(503, 'caches not synced\n');
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => answer(200, text, options.registry.contentType),
        (error: unknown) => answer(500, `${String(error)}\n`),
      );
      return;
    }
    answer(404, 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
