// POST /api/v1/graphql (SPEC.md Endpoints): GraphQL over HTTP with mercurius.
// Mercurius builds and runs the schema, but its own routes are off: the
// endpoint is declared through route() like every other, so the API-key
// auth hook, the rate limit and problem+json apply to it unchanged and it
// appears in the OpenAPI document. A well-formed request always answers 200
// with `{data, errors}` (GraphQL over HTTP, application/json), a document
// that does not parse included; only a body that is not a GraphQL request at
// all (or breaks the limits of engine/limits.ts) is a 400 problem.
import type { GraphQLError } from 'graphql';
import mercurius from 'mercurius';
import { z } from 'zod';
import { documentErrors, maxDocumentDepth } from '../graphql/document.ts';
import { formatExecutionErrors } from '../graphql/errors.ts';
import { resolvers, type GraphqlContext } from '../graphql/resolvers.ts';
import { typeDefs } from '../graphql/schema.ts';
import { route } from '../openapi/route.ts';
import type { RegisterRoutes } from './index.ts';

/** Deep enough for instance → incidents → processInstance → tasks; deeper nesting only multiplies queries. */
const QUERY_DEPTH_LIMIT = 8;
const MAX_DOCUMENT_DEPTH = maxDocumentDepth(QUERY_DEPTH_LIMIT);

const graphqlRequest = z.object({
  query: z.string().min(1).max(100_000).describe('The GraphQL document.'),
  variables: z.record(z.string(), z.unknown()).nullish().describe('Values of the operation variables.'),
  operationName: z.string().min(1).max(255).nullish().describe('Which operation of the document to run, when it has several.'),
});

const graphqlResponse = z.object({
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  errors: z
    .array(
      z.object({
        message: z.string(),
        path: z.array(z.union([z.string(), z.number()])).optional(),
        extensions: z.object({ code: z.string(), status: z.number().int().optional() }).passthrough().optional(),
      }),
    )
    .optional()
    .describe('GraphQL errors; extensions.code is the code a REST problem would carry (NOT_FOUND, CONFLICT, INVALID_INPUT …).'),
});

/** Mercurius throws parse and validation failures instead of returning them; they are the client's mistake. */
function requestErrors(error: unknown): GraphQLError[] | undefined {
  const code = (error as { code?: unknown }).code;
  const errors = (error as { errors?: unknown }).errors;
  if (code === 'MER_ERR_GQL_VALIDATION' && Array.isArray(errors)) return errors as GraphQLError[];
  return undefined;
}

/** A request GraphQL cannot run (syntax, validation, nesting): its errors, each INVALID_INPUT with the status REST would answer. */
function invalidRequest(errors: readonly GraphQLError[]) {
  return {
    data: null,
    errors: errors.map((e) => ({
      message: e.message,
      ...(e.locations ? { locations: e.locations } : {}),
      extensions: { ...e.extensions, code: 'INVALID_INPUT', status: 400 },
    })),
  };
}

export const register: RegisterRoutes = async (app, ctx) => {
  await app.register(mercurius, {
    schema: typeDefs,
    resolvers: resolvers as unknown as mercurius.IResolvers,
    routes: false,
    graphiql: false,
    queryDepth: QUERY_DEPTH_LIMIT,
    errorFormatter: formatExecutionErrors,
  });

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/graphql',
      summary:
        'GraphQL: queries tasks, task, processInstances, processInstance, incidents; mutation completeTask, which is free (no credit), unlike REST task completion.',
      tags: ['graphql'],
      auth: 'apiKey',
      body: graphqlRequest,
      response: { status: 200, schema: graphqlResponse, description: 'The GraphQL result; errors, if any, are in `errors` with extensions.code.' },
      errors: [400, 401],
    },
    async ({ body }, request, reply) => {
      // Only a document that parses reaches mercurius (graphql/document.ts says why).
      const unparsable = documentErrors(body.query, MAX_DOCUMENT_DEPTH);
      if (unparsable !== undefined) return invalidRequest(unparsable);
      const context: Omit<GraphqlContext, 'reply'> = { account: request.account, api: ctx };
      try {
        return await reply.graphql(body.query, context, body.variables ?? undefined, body.operationName ?? undefined);
      } catch (error) {
        const errors = requestErrors(error);
        if (errors === undefined) throw error;
        return invalidRequest(errors);
      }
    },
  );
};
