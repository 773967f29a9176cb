// Input validation at the HTTP boundary: a route's zod schema, and under it
// the limits of engine/limits.ts on every string of the input, declared or
// not (no NUL, no lone surrogate: Postgres can store neither, and one such
// value would fail the batch of everyone else on its partition). A failure
// becomes a 400 problem listing each failing field and why, before the route
// has done or charged anything.
import type { z } from 'zod';
import { LIMITS, valueProblem } from '../engine/index.ts';
import { ApiError, type FieldError } from './problem.ts';

/**
 * How much deeper than a variable's value a request may nest: the body, the
 * `variables` object, and one more for GraphQL's operation variables around
 * them. The JSON parser refuses deeper text before building it
 * (plugins/json-body.ts); the variables schema holds each value to
 * LIMITS.maxDepth exactly.
 */
export const ENVELOPE_DEPTH = 3;

/** The most a request's JSON may nest as a whole. */
export const MAX_REQUEST_DEPTH = LIMITS.maxDepth + ENVELOPE_DEPTH;

/** `body` + `variables.a[1]` → `body.variables.a[1]`. */
export function fieldName(prefix: string, path: string): string {
  if (prefix === '') return path;
  if (path === '') return prefix;
  return path.startsWith('[') ? prefix + path : `${prefix}.${path}`;
}

/** The strings of `value` that break a limit (its first, if any), named under `prefix`. */
export function limitErrors(value: unknown, prefix: string): FieldError[] {
  const problem = valueProblem(value, MAX_REQUEST_DEPTH);
  return problem === undefined ? [] : [{ field: fieldName(prefix, problem.path) || 'arguments', message: problem.message }];
}

/** zod's issues and the limits' finding together, one error per field. */
export function inputErrors(schema: z.ZodType | undefined, value: unknown, prefix: string): { errors: FieldError[]; data?: unknown } {
  const errors: FieldError[] = [];
  let data: unknown;
  if (schema !== undefined) {
    const result = schema.safeParse(value);
    if (result.success) data = result.data;
    else
      for (const issue of result.error.issues)
        errors.push({ field: fieldName(prefix, issue.path.map(String).join('.')) || 'arguments', message: issue.message });
  }
  for (const error of limitErrors(value, prefix)) if (!errors.some((e) => e.field === error.field)) errors.push(error);
  return { errors, data };
}

/**
 * The input as the schema gives it back, or a 400 naming every failing
 * field. Without a schema only the limits are checked (a route that ignores
 * its query string still refuses a NUL in it) and the result is undefined.
 */
export function parseInput<S extends z.ZodType>(schema: S | undefined, value: unknown, where: 'body' | 'query' | 'params' | 'headers'): z.output<S> {
  const { errors, data } = inputErrors(schema, value, where);
  if (errors.length > 0) {
    throw new ApiError('INVALID_INPUT', `The request ${where} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}.`, { errors });
  }
  return data as z.output<S>;
}
