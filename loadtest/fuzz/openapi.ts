// Reads the served OpenAPI document into the list of operations the fuzzer
// drives: method, path template, path and query parameters with their
// schemas, the request body's media types and schema, and whether the route
// wants a credential. Only what the generators need; the document's own
// validity is test/api/openapi.test.ts's business.

/** A JSON Schema as the document has it (inline; the fuzzer does not follow $ref). */
export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  id: string;
  method: string;
  /** The template, e.g. `/api/v1/jobs/{jobKey}/complete`. */
  path: string;
  params: Parameter[];
  /** Media type → schema; empty when the operation takes no body. */
  body: Map<string, Schema>;
  bodyRequired: boolean;
  /** The route authenticates (any of the document's security schemes). */
  auth: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operationsOf(document: unknown): Operation[] {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths;
  if (paths === undefined || typeof paths !== 'object') throw new Error('the OpenAPI document has no paths');
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (op === undefined) continue;
      const params = ((op.parameters as Record<string, unknown>[] | undefined) ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ name: String(p.name), in: p.in as 'path' | 'query', required: p.required === true, schema: (p.schema as Schema | undefined) ?? {} }));
      const requestBody = op.requestBody as { required?: boolean; content?: Record<string, { schema?: Schema }> } | undefined;
      const body = new Map(Object.entries(requestBody?.content ?? {}).map(([type, media]) => [type, media.schema ?? {}] as const));
      const security = op.security as unknown[] | undefined;
      operations.push({
        id: typeof op.operationId === 'string' ? op.operationId : `${method}${path}`,
        method: method.toUpperCase(),
        path,
        params,
        body,
        bodyRequired: requestBody?.required === true,
        auth: Array.isArray(security) && security.length > 0,
      });
    }
  }
  return operations;
}

/** The resource a path is about: `/api/v1/tasks/{id}/claim` → `tasks`; `/api/token` → `token`. */
export function resourceOf(path: string): string {
  const parts = path
    .split('?')[0]
    .split('/')
    .filter((p) => p !== '');
  const at = parts[0] === 'api' && parts[1] === 'v1' ? 2 : parts[0] === 'api' ? 1 : 0;
  return parts[at] ?? '';
}
