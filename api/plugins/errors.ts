// Every failure as problem+json. Engine and store errors map to the status
// DESIGN §5 gives them; fastify's own (body too large, bad JSON, wrong media
// type, a path the router cannot read) keep their status with a clear
// detail; anything unexpected is a 500 without internals, logged for the
// operator. A 401 names the ways to authenticate in WWW-Authenticate
// (RFC 9110 §11.6.1).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EngineError, LIMITS, StoreUnavailableError } from '../../engine/index.ts';
import { ApiError, problemOf, type ProblemCode } from '../problem.ts';
import { keyReused } from '../services/idempotency.ts';
import { challengeFor } from './auth.ts';

/**
 * Longest path parameter the router reads. Above LIMITS.maxIdLength on
 * purpose: an id a little too long reaches its route and gets a 400 naming
 * the parameter; only a segment longer than this is the router's 414.
 */
export const MAX_PARAM_LENGTH = 1024;

const ENGINE_CODES: Record<EngineError['code'], ProblemCode> = {
  NOT_FOUND: 'NOT_FOUND',
  INVALID_STATE: 'CONFLICT',
  INVALID_ARGUMENT: 'INVALID_INPUT',
  UNAVAILABLE: 'UNAVAILABLE',
  BACKPRESSURE: 'UNAVAILABLE',
  TIMEOUT: 'UNAVAILABLE',
  KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
};

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) {
    // The engine's own words advise retrying with a command key: a request without an Idempotency-Key has none (keyed ones get their own 503, openapi/route.ts).
    if (error.code === 'TIMEOUT') {
      return new ApiError(
        'UNAVAILABLE',
        'No committed answer from the engine in time. The change may still be applied: check its effect before sending it again.',
        { retryAfterSeconds: 1 },
      );
    }
    // Only a request with an Idempotency-Key sends the engine a key with a fingerprint.
    if (error.code === 'KEY_REUSED') return keyReused();
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
    case 'FST_ERR_BAD_URL':
      return new ApiError('INVALID_INPUT', 'The request path is not valid percent-encoded UTF-8.', {
        errors: [{ field: 'path', message: 'not valid percent-encoded UTF-8' }],
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(
        'URI_TOO_LONG',
        `A path segment is longer than the ${MAX_PARAM_LENGTH} characters the server reads; ids are at most ${LIMITS.maxIdLength}.`,
        {
          errors: [{ field: 'path', message: `a segment longer than ${MAX_PARAM_LENGTH} characters` }],
        },
      );
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

function send(reply: FastifyReply, apiError: ApiError, url: string): FastifyReply {
  if (apiError.extra.retryAfterSeconds !== undefined) reply.header('Retry-After', String(apiError.extra.retryAfterSeconds));
  if (apiError.status === 401) reply.header('WWW-Authenticate', challengeFor(reply.request?.routeOptions?.config?.auth));
  return reply
    .code(apiError.status)
    .type('application/problem+json')
    .send(problemOf(apiError, url.split('?')[0]));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error');
    send(reply, apiError, request.url);
  });
  app.setNotFoundHandler((request, reply) => {
    send(reply, new ApiError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`), request.url);
  });
}

/** Fastify's `frameworkErrors`: what the router refuses before any route runs (bad percent-encoding, a path segment too long). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  send(reply, toApiError(error), request.url ?? '/');
}

const CLIENT_ERRORS: Record<string, [ProblemCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request line and headers are larger than the server reads (the URL is too long, or a header is).'],
};

/** Fastify's `clientErrorHandler`: HTTP the parser cannot read at all, answered on the socket as problem+json. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail] = CLIENT_ERRORS[error.code ?? ''] ?? ['INVALID_INPUT', 'The request is not well-formed HTTP.'];
  const apiError = new ApiError(code, detail);
  const body = JSON.stringify(problemOf(apiError, '/'));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
