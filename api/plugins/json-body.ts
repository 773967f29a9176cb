// JSON request bodies: fastify's own parser (with its __proto__ and
// constructor poisoning checks), behind a scan of the raw text for nesting
// deeper than any request may have. JSON.parse itself copes with a body
// nested 100,000 deep, but whatever reads the result recursively afterwards
// (validation, JSON.stringify, the store) overflows its stack on it; the scan
// is one linear pass over text that is read anyway, and answers 400 naming
// the field before anything is built.
import type { FastifyInstance } from 'fastify';
import { jsonDepthProblem, LIMITS } from '../../engine/index.ts';
import { ApiError } from '../problem.ts';
import { fieldName, MAX_REQUEST_DEPTH } from '../validation.ts';

export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const problem = jsonDepthProblem(text, MAX_REQUEST_DEPTH);
    if (problem === undefined) return parse(request, text, done);
    const field = fieldName('body', problem.path);
    const message = `is nested too deeply: a value may nest objects and arrays at most ${LIMITS.maxDepth} levels`;
    done(new ApiError('INVALID_INPUT', `The request body is invalid: ${field}: ${message}.`, { errors: [{ field, message }] }), undefined);
  });
}
