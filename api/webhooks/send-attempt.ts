// One delivery attempt over HTTP: POST the signed body, and tell what came
// of it. The whole attempt has a deadline (15 s by default) whatever the
// receiver does; redirects are never followed (a 3xx is a failure, so no
// redirect can lead a delivery to an address the guard would refuse); of
// the answer only a short prefix is read, for the log, and the rest is
// dropped with the connection, so a huge answer never lands in memory.
// Connections go through guarded-connector.ts (the SSRF guard), one pool
// per origin (origin-pools.ts).
import type { Dispatcher } from 'undici';
import { retryAfterMs } from './retry-schedule.ts';

/** The longest part of an answer that is kept (in a failed attempt's error). */
export const ANSWER_PREFIX_BYTES = 1024;

export interface AttemptOutcome {
  at: Date;
  durationMs: number;
  statusCode?: number;
  /** Why it failed; absent when it succeeded (2xx). */
  error?: string;
  /** The receiver's Retry-After, in ms. */
  retryAfterMs?: number;
}

export interface AttemptRequest {
  /** The endpoint's origin's pool (origin-pools.ts). */
  dispatcher: Dispatcher;
  /** Path and query. */
  path: string;
  /** Flat name, value, name, value …: undici takes them as they are. */
  headers: string[];
  body: string;
}

/**
 * What came of posting `request`; undefined when the dispatcher stopping
 * cut it short (`options.stopped`): nothing to record. While it runs, its
 * controller is in `options.inFlight`, which stop() aborts all at once
 * (rather than each attempt listening for the stop).
 */
export async function sendAttempt(
  request: AttemptRequest,
  options: { timeoutMs: number; now: () => Date; inFlight?: Set<AbortController>; stopped?: () => boolean },
): Promise<AttemptOutcome | undefined> {
  const at = options.now();
  const started = performance.now();
  // One controller and timer per attempt (cheaper than AbortSignal.timeout and AbortSignal.any at thousands per second).
  const controller = new AbortController();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    controller.abort();
  }, options.timeoutMs);
  options.inFlight?.add(controller);
  const signal = controller.signal;
  const done = (fields: Omit<AttemptOutcome, 'at' | 'durationMs'>): AttemptOutcome => ({
    at,
    durationMs: Math.round(performance.now() - started),
    ...fields,
  });
  try {
    const answer = await request.dispatcher.request({
      path: request.path,
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal,
    });
    const statusCode = answer.statusCode;
    if (statusCode >= 200 && statusCode < 300) {
      // Nothing of a success is kept: the answer is dropped as it arrives (up to undici's dump limit; past it
      // the connection closes), with no stream iteration, and the connection is reused.
      await answer.body.dump().catch(() => {});
      return done({ statusCode });
    }
    const prefix = await readPrefix(answer.body, ANSWER_PREFIX_BYTES);
    const retryAfter = retryAfterMs(answer.headers['retry-after'], options.now());
    const error =
      statusCode >= 300 && statusCode < 400
        ? `redirect not followed (${statusCode}${answer.headers.location ? ` to ${String(answer.headers.location)}` : ''})`
        : `answered ${statusCode}${prefix === '' ? '' : `: ${prefix}`}`;
    return done({ statusCode, error, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) });
  } catch (error) {
    if (options.stopped?.()) return undefined;
    if (late) return done({ error: `no complete answer within ${options.timeoutMs / 1000} s` });
    return done({ error: describe(error) });
  } finally {
    clearTimeout(timer);
    options.inFlight?.delete(controller);
  }
}

/** The first `limit` bytes of a body as text (what arrived, if it breaks off); the rest is not read (the body is destroyed, closing its connection). */
async function readPrefix(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let length = 0;
  try {
    // Leaving the loop early destroys the body: the rest is dropped with its connection, never buffered.
    for await (const chunk of body as AsyncIterable<Buffer>) {
      parts.push(chunk);
      length += chunk.length;
      if (length >= limit) break;
    }
  } catch {
    // The status line decided the outcome; a broken rest of the answer changes nothing.
  }
  return Buffer.concat(parts).subarray(0, limit).toString('utf8');
}

/** A short reason for a failed request: the error's message and, for a socket error, its code. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  if (code === 'ORCA_WEBHOOK_FORBIDDEN_ADDRESS') return error.message;
  if (code === 'UND_ERR_SOCKET') return `connection closed by the receiver (${error.message}${cause})`;
  return `${error.message}${cause}${code && !error.message.includes(code) ? ` (${code})` : ''}`;
}
