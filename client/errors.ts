// Errors the client library throws. Every failure the server reports as RFC
// 9457 problem details becomes an OrcaError carrying its code; a request that
// never got an answer (connection refused, reset, timeout) is an OrcaError
// with status 0 and code TRANSPORT, so callers handle one type.
import type { HttpResponse } from './http.ts';

export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  code?: string;
  errors?: { field: string; message: string }[];
  [key: string]: unknown;
}

/** Statuses after which repeating the same request may succeed. */
const RETRYABLE_STATUSES = new Set([408, 429, 502, 503, 504]);

export class OrcaError extends Error {
  override readonly name = 'OrcaError';
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The problem's machine-readable code (INVALID_INPUT, NOT_FOUND …), or TRANSPORT. */
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  /** The first failing field of invalid input, e.g. `body.variables`. */
  readonly field?: string;
  /** Every failing field of invalid input. */
  readonly errors: { field: string; message: string }[];
  /** Whether the same request may succeed later (429, 503, no answer …). */
  readonly retryable: boolean;
  /** From Retry-After, when the server sent one. */
  readonly retryAfterMs?: number;
  /** The problem body as the server sent it. */
  readonly problem: ProblemDetails;

  constructor(init: {
    status: number;
    code: string;
    title: string;
    detail: string;
    errors?: { field: string; message: string }[];
    retryAfterMs?: number;
    problem?: ProblemDetails;
    cause?: unknown;
    /** Default: by the status (no answer, 408, 429, 502, 503, 504). */
    retryable?: boolean;
  }) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.field = this.errors[0]?.field;
    this.retryable = init.retryable ?? (init.status === 0 || RETRYABLE_STATUSES.has(init.status));
    this.retryAfterMs = init.retryAfterMs;
    this.problem = init.problem ?? {};
  }

  /** An error from an answer that is not a success: its problem+json body, or whatever text it had. */
  static fromResponse(response: HttpResponse, now: number): OrcaError {
    const body = parseJson(response.text);
    const problem: ProblemDetails = body !== null && typeof body === 'object' ? (body as ProblemDetails) : {};
    const text = response.text.trim().slice(0, 500);
    return new OrcaError({
      status: response.status,
      code: typeof problem.code === 'string' ? problem.code : `HTTP_${response.status}`,
      title: typeof problem.title === 'string' ? problem.title : response.statusText || `HTTP ${response.status}`,
      detail: typeof problem.detail === 'string' ? problem.detail : text || `${response.status} ${response.statusText}`.trim(),
      errors: Array.isArray(problem.errors) ? problem.errors : undefined,
      retryAfterMs: retryAfterMs(response.header('retry-after') ?? null, now),
      problem,
    });
  }

  static transport(method: string, url: string, cause: unknown): OrcaError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new OrcaError({
      status: 0,
      code: 'TRANSPORT',
      title: 'No answer',
      detail: `${method} ${url}: ${reason}${causeCode(cause)}`,
      cause,
    });
  }
}

/** A call on a client after its close(): nothing was sent, and repeating it cannot help. */
export function clientClosed(method: string, url: string): OrcaError {
  return new OrcaError({
    status: 0,
    code: 'CLIENT_CLOSED',
    title: 'Client closed',
    detail: `${method} ${url}: the client was closed; nothing was sent.`,
    retryable: false,
  });
}

/** The JSON in `text`, or undefined when there is none. */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function causeCode(error: unknown): string {
  const inner = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof inner?.code === 'string' ? ` (${inner.code})` : '';
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds from `now`. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
