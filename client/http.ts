// How the client puts a request on the wire. By default undici's connection
// pools (keep-alive, a pool per origin and client, ended by its close()): the client
// is for servers (SPEC.md: REST routes send no CORS headers, so browsers
// cannot use them), and a busy worker pays this on every activation and
// completion. The pools are driven through their dispatch() with a handler
// that keeps the answer as it comes: undici's request() wraps every answer
// in a stream and a promise chain, which costs about as much CPU again,
// and request() is itself a fraction of a node:http request, two to three
// times cheaper than fetch(). A `fetch` given in the options is used
// instead (tests, proxies, other runtimes). Also the request path, filled
// from a route's template.
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { Pool, type Dispatcher } from 'undici';

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
 * whose body pauses for longer, fails as one that never came. A Pool per
 * origin rather than an Agent: a client speaks to one server, and the
 * Agent's dispatch by origin is a layer more on every request.
 */
export function poolSender(options: { connections?: number; timeoutMs?: number } = {}): PooledSender {
  const timeout = options.timeoutMs ?? 0;
  const poolOptions = { connections: options.connections ?? 256, keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout };
  /** The pools by the prefix of the URL that names their origin (parsed once). */
  const pools = new Map<string, Pool>();
  let closed = false;
  const send: Sender = (request) => {
    const { pool, path } = route(request.url);
    return new Promise((resolve, reject) => {
      const answer = new AnswerHandler(resolve, reject, request.signal);
      if (answer.settled) return;
      pool.dispatch({ path, method: request.method as Dispatcher.HttpMethod, headers: request.headers, body: request.body }, answer);
    });
  };

  /** The URL's pool and path: the pool found by the URL's prefix up to its path, the path as the client built it (already encoded). */
  function route(url: string): { pool: Pool; path: string } {
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    const prefix = pathStart < 0 ? url : url.slice(0, pathStart);
    let pool = pools.get(prefix);
    if (pool === undefined) {
      // As an Agent would after its close(): refused, not a new connection.
      if (closed) throw new Error('the connection pools of this client are closed');
      pool = new Pool(new URL(prefix).origin, poolOptions);
      pools.set(prefix, pool);
    }
    return { pool, path: pathStart < 0 ? '/' : url.slice(pathStart) };
  }

  return Object.assign(send, {
    close: async () => {
      closed = true;
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    },
  });
}

/**
 * Gathers one answer for dispatch() and settles the request's promise with
 * it. The caller's signal aborts the request, before it is sent or while
 * it is answered; its listener goes when the request is settled.
 */
class AnswerHandler implements Dispatcher.DispatchHandler {
  settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private chunks: Buffer[] = [];

  constructor(
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    if (signal === undefined) return;
    if (signal.aborted) this.fail(abortError(signal));
    else signal.addEventListener('abort', this, { once: true });
  }

  /** The signal's abort (the handler is its listener object: no closure per request). */
  handleEvent(): void {
    const reason = abortError(this.signal!);
    if (this.controller === undefined) this.fail(reason);
    else this.controller.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Again when undici sends the request anew: what came of the try before is dropped.
    this.controller = controller;
    this.chunks = [];
    if (this.settled) controller.abort(abortError(this.signal!));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.done()) return;
    const { chunks } = this;
    const text = chunks.length === 0 ? '' : chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.resolve(new PooledResponse(this.status, this.headers, text));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  private fail(error: unknown): void {
    if (!this.done()) this.reject(error);
  }

  /** Marks the request settled; true if it already was. */
  private done(): boolean {
    if (this.settled) return true;
    this.settled = true;
    this.signal?.removeEventListener('abort', this);
    return false;
  }
}

/** The abort's reason as an error, as undici's request() rejects with. */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** An answer through the pools: a class, so that no function is made for each answer. */
class PooledResponse implements HttpResponse {
  constructor(
    readonly status: number,
    private readonly received: IncomingHttpHeaders,
    readonly text: string,
  ) {}

  /** undici does not pass the reason phrase on; the standard one for the status does as well. */
  get statusText(): string {
    return STATUS_CODES[this.status] ?? '';
  }

  header(name: string): string | undefined {
    const value = this.received[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  }
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
