// How the client puts a request on the wire. By default undici's connection
// pools (keep-alive, one agent per client, ended by its close()): the client
// is for servers (SPEC.md: REST routes send no CORS headers, so browsers
// cannot use them), and a busy worker pays this on every activation and
// completion — undici's request() costs a fraction of the CPU of a node:http
// request, itself two to three times cheaper than fetch(). A `fetch` given
// in the options is used instead (tests, proxies, other runtimes). Also the
// request path, filled from a route's template.
import { STATUS_CODES } from 'node:http';
import { Agent } from 'undici';

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

/** A sender that owns connections: close() ends them once the requests in flight are answered. */
export type PooledSender = Sender & { close(): Promise<void> };

/**
 * Keep-alive connections, one pool per origin and client. Without
 * `timeoutMs` no timeout of undici's own cuts an answer short: a long poll
 * is held by the server for as long as it was asked to, and the caller's
 * signal ends a request. With it, an answer whose headers take longer, or
 * whose body pauses for longer, fails as one that never came.
 */
export function poolSender(options: { connections?: number; timeoutMs?: number } = {}): PooledSender {
  const timeout = options.timeoutMs ?? 0;
  const agent = new Agent({ connections: options.connections ?? 256, keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout });
  /** Origins as parsed once, by the prefix of the URL that names them. */
  const origins = new Map<string, string>();
  const send: Sender = async (request) => {
    const { origin, path } = split(request.url, origins);
    const response = await agent.request({
      origin,
      path,
      method: request.method as 'GET',
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    const text = await response.body.text();
    const received = response.headers;
    return {
      status: response.statusCode,
      // undici does not pass the reason phrase on; the standard one for the status does as well.
      statusText: STATUS_CODES[response.statusCode] ?? '',
      header: (name) => {
        const value = received[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      text,
    };
  };
  return Object.assign(send, { close: () => agent.close() });
}

/** The URL's origin and path: the origin parsed once (the client's base URL), the path as the client built it (already encoded). */
function split(url: string, origins: Map<string, string>): { origin: string; path: string } {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const prefix = pathStart < 0 ? url : url.slice(0, pathStart);
  let origin = origins.get(prefix);
  if (origin === undefined) {
    origin = new URL(prefix).origin;
    origins.set(prefix, origin);
  }
  return { origin, path: pathStart < 0 ? '/' : url.slice(pathStart) };
}

/** Through a fetch; with `timeoutMs`, each request (its answer read whole) is aborted after that long. */
export function fetchSender(fetchImpl: typeof fetch, options: { timeoutMs?: number } = {}): Sender {
  return async (request) => {
    const body = request.body as BodyInit | undefined;
    let signal = request.signal;
    if (options.timeoutMs) {
      const deadline = AbortSignal.timeout(options.timeoutMs);
      signal = signal ? AbortSignal.any([signal, deadline]) : deadline;
    }
    const response = await fetchImpl(request.url, { method: request.method, headers: request.headers, body, signal });
    const text = await response.text();
    return {
      status: response.status,
      statusText: response.statusText,
      header: (name) => response.headers.get(name) ?? undefined,
      text,
    };
  };
}

/** A path template split once at its `{name}` parameters: literal, name, literal, … (every call of a route fills the same one). */
const templates = new Map<string, string[]>();

export function fillPath(template: string, values: Record<string, string> | undefined): string {
  let parts = templates.get(template);
  if (parts === undefined) templates.set(template, (parts = template.split(/\{([^}]+)\}/)));
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) out += encodeURIComponent(values?.[parts[i]] ?? '') + parts[i + 1];
  return out;
}
