// Every request of the client goes through here: the credential is added,
// what is safe to repeat is repeated, and a request that got no answer
// becomes an OrcaError. Safe to repeat means a GET/HEAD or a request
// carrying an Idempotency-Key (the server answers a repeat with the first
// result); anything else is sent once, because repeating a start or a
// completion whose answer was lost could do it twice. A 401 on a bearer
// token is renewed and repeated once whatever the method: the server did
// nothing on a 401.
import type { Credentials } from './auth.ts';
import { OrcaError, retryAfterMs } from './errors.ts';
import type { HttpRequest, HttpResponse, Sender } from './http.ts';
import { delayBeforeRetry, MAX_RETRY_AFTER_MS, type RetryPolicy } from './retry.ts';

export interface TransportOptions {
  send: Sender;
  credentials: Credentials;
  retry: RetryPolicy;
  clock: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Told of every repeat, for logging and metrics. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  url: string;
  /** The repeat about to be sent, from 1. */
  retry: number;
  delayMs: number;
  /** The status that caused it, or 0 for no answer. */
  status: number;
  error?: unknown;
}

const RETRY_STATUSES = new Set([429, 503]);

/**
 * Sends a request, repeating it where that is safe. `owned`: the request
 * was made for this one call, and its first sending may carry the
 * credential in its own headers rather than in a copy (a worker sends one
 * per job; the repeats still get copies).
 */
export type Transport = (request: HttpRequest, owned?: boolean) => Promise<HttpResponse>;

export function isRepeatable(request: HttpRequest): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || request.headers['idempotency-key'] !== undefined;
}

export function createTransport(options: TransportOptions): Transport {
  const { credentials, retry, clock, sleep } = options;
  return async function send(request: HttpRequest, owned = false): Promise<HttpResponse> {
    const { method, url, signal } = request;
    const repeatable = isRepeatable(request);
    // A call that names its own credential (the operator's token) sends that one.
    const named = request.headers.authorization !== undefined;
    let renewed = false;
    let inPlace = owned;
    for (let attempt = 1; ; attempt++) {
      const headers = inPlace ? request.headers : { ...request.headers };
      inPlace = false;
      if (!named) {
        const applying = credentials.apply(headers);
        if (applying !== undefined) await applying;
      }
      let response: HttpResponse;
      try {
        response = await options.send({ method, url, headers, body: request.body, signal });
      } catch (error) {
        if (!repeatable || attempt >= retry.attempts || signal?.aborted) throw OrcaError.transport(method, url, error);
        const delayMs = delayBeforeRetry(retry, attempt, undefined, options.random);
        options.onRetry?.({ method, url, retry: attempt, delayMs, status: 0, error });
        await sleep(delayMs, signal);
        continue;
      }
      if (response.status === 401 && !renewed && credentials.invalidate(headers)) {
        renewed = true;
        attempt--; // The renewal is not one of the tries.
        continue;
      }
      if (RETRY_STATUSES.has(response.status) && repeatable && attempt < retry.attempts) {
        const after = retryAfterMs(response.header('retry-after') ?? null, clock());
        if (after === undefined || after <= MAX_RETRY_AFTER_MS) {
          const delayMs = delayBeforeRetry(retry, attempt, after, options.random);
          options.onRetry?.({ method, url, retry: attempt, delayMs, status: response.status });
          await sleep(delayMs, signal);
          continue;
        }
      }
      return response;
    }
  };
}

/** setTimeout as a promise that an abort ends early (rejecting with the abort reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
