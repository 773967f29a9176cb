// Every failure as problem+json. Engine and store errors map to the status
// DESIGN §5 gives them; fastify's own (body too large, bad JSON, wrong media
// type) keep their status with a clear detail; anything unexpected is a 500
// without internals, logged for the operator.
import type { FastifyError, FastifyInstance } from 'fastify';
import { EngineError } from '../../engine/partition/index.ts';
import { StoreUnavailableError } from '../../engine/store/index.ts';
import { ApiError, problemOf, type ProblemCode } from '../problem.ts';

const ENGINE_CODES: Record<EngineError['code'], ProblemCode> = {
  NOT_FOUND: 'NOT_FOUND',
  INVALID_STATE: 'CONFLICT',
  INVALID_ARGUMENT: 'INVALID_INPUT',
  UNAVAILABLE: 'UNAVAILABLE',
  BACKPRESSURE: 'UNAVAILABLE',
  TIMEOUT: 'UNAVAILABLE',
};

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) {
    const problems = (error as EngineError & { problems?: unknown }).problems;
    return new ApiError(ENGINE_CODES[error.code], error.message, {
      ...(problems ? { problems } : {}),
      ...(error.retryable ? { retryAfterSeconds: 1 } : {}),
    });
  }
  if (error instanceof StoreUnavailableError) return new ApiError('UNAVAILABLE', 'The database is unavailable; retry shortly.', { retryAfterSeconds: 1 });
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than the server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type '${fastifyError.message.split("'")[1] ?? ''}' is not accepted here.`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_INPUT', 'The request body is not valid JSON.', { errors: [{ field: 'body', message: 'not valid JSON' }] });
  }
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    if (fastifyError.statusCode === 413) return new ApiError('PAYLOAD_TOO_LARGE', fastifyError.message);
    if (fastifyError.statusCode === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE', fastifyError.message);
    return new ApiError('INVALID_INPUT', fastifyError.message);
  }
  return new ApiError('INTERNAL', 'Something went wrong on our side; it has been logged.');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error');
    if (apiError.extra.retryAfterSeconds !== undefined) reply.header('Retry-After', String(apiError.extra.retryAfterSeconds));
    reply.code(apiError.status).type('application/problem+json').send(problemOf(apiError, request.url.split('?')[0]));
  });
  app.setNotFoundHandler((request, reply) => {
    const apiError = new ApiError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`);
    reply.code(404).type('application/problem+json').send(problemOf(apiError, request.url.split('?')[0]));
  });
}
