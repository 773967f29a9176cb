// Declaring a route once: its zod schemas validate the request and feed the
// OpenAPI document served at /api/v1/openapi.json, so the document cannot
// drift from what the server accepts (DESIGN §5).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { EngineError } from '../../engine/index.ts';
import type { AuthKind } from '../plugins/auth.ts';
import { idempotencyKeyOf, idempotencyOf, keyedTimeout, type Idempotency } from '../services/idempotency.ts';
import { parseInput } from '../validation.ts';

export type Auth = AuthKind;

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined, P extends z.ZodType | undefined> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify path syntax: `/api/v1/jobs/:jobKey/complete`. */
  path: string;
  summary: string;
  tags: string[];
  auth: Auth;
  body?: B;
  query?: Q;
  params?: P;
  /** Success status and response schema. */
  response: { status: number; schema?: z.ZodType; description?: string; contentType?: string };
  /** Other documented statuses (problem+json), e.g. [400, 401, 404]. */
  errors?: number[];
  /** An opt-in capability beyond SPEC.md (DESIGN §6): tagged `extension` in the document. */
  extension?: boolean;
  /** Bodies other than JSON (raw XML, multipart); the handler reads request.body itself. */
  rawBody?: { contentTypes: string[]; description: string };
  /** Credits this route charges (documented; the handler charges). */
  credits?: number;
  /**
   * Takes the optional Idempotency-Key header (an extension, documented with
   * the 409 it may answer): a malformed key is a 400 before anything else,
   * and the handler gets `idempotency` to hand the engine.
   */
  idempotent?: boolean;
}

export interface Parsed<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  /** The request's Idempotency-Key, on idempotent routes that got one. */
  idempotency?: Idempotency;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type Handler<B, Q, P> = (input: Parsed<B, Q, P>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Every route declared so far, for the OpenAPI document. */
export const routes: RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>[] = [];

export function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, P extends z.ZodType | undefined = undefined>(
  app: FastifyInstance,
  spec: RouteSpec<B, Q, P>,
  handler: Handler<Out<B>, Out<Q>, Out<P>>,
): void {
  if (!routes.some((r) => r.method === spec.method && r.path === spec.path))
    routes.push(spec as RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>);
  app.route({
    method: spec.method,
    url: spec.path,
    config: { auth: spec.auth },
    handler: async (request, reply) => {
      const key = spec.idempotent ? idempotencyKeyOf(request) : undefined;
      // Query and path strings are held to the limits even where the route declares none.
      const input: Parsed<Out<B>, Out<Q>, Out<P>> = {
        body: (spec.body ? parseInput(spec.body, request.body ?? {}, 'body') : undefined) as Out<B>,
        query: parseInput(spec.query, request.query ?? {}, 'query') as Out<Q>,
        params: parseInput(spec.params, request.params ?? {}, 'params') as Out<P>,
      };
      if (key !== undefined) input.idempotency = idempotencyOf(key, spec.method, spec.path, input);
      let result: unknown;
      try {
        result = await handler(input, request, reply);
      } catch (err) {
        // With a key, retrying is safe: the 503 says so (handlers with more to say answer it themselves).
        if (key !== undefined && err instanceof EngineError && err.code === 'TIMEOUT') throw keyedTimeout('The change may still be applied.');
        throw err;
      }
      if (reply.sent) return reply;
      reply.code(spec.response.status);
      if (spec.response.contentType) reply.type(spec.response.contentType);
      return result;
    },
  });
}
