// The webhook receiver of bench:e2e --webhook, run as a process of its own
// (as a real receiver is elsewhere: it must not take the load generator's
// CPU, which would lower the throughput measured "with" webhooks). A lean
// but honest receiver: it checks every delivery's Standard Webhooks
// signature (HMAC-SHA256 of "id.timestamp.body" with the secret it is given
// in ORCA_BENCH_WEBHOOK_SECRET; no secret: nothing is checked), answers 204
// to a good one and 401 to a bad one (which the dispatcher then retries),
// notes when each good delivery arrived and how old its event was (the
// payload's `timestamp` → receipt; same host, same clock), and hands those
// notes out on GET /deliveries?from=N as JSON `[[webhook-id, receivedAt,
// lagMs], …]` and the count of refused ones on GET /refused. A single
// event's body is not parsed: the timestamp is found by a pattern, as a
// receiver that only queues the delivery would not parse it either; a
// batched delivery's array is parsed, as a receiver must to fan it out,
// and each event in it noted under its own id. Prints `listening <port>`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { signingKeyOf } from '../api/webhooks/signing-secret.ts';

const TIMESTAMP = /"timestamp": ?"([^"]+)"/;

/** Receipt − the event's `timestamp` (ms); NaN for a body without one. */
export function eventLagMs(body: string, receivedAt: number): number {
  const found = TIMESTAMP.exec(body);
  return found === null ? Number.NaN : receivedAt - Date.parse(found[1]);
}

/** Whether one of the `v1,` signatures in `header` is the HMAC of "id.timestamp.body" under `key`. */
export function signatureMatches(key: Buffer, id: string, timestamp: string, body: string, header: string): boolean {
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  for (const part of header.split(' ')) {
    if (!part.startsWith('v1,')) continue;
    const given = Buffer.from(part.slice(3), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
  }
  return false;
}

function serve(secret: string | undefined): void {
  const key = secret === undefined || secret === '' ? undefined : signingKeyOf(secret);
  const notes: [string, number, number][] = [];
  let refused = 0;
  const server = createServer((request, response) => {
    if (request.method === 'GET') {
      const url = new URL(request.url ?? '/', 'http://receiver');
      const answer = url.pathname === '/refused' ? refused : notes.slice(Number(url.searchParams.get('from') ?? 0));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    const parts: Buffer[] = [];
    request.on('data', (chunk: Buffer) => parts.push(chunk));
    request.on('end', () => {
      const receivedAt = Date.now();
      const body = parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8');
      const id = String(request.headers['webhook-id']);
      const timestamp = String(request.headers['webhook-timestamp']);
      if (key !== undefined && !signatureMatches(key, id, timestamp, body, String(request.headers['webhook-signature'] ?? ''))) {
        refused++;
        response.writeHead(401).end();
        return;
      }
      response.writeHead(204).end();
      if (body.startsWith('[')) {
        for (const event of JSON.parse(body) as { id: string; timestamp: string }[])
          notes.push([event.id, receivedAt, receivedAt - Date.parse(event.timestamp)]);
      } else notes.push([id, receivedAt, eventLagMs(body, receivedAt)]);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) serve(process.env.ORCA_BENCH_WEBHOOK_SECRET);
