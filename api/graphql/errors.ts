// Failures inside GraphQL come back as GraphQL errors, never as a 500 or a
// stack trace: each carries `extensions.code` with the same code a REST
// problem would have (NOT_FOUND, CONFLICT, INVALID_INPUT, UNAVAILABLE …),
// plus `status`, the HTTP status the REST route would have answered, so a
// client handles both interfaces with one table.
import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import mercurius from 'mercurius';
import type { z } from 'zod';
import { InvalidCursorError } from '../../engine/index.ts';
import { toApiError } from '../plugins/errors.ts';
import { ApiError } from '../problem.ts';
import { inputErrors } from '../validation.ts';

export function toGraphqlError(error: unknown, log: FastifyBaseLogger): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const apiError =
    error instanceof InvalidCursorError
      ? new ApiError('INVALID_INPUT', 'The cursor was not handed out by this list; start again without one.', {
          errors: [{ field: 'cursor', message: 'not a cursor of this list' }],
        })
      : toApiError(error);
  if (apiError.code === 'INTERNAL') log.error({ err: error }, 'unhandled error in a GraphQL resolver');
  const { retryAfterSeconds, ...extra } = apiError.extra;
  return new GraphQLError(apiError.detail, {
    extensions: {
      code: apiError.code,
      status: apiError.status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      ...extra,
    },
  });
}

/**
 * Validates resolver arguments with zod and the limits of engine/limits.ts
 * (a string literal in the document can spell a NUL as \u0000): a failure is
 * INVALID_INPUT naming each argument.
 */
export function parseArgs<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const { errors, data } = inputErrors(schema, args, '');
  if (errors.length === 0) return data as z.output<S>;
  throw new ApiError('INVALID_INPUT', `Invalid arguments: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}.`, { errors });
}

/**
 * Mercurius's error formatter, making sure every error has a code: resolver
 * failures carry theirs already; an error without data is the request's
 * fault (a variable of the wrong type, say); one beside data without a code
 * is a bug in the schema or a resolver. Always 200: GraphQL over HTTP with
 * application/json reports errors in the body.
 */
export function formatExecutionErrors(execution: ExecutionResult & Required<Pick<ExecutionResult, 'errors'>>, context: mercurius.MercuriusContext) {
  const { response } = mercurius.defaultErrorFormatter(execution, context);
  const errors = (response.errors ?? []).map((error: GraphQLFormattedError) => {
    if (typeof error.extensions?.code === 'string') return error;
    const [code, status] = execution.data ? ['INTERNAL', 500] : ['INVALID_INPUT', 400];
    if (code === 'INTERNAL') context.reply.log.error({ graphqlError: error.message, path: error.path }, 'GraphQL error without a code');
    return { ...error, extensions: { ...error.extensions, code, status } };
  });
  return { statusCode: 200, response: { data: response.data ?? null, errors } };
}
