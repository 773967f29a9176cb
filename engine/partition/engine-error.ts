// Errors the engine API answers with. `code` maps to an HTTP status in the
// API layer (DESIGN §5); `retryable` tells a client it may try again.
// KEY_REUSED: a client's command key came with another request than the one it was first used for.
import { StoreUnavailableError } from '../store/errors.ts';

export type EngineErrorCode = 'NOT_FOUND' | 'INVALID_STATE' | 'INVALID_ARGUMENT' | 'UNAVAILABLE' | 'BACKPRESSURE' | 'TIMEOUT' | 'KEY_REUSED';

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly retryable = code === 'UNAVAILABLE' || code === 'BACKPRESSURE' || code === 'TIMEOUT',
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** The store being unreachable is the caller's retryable UNAVAILABLE, not an internal error. */
export async function unavailableAsEngineError<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw new EngineError('UNAVAILABLE', `The database is unavailable; retry shortly. (${err.message})`);
    throw err;
  }
}
