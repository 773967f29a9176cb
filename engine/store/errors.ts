// The store's error types, and the translation of driver failures into them.
// Callers must be able to tell "the database is not there, try again" (a 503
// with Retry-After, or a leader backing off) from "this leader was fenced"
// (drop the partition) from a bug, without knowing which driver ran the query.

/** The database cannot be reached or dropped the connection; the same call may succeed later. */
export class StoreUnavailableError extends Error {
  readonly retryable = true;
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A batch was committed with an epoch that is no longer the partition's: another leader took over. */
export class StaleEpochError extends Error {
  readonly retryable = false;
  override readonly name = 'StaleEpochError';
  constructor(
    readonly partition: number,
    readonly epoch: number,
    readonly currentEpoch: number | null,
  ) {
    super(`partition ${partition}: epoch ${epoch} is stale (current ${currentEpoch ?? 'none'}); another leader owns it`);
  }
}

/**
 * Postgres refused what a batch carries — a value it cannot store (a NUL,
 * an invalid escape, a document too deep or too large), a constraint, a
 * refusal of the statement's own (tenancy): the same batch will fail the
 * same way however often it is sent. The partition leader isolates the
 * command behind it instead of retrying (partition/leader/isolation.ts).
 */
export class BatchRejectedError extends Error {
  readonly retryable = false;
  override readonly name = 'BatchRejectedError';
  constructor(
    message: string,
    /** The SQLSTATE, when Postgres gave one. */
    readonly sqlState?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// SQLSTATE classes that say the statement's content is at fault, not the
// connection or the moment: data exceptions (22: untranslatable character,
// invalid JSON escape, value out of range), integrity constraints (23),
// program limits (54: too deep, too large), and the statement's own
// mistakes (42). Retrying sends the same content and fails the same way.
const CONTENT_CLASSES = new Set(['22', '23', '54', '42']);

/** The SQLSTATE of `error` or of an error in its cause chain. */
export function sqlStateOf(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause === current ? undefined : current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** `error` as a BatchRejectedError when Postgres refused the content; undefined for anything else. */
export function asRejection(error: unknown): BatchRejectedError | undefined {
  if (error instanceof BatchRejectedError) return error;
  if (isUnavailable(error)) return undefined;
  const state = sqlStateOf(error);
  if (state === undefined || !CONTENT_CLASSES.has(state.slice(0, 2))) return undefined;
  return new BatchRejectedError(rootMessage(error), state, { cause: error });
}

/** A list cursor that this store did not hand out. */
export class InvalidCursorError extends Error {
  readonly retryable = false;
  override readonly name = 'InvalidCursorError';
  constructor() {
    super('invalid cursor');
  }
}

// Node socket errors that mean the server is unreachable or went away.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

// SQLSTATEs for "try again later": connection exceptions (class 08),
// admin/crash shutdown, cannot connect now, too many connections, and a
// statement cancelled by statement_timeout.
const RETRYABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

// pg raises these as plain Errors without a code.
const NETWORK_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
];

/** True when `error` means the database is unreachable rather than the query being wrong. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || RETRYABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true;
  if (NETWORK_MESSAGES.some((m) => error.message.includes(m))) return true;
  // drizzle wraps driver errors in DrizzleQueryError with the original as cause.
  return error.cause !== undefined && error.cause !== error && isUnavailable(error.cause);
}

/** Driver failures that mean "unreachable" become StoreUnavailableError; anything else passes through. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || error instanceof StaleEpochError || error instanceof BatchRejectedError) return error;
  if (isUnavailable(error)) {
    return new StoreUnavailableError(`database unavailable: ${rootMessage(error)}`, { cause: error });
  }
  return error;
}

// The innermost cause says what went wrong; drizzle's wrapper repeats the SQL
// and its parameters, which may hold instance variables and must not be logged.
export function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error && current.cause !== current) current = current.cause;
  if (current instanceof AggregateError && current.errors[0] instanceof Error) current = current.errors[0];
  if (!(current instanceof Error)) return String(current);
  const code = (current as { code?: unknown }).code;
  const message = current.message.split('\n')[0] || 'connection failed';
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/** Runs `fn`, translating driver failures (see toStoreError). */
export async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toStoreError(error);
  }
}

/** Wraps every method of a repository with guard(). */
export function guarded<T extends Record<string, (...args: never[]) => Promise<unknown>>>(methods: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(methods)) {
    out[name] = (...args: never[]) => guard(() => method(...args));
  }
  return out as T;
}
