// One delivery attempt over HTTP: POST the signed body, and tell what came
// of it. The whole attempt has a deadline (15 s by default) whatever the
// receiver does; redirects are never followed (a 3xx is a failure, so no
// redirect can lead a delivery to an address the guard would refuse); of
// the answer only a short prefix is read, for the log, and the rest is
// dropped with the connection, so a huge answer never lands in memory.
// Connections go through guarded-connector.ts (the SSRF guard), one pool
// per origin (origin-pools.ts). The pool is driven through its dispatch()
// with a handler that looks at the answer as it arrives: undici's
// request() would wrap each answer in a stream and a promise chain, about
// as much CPU again as the exchange itself, on every event delivered.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { retryAfterMs } from './retry-schedule.ts';

/** The longest part of an answer that is kept (in a failed attempt's error). */
export const ANSWER_PREFIX_BYTES = 1024;
/** How much of a success's answer is read and dropped before the connection is closed instead (undici's dump() limit). */
const SUCCESS_DRAIN_BYTES = 128 * 1024;

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

/** An attempt in flight, as stop() sees it. */
export interface Abortable {
  abort(): void;
}

/**
 * What came of posting `request`; undefined when the dispatcher stopping
 * cut it short (`options.stopped`): nothing to record. While it runs, it is
 * in `options.inFlight`, which stop() aborts all at once (rather than each
 * attempt listening for the stop).
 */
export function sendAttempt(
  request: AttemptRequest,
  options: { timeoutMs: number; now: () => Date; inFlight?: Set<Abortable>; stopped?: () => boolean },
): Promise<AttemptOutcome | undefined> {
  return new Promise((resolve) => {
    const attempt = new Attempt(resolve, options);
    request.dispatcher.dispatch({ path: request.path, method: 'POST', headers: request.headers, body: request.body }, attempt);
  });
}

/** Cuts an answer short on purpose: enough of it was read. */
class Enough extends Error {}

/** One attempt's dispatch handler: its deadline, the status, the answer's prefix, and the outcome once it settles. */
class Attempt implements Dispatcher.DispatchHandler, Abortable {
  private readonly at: Date;
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | undefined;
  private late = false;
  private settled = false;
  private statusCode = 0;
  private headers: IncomingHttpHeaders = {};
  private prefix: Buffer[] = [];
  private received = 0;

  constructor(
    private readonly resolve: (outcome: AttemptOutcome | undefined) => void,
    private readonly options: { timeoutMs: number; now: () => Date; inFlight?: Set<Abortable>; stopped?: () => boolean },
  ) {
    this.at = options.now();
    this.timer = setTimeout(() => {
      this.late = true;
      this.abort();
    }, options.timeoutMs);
    options.inFlight?.add(this);
  }

  /** The deadline passed or the dispatcher stops: the request ends, and settles as a failure (or as nothing, when stopping). */
  abort(): void {
    if (this.controller !== undefined) this.controller.abort(new Error('aborted'));
    else this.failed(new Error('aborted'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.prefix = [];
    this.received = 0;
    if (this.settled) controller.abort(new Error('aborted'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.succeeded()) {
      // Nothing of a success is kept; past the drain limit the connection goes rather than reading on.
      if (this.received > SUCCESS_DRAIN_BYTES) controller.abort(new Enough());
      return;
    }
    this.prefix.push(chunk);
    if (this.received >= ANSWER_PREFIX_BYTES) controller.abort(new Enough());
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // Enough was read: the status line decided the outcome, and the rest of the answer is dropped with its connection.
    if (error instanceof Enough) this.answered();
    else this.failed(error);
  }

  private succeeded(): boolean {
    return this.statusCode >= 200 && this.statusCode < 300;
  }

  private answered(): void {
    const { statusCode, headers } = this;
    if (this.succeeded()) return this.settle({ statusCode });
    const prefix = Buffer.concat(this.prefix).subarray(0, ANSWER_PREFIX_BYTES).toString('utf8');
    const retryAfter = retryAfterMs(headers['retry-after'], this.options.now());
    const error =
      statusCode >= 300 && statusCode < 400
        ? `redirect not followed (${statusCode}${headers.location ? ` to ${String(headers.location)}` : ''})`
        : `answered ${statusCode}${prefix === '' ? '' : `: ${prefix}`}`;
    this.settle({ statusCode, error, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) });
  }

  private failed(error: unknown): void {
    if (this.settled) return;
    if (this.options.stopped?.()) return this.settle(undefined);
    if (this.late) return this.settle({ error: `no complete answer within ${this.options.timeoutMs / 1000} s` });
    this.settle({ error: describe(error) });
  }

  private settle(fields: Omit<AttemptOutcome, 'at' | 'durationMs'> | undefined): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.options.inFlight?.delete(this);
    this.resolve(fields === undefined ? undefined : { at: this.at, durationMs: Math.round(performance.now() - this.started), ...fields });
  }
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
