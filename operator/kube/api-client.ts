// The operator's requests to the Kubernetes API: one JSON request
// (get/list/create/patch/delete) and one streamed watch, over node:http(s)
// with the kubeconfig's credentials applied to each request. Failures are
// KubeApiError with the status, the Status object's reason and any
// Retry-After, so callers decide what to retry; nothing is retried here.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

const REQUEST_TIMEOUT_MS = 30_000;

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    /** The Status object's reason (NotFound, Conflict, Expired …), or the transport error's code. */
    readonly reason: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof KubeApiError && e.status === 404;
export const isConflict = (e: unknown): boolean => e instanceof KubeApiError && e.status === 409;
export const isGone = (e: unknown): boolean => e instanceof KubeApiError && e.status === 410;

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Default application/json; patches say which kind they are. */
  contentType?: 'application/json' | 'application/merge-patch+json' | 'application/json-patch+json';
  signal?: AbortSignal;
}

export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    creationTimestamp?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface KubeApi {
  request<T = unknown>(request: KubeRequest): Promise<T>;
  /**
   * Streams a watch: each event to `onEvent` as it arrives. Resolves when
   * the server ends the stream; rejects on an error status, a broken
   * connection, or `inactivityMs` without a byte (the watchdog).
   */
  watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (event: WatchEvent) => void,
    options: { inactivityMs: number; signal?: AbortSignal },
  ): Promise<void>;
  close(): void;
}

export function kubeApi(kc: KubeConfig): KubeApi {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('no current cluster in the kubeconfig');
  const base = new URL(cluster.server);
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 64 }) : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  // Watches hold their connection for minutes; they get their own agent so they never starve requests.
  const watchAgent = secure ? new HttpsAgent({ keepAlive: false }) : new HttpAgent({ keepAlive: false });

  async function open(
    method: string,
    path: string,
    query: KubeRequest['query'],
    headers: Record<string, string>,
    useAgent: HttpAgent,
  ): Promise<RequestOptions & { url: URL }> {
    const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const options: RequestOptions = { method, headers: { accept: 'application/json', ...headers } };
    await kc.applyToHTTPSOptions(options);
    options.agent = useAgent;
    return { ...options, url };
  }

  function send(options: RequestOptions & { url: URL }, body: string | undefined, signal?: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const { url, ...rest } = options;
      const req = (secure ? httpsRequest : httpRequest)(url, { ...rest, signal }, resolve);
      req.on('error', (error) => reject(transportError(options.method ?? 'GET', url, error)));
      if (body !== undefined) req.end(body);
      else req.end();
    });
  }

  return {
    async request<T>(request: KubeRequest): Promise<T> {
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const headers: Record<string, string> =
        body === undefined ? {} : { 'content-type': request.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(body)) };
      const options = await open(request.method, request.path, request.query, headers, agent);
      // A request (not a watch) that has no answer in 30 s is given up: an API server that hangs must not hold a worker.
      // A plain timer cleared on the answer, not AbortSignal.timeout and .any: those cost 15-30 µs a request and keep their timers for the full 30 s.
      const abort = new AbortController();
      if (request.signal?.aborted) abort.abort(request.signal.reason);
      const deadline = setTimeout(() => abort.abort(new DOMException(`no answer in ${REQUEST_TIMEOUT_MS} ms`, 'TimeoutError')), REQUEST_TIMEOUT_MS);
      const onAbort = () => abort.abort(request.signal!.reason);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const response = await send(options, body, abort.signal);
        const text = await readAll(response);
        if ((response.statusCode ?? 0) >= 300) throw statusError(request.method, request.path, response, text);
        return (text === '' ? undefined : JSON.parse(text)) as T;
      } finally {
        clearTimeout(deadline);
        request.signal?.removeEventListener('abort', onAbort);
      }
    },

    async watch(path, query, onEvent, { inactivityMs, signal }) {
      const abort = new AbortController();
      const onAbort = () => abort.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let watchdog: NodeJS.Timeout | undefined;
      try {
        const options = await open('GET', path, { ...query, watch: true }, {}, watchAgent);
        let stalled = false;
        const arm = () => {
          clearTimeout(watchdog);
          watchdog = setTimeout(() => {
            stalled = true;
            abort.abort();
          }, inactivityMs);
        };
        arm();
        const response = await send(options, undefined, abort.signal).catch((error: unknown) => {
          throw stalled ? new KubeApiError(0, 'WatchInactive', `watch ${path}: nothing for ${inactivityMs} ms`) : error;
        });
        if ((response.statusCode ?? 0) >= 300) throw statusError('GET', path, response, await readAll(response));
        response.setEncoding('utf8');
        let pending = '';
        await new Promise<void>((resolve, reject) => {
          response.on('data', (chunk: string) => {
            arm();
            pending += chunk;
            let newline: number;
            while ((newline = pending.indexOf('\n')) >= 0) {
              const line = pending.slice(0, newline).trim();
              pending = pending.slice(newline + 1);
              if (line === '') continue;
              try {
                onEvent(JSON.parse(line) as WatchEvent);
              } catch (error) {
                // Settle with this error before destroying: destroy() can emit close events synchronously.
                reject(error);
                response.destroy();
                return;
              }
            }
          });
          response.on('end', () => resolve());
          response.on('error', (error) =>
            reject(stalled ? new KubeApiError(0, 'WatchInactive', `watch ${path}: nothing for ${inactivityMs} ms`) : transportError('GET', options.url, error)),
          );
          response.on('aborted', () => reject(new KubeApiError(0, stalled ? 'WatchInactive' : 'Aborted', `watch ${path}: connection closed`)));
          response.on('close', () => {
            if (!response.complete) reject(new KubeApiError(0, stalled ? 'WatchInactive' : 'ConnectionClosed', `watch ${path}: connection closed mid-stream`));
          });
        });
      } finally {
        clearTimeout(watchdog);
        signal?.removeEventListener('abort', onAbort);
      }
    },

    close() {
      agent.destroy();
      watchAgent.destroy();
    },
  };
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

function statusError(method: string, path: string, response: IncomingMessage, text: string): KubeApiError {
  let reason = `HTTP_${response.statusCode}`;
  let message = text.slice(0, 500);
  try {
    const status = JSON.parse(text) as { reason?: string; message?: string };
    if (typeof status.reason === 'string' && status.reason !== '') reason = status.reason;
    if (typeof status.message === 'string') message = status.message;
  } catch {
    // Not a Status object: keep the text.
  }
  const retryAfter = Number(response.headers['retry-after']);
  return new KubeApiError(
    response.statusCode ?? 0,
    reason,
    `${method} ${path}: ${response.statusCode} ${message}`,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

function transportError(method: string, url: URL, error: Error): KubeApiError {
  if (error instanceof KubeApiError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? error.name;
  return new KubeApiError(0, code, `${method} ${url.pathname}: ${error.message}`);
}
