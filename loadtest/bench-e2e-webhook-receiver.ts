// The webhook receiver of bench:e2e --webhook, run as a process of its own
// (as a real receiver is elsewhere: it must not take the load generator's
// CPU, which would lower the throughput measured "with" webhooks). It
// answers every POST 204 at once, notes when each delivery arrived and how
// old its event was (the payload's `timestamp` → receipt; same host, same
// clock), and hands those notes out on GET /deliveries?from=N as JSON
// `[[webhook-id, receivedAt, lagMs], …]`. Prints `listening <port>` once up.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** Receipt − the event's `timestamp` (ms); NaN for a body without one. */
export function eventLagMs(body: string, receivedAt: number): number {
  try {
    const timestamp = (JSON.parse(body) as { timestamp?: unknown }).timestamp;
    return typeof timestamp === 'string' ? receivedAt - Date.parse(timestamp) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function serve(): void {
  const notes: [string, number, number][] = [];
  const server = createServer((request, response) => {
    if (request.method === 'GET') {
      const from = Number(new URL(request.url ?? '/', 'http://receiver').searchParams.get('from') ?? 0);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(notes.slice(from)));
      return;
    }
    const parts: Buffer[] = [];
    request.on('data', (chunk: Buffer) => parts.push(chunk));
    request.on('end', () => {
      const receivedAt = Date.now();
      response.writeHead(204).end();
      notes.push([String(request.headers['webhook-id']), receivedAt, eventLagMs(Buffer.concat(parts).toString('utf8'), receivedAt)]);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) serve();
