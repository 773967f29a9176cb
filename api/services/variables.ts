// Process variables at the HTTP boundary: a JSON object of name → value
// (SPEC.md), never an array or a scalar, and within the limits of
// engine/limits.ts (names and strings Postgres can store, nesting, count and
// size per request). A variable past a limit is named in the error as
// `body.variables.a.b[1]`, so the client sees which one.
import { z } from 'zod';
import { LIMITS, variablesProblem } from '../../engine/index.ts';

export const variablesSchema = z
  .record(z.string(), z.unknown())
  .superRefine((variables, ctx) => {
    const problem = variablesProblem(variables);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path === '' ? [] : [problem.path] });
  })
  .describe(
    `Variables: a JSON object of name to value. At most ${LIMITS.maxVariablesPerRequest} variables and ${LIMITS.maxVariablesBytesPerRequest} bytes as JSON; ` +
      `values nest objects and arrays at most ${LIMITS.maxDepth} levels; no string or name may contain NUL (\\u0000) or a lone UTF-16 surrogate.`,
  );
