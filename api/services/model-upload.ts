// Reading an uploaded model (SPEC.md, process-definitions and models): a
// multipart form whose file part is named `file`, or the raw XML with
// Content-Type application/xml and the file name in ?resourceName=. The
// route declares no body schema for these, so this is their validation,
// the limits of engine/limits.ts included (the XML and its name are stored
// as text, which cannot hold a NUL or a lone surrogate).
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { LIMITS, stringProblem } from '../../engine/index.ts';
import { ApiError } from '../problem.ts';

export interface UploadedModel {
  xml: string;
  resourceName: string;
  /** Where the XML came from, for naming it in errors: `body` or `body.file`. */
  field: 'body' | 'body.file';
}

export const resourceNameSchema = z
  .string()
  .min(1)
  .max(LIMITS.maxIdLength)
  .refine((name) => ![...name].some((c) => c.charCodeAt(0) < 0x20), 'must not contain control characters')
  .refine((name) => stringProblem(name) === undefined, 'must not contain a lone UTF-16 surrogate');

export const uploadQuery = z.object({
  resourceName: resourceNameSchema.optional().describe('File name of the model; required with a raw XML body.'),
});

function invalid(field: string, message: string): ApiError {
  return new ApiError('INVALID_INPUT', `${field}: ${message}`, { errors: [{ field, message }] });
}

export async function readUploadedModel(request: FastifyRequest, resourceName: string | undefined, defaultName: string): Promise<UploadedModel> {
  if (request.isMultipart()) return readMultipart(request, resourceName, defaultName);
  const contentType = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (contentType !== 'application/xml' && contentType !== 'text/xml') {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the model as multipart/form-data with a file part named 'file', or as a raw body with Content-Type application/xml and ?resourceName=; got '${contentType || 'no Content-Type'}'.`,
      { errors: [{ field: 'body', message: 'expected multipart/form-data or application/xml' }] },
    );
  }
  if (resourceName === undefined) throw invalid('query.resourceName', 'required with a raw XML body');
  const body = request.body;
  if (typeof body !== 'string' || body.trim() === '') throw invalid('body', 'the XML body is empty');
  return checked({ xml: body, resourceName, field: 'body' });
}

async function readMultipart(request: FastifyRequest, resourceName: string | undefined, defaultName: string): Promise<UploadedModel> {
  let xml: string;
  let filename: string;
  try {
    const part = await request.file();
    if (part === undefined) throw invalid('body.file', 'required: send the model as the multipart file part named `file`');
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw invalid('body.file', `required: the file part is named '${part.fieldname}', expected 'file'`);
    }
    // toBuffer fails with 413 when the part is larger than the server accepts.
    xml = (await part.toBuffer()).toString('utf8');
    filename = part.filename;
  } catch (err) {
    if (err instanceof ApiError || (err as { statusCode?: number }).statusCode === 413) throw err;
    // busboy's own complaints (no boundary, a cut-off part) are the client's malformed body.
    throw invalid('body', `not a readable multipart/form-data body (${err instanceof Error ? err.message : String(err)})`);
  }
  if (xml.trim() === '') throw invalid('body.file', 'the file is empty');
  const name = resourceName ?? (filename || defaultName);
  return checked({ xml, resourceName: resourceNameSchema.safeParse(name).success ? name : defaultName, field: 'body.file' });
}

function checked(upload: UploadedModel): UploadedModel {
  const problem = stringProblem(upload.xml);
  if (problem !== undefined) throw invalid(upload.field, problem);
  return upload;
}

/** A model the compiler refused: 400 with each problem (elementId, message), naming the field the XML came from. */
export function rejectedModel(problems: { elementId?: string; message: string }[], field: string): ApiError {
  const list = problems.length > 0 ? problems : [{ message: 'the model defines nothing to deploy' }];
  return new ApiError('INVALID_INPUT', `The model is invalid: ${list.map((p) => (p.elementId ? `[${p.elementId}] ` : '') + p.message).join(' ')}`, {
    problems: list.map((p) => ({ elementId: p.elementId ?? null, message: p.message })),
    errors: [{ field, message: list[0].message }],
  });
}
