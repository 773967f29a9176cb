// How the client puts a request on the wire. By default node:http(s) with
// keep-alive connections: the client is for servers (SPEC.md: REST routes
// send no CORS headers, so browsers cannot use them), and on Node a fetch()
// costs two to three times the CPU of node:http per request — what a busy
// worker would pay on every activation and completion. A `fetch` given in
// the options is used instead (tests, proxies, other runtimes).
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpRequest {
  method: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  header(name: string): string | undefined;
  /** The whole body as text. */
  text: string;
}

export type Sender = (request: HttpRequest) => Promise<HttpResponse>;

/** Keep-alive connections, one pool per client. */
export function nodeSender(options: { maxSockets?: number } = {}): Sender {
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 }),
  };
  return (request) =>
    new Promise<HttpResponse>((resolve, reject) => {
      const url = new URL(request.url);
      const secure = url.protocol === 'https:';
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
      const outgoing = (secure ? httpsRequest : httpRequest)(
        url,
        { method: request.method, headers, agent: secure ? agents.https : agents.http, signal: request.signal },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const received: IncomingHttpHeaders = incoming.headers;
            resolve({
              status: incoming.statusCode ?? 0,
              statusText: incoming.statusMessage ?? '',
              header: (name) => {
                const value = received[name.toLowerCase()];
                return Array.isArray(value) ? value.join(', ') : value;
              },
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
}

export function fetchSender(fetchImpl: typeof fetch): Sender {
  return async (request) => {
    const body = request.body as BodyInit | undefined;
    const response = await fetchImpl(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
    const text = await response.text();
    return {
      status: response.status,
      statusText: response.statusText,
      header: (name) => response.headers.get(name) ?? undefined,
      text,
    };
  };
}
