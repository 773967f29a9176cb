// A loopback HTTP proxy for client tests that need a lost answer: it
// forwards each request to the real server and passes the answer back,
// except for requests a rule picks, whose answer it drops (the connection
// is destroyed after the server has answered) — exactly the case of a
// start that ran while its client heard nothing.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The status the server answered, or undefined while in flight. */
  status?: number;
  dropped: boolean;
}

export interface DropProxy {
  url: string;
  seen: SeenRequest[];
  /** Drop the answers of the next `count` requests that `match` picks. */
  dropNext(count: number, match: (method: string, path: string) => boolean): void;
  close(): Promise<void>;
}

export async function dropProxy(target: string): Promise<DropProxy> {
  const upstream = new URL(target);
  const seen: SeenRequest[] = [];
  let rule: { count: number; match: (method: string, path: string) => boolean } | undefined;

  const server: Server = createServer((incoming, outgoing) => {
    const record: SeenRequest = { method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers: incoming.headers, dropped: false };
    seen.push(record);
    const drop = rule !== undefined && rule.count > 0 && rule.match(record.method, record.path);
    if (drop) rule!.count--;
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: record.method, path: record.path, headers: { ...incoming.headers, host: upstream.host } },
      (answer) => {
        record.status = answer.statusCode;
        if (drop) {
          // Read the whole answer so the server is done with it, then hang up on the client.
          answer.resume();
          answer.on('end', () => {
            record.dropped = true;
            outgoing.socket?.destroy();
          });
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.socket?.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    dropNext(count, match) {
      rule = { count, match };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
