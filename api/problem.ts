// Errors as RFC 9457 problem details (DESIGN §5): every failure a client
// sees is `application/problem+json` with {type, title, status, detail,
// instance, code}, plus the failing fields for invalid input. Never a stack
// trace, never a 500 for bad input.
export interface FieldError {
  /** Where: `body.variables`, `query.limit`, `params.jobKey`. */
  field: string;
  message: string;
}

export type ProblemCode =
  | 'INVALID_INPUT'
  | 'UNAUTHENTICATED'
  | 'OUT_OF_CREDITS'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'HEADERS_TOO_LARGE'
  | 'UNAVAILABLE'
  | 'INTERNAL';

const STATUS: Record<ProblemCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  OUT_OF_CREDITS: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

const TITLE: Record<ProblemCode, string> = {
  INVALID_INPUT: 'Invalid input',
  UNAUTHENTICATED: 'Missing or invalid credential',
  OUT_OF_CREDITS: 'Out of credits',
  FORBIDDEN: 'Not yours',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Wrong state',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency key reused',
  REQUEST_TIMEOUT: 'Request timeout',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  URI_TOO_LONG: 'URI too long',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  RATE_LIMITED: 'Too many requests',
  HEADERS_TOO_LARGE: 'Request headers too large',
  UNAVAILABLE: 'Temporarily unavailable',
  INTERNAL: 'Internal error',
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; retryAfterSeconds?: number; [key: string]: unknown } = {},
  ) {
    super(detail);
    this.status = STATUS[code];
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  errors?: FieldError[];
  [key: string]: unknown;
}

export function problemOf(error: ApiError, instance: string): Problem {
  const { retryAfterSeconds: _retry, ...extra } = error.extra;
  return {
    type: `https://orca.dev/problems/${error.code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLE[error.code],
    status: error.status,
    detail: error.detail,
    instance,
    code: error.code,
    ...extra,
  };
}
