// A webhook receiver for tests and the bench: a real HTTP server on
// loopback that checks every delivery with the `standardwebhooks` package
// (an implementation of the specification nobody here wrote) and answers
// 400 to one that does not verify — a tampered body, a stale timestamp, a
// wrong key. Each request is kept (headers, raw body, verdict); `answer`
// decides what a verified one gets (200 unless told otherwise: 500, 410, a
// hang, a huge body, a redirect, a reset connection).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Why verification refused it; undefined when it verified. */
  refused?: string;
  /** When it arrived (Date.now()). */
  receivedAt: number;
}

export interface Receiver {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Requests whose answer has not been sent (a hanging answer). */
  open(): number;
  /** What a verified delivery gets; default 200 `ok`. */
  answer: (delivery: ReceivedDelivery, response: ServerResponse, request: IncomingMessage) => void | Promise<void>;
  /** Resolves once `count` deliveries verified (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** `secrets`: the whsec_ secrets accepted (any one verifying suffices). */
export async function startReceiver(secrets: () => readonly string[], options: { host?: string } = {}): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let open = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (chunk: Buffer) => parts.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      const delivery: ReceivedDelivery = { path: request.url ?? '/', headers: request.headers, body, receivedAt: Date.now() };
      delivery.refused = verify(secrets(), body, request.headers);
      received.push(delivery);
      open++;
      response.on('close', () => open--);
      if (delivery.refused !== undefined) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`refused: ${delivery.refused}`);
      } else {
        void Promise.resolve(receiver.answer(delivery, response, request)).catch(() => response.destroy());
      }
      const verified = received.filter((d) => d.refused === undefined).length;
      for (const waiter of waiters.splice(0)) {
        if (verified >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const receiver: Receiver = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    received,
    open: () => open,
    answer: (_delivery, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
    waitFor(count, timeoutMs = 20_000) {
      const verified = () => received.filter((d) => d.refused === undefined);
      if (verified().length >= count) return Promise.resolve(verified());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${verified().length} of ${count} deliveries arrived within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(verified());
          },
        });
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** Why `standardwebhooks` refuses the delivery under every secret, or undefined when one verifies it. */
export function verify(secrets: readonly string[], body: string, headers: IncomingMessage['headers']): string | undefined {
  const wanted = {
    'webhook-id': String(headers['webhook-id'] ?? ''),
    'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
    'webhook-signature': String(headers['webhook-signature'] ?? ''),
  };
  let why = 'no secret to verify with';
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(body, wanted);
      return undefined;
    } catch (error) {
      why = error instanceof Error ? error.message : String(error);
    }
  }
  return why;
}
