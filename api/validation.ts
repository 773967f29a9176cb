// Input validation with zod at the HTTP boundary: a failure becomes a 400
// problem listing each failing field and why.
import type { z } from 'zod';
import { ApiError, type FieldError } from './problem.ts';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params' | 'headers'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    field: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new ApiError('INVALID_INPUT', `The request ${where} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}.`, { errors });
}
