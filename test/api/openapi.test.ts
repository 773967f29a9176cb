// The OpenAPI document over real HTTP: a real validator accepts it as
// OpenAPI 3.1, it lists every route the server declared (with `{param}`
// paths, the shared Problem schema, security on authenticated routes,
// credits and the extension tag), and it needs no API key.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument, openApiPath } from '../../api/openapi/document.ts';
import { routes } from '../../api/openapi/route.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let api: ApiFixture;
let document: Json;

beforeAll(async () => {
  api = await apiFixture();
  const res = await api.call('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.json;
}, 60_000);
afterAll(() => api?.close(), 30_000);

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.info.version).toBe('1.0.0');
    // Every $ref resolves inside the document.
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('contains every registered route, with {param} paths and their parameters', () => {
    expect(routes.length).toBeGreaterThan(5);
    for (const spec of routes) {
      const path = openApiPath(spec.path);
      const operation = document.paths[path]?.[spec.method.toLowerCase()];
      expect(operation, `${spec.method} ${spec.path}`).toBeDefined();
      expect(path).not.toContain(':');
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        expect(
          operation.parameters.some((p: Json) => p.in === 'path' && p.name === name && p.required === true),
          `${path} declares ${name}`,
        ).toBe(true);
      }
      expect(operation.responses[String(spec.response.status)]).toBeDefined();
      for (const status of spec.errors ?? []) {
        expect(operation.responses[String(status)].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
      }
      if (spec.auth !== 'none') {
        // An agent's or an app's token is its own scheme: the account key's three ways do not open those routes.
        const security = {
          apiKey: [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }],
          agentToken: [{ agentToken: [] }],
          appToken: [{ appToken: [] }],
          session: [{ session: [] }],
          adminToken: [{ adminToken: [] }],
        }[spec.auth];
        expect(operation.security).toEqual(security);
        expect(operation.responses['401']).toBeDefined();
        expect(operation.responses['429'].headers['Retry-After']).toBeDefined();
      } else {
        expect(operation.security).toEqual([]);
      }
      if (spec.credits) expect(operation['x-orca-credits']).toBe(spec.credits);
      else expect(operation['x-orca-credits']).toBeUndefined();
      if (spec.extension) expect(operation.tags).toContain('extension');
      else expect(operation.tags).not.toContain('extension');
    }
  });

  it('documents the operations, GraphQL and itself', () => {
    expect(document.paths['/healthz'].get).toBeDefined();
    expect(document.paths['/readyz'].get.responses['503']).toBeDefined();
    expect(document.paths['/api/v1/openapi.json'].get.security).toEqual([]);
    const graphql = document.paths['/api/v1/graphql'].post;
    expect(graphql.requestBody.content['application/json'].schema.required).toContain('query');
    expect(graphql['x-orca-credits']).toBeUndefined();
  });

  it("shares one Problem schema and declares the three ways to send a key, the agents' and apps' bearer tokens, sessions and the operator token", () => {
    expect(document.components.schemas.Problem.required).toEqual(['type', 'title', 'status', 'detail', 'instance', 'code']);
    expect(document.components.securitySchemes).toEqual({
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
      agentToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      appToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      session: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      adminToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
  });

  it('has unique operation ids', () => {
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('buildOpenApiDocument', () => {
  it('moves named and recursive schemas to components, with refs that resolve', async () => {
    const thing = z.object({ name: z.string() }).meta({ id: 'Thing' });
    interface Tree {
      label: string;
      children: Tree[];
    }
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ label: z.string(), children: z.array(tree) }));
    const built = buildOpenApiDocument({
      serverUrl: 'https://orca.example.com',
      routes: [
        {
          method: 'POST',
          path: '/api/v1/things/:thingId/trees',
          summary: 'Synthetic',
          tags: ['test'],
          auth: 'apiKey',
          body: z.object({ thing, tree }),
          response: { status: 201, schema: z.object({ thing, count: z.number().int() }) },
          extension: true,
          credits: 2,
        },
        {
          method: 'GET',
          path: '/api/v1/things/:thingId',
          summary: 'Synthetic',
          tags: ['test'],
          auth: 'none',
          params: z.object({ thingId: z.string().describe('Which thing.') }),
          response: { status: 200, schema: z.object({ thing, tree }) },
        },
      ],
    });
    const validator = new Validator();
    const result = await validator.validate(structuredClone(built));
    expect(result.errors ?? []).toEqual([]);
    expect(() => validator.resolveRefs()).not.toThrow();
    expect(JSON.stringify(built)).not.toContain('#/$defs/');
    const schemas = (built.components as Json).schemas as Json;
    expect(schemas.Thing).toMatchObject({ type: 'object', required: ['name'] });
    // The same named schema in two routes is one component.
    expect(Object.keys(schemas).filter((name) => name.startsWith('Thing'))).toEqual(['Thing']);
    const read = (built.paths as Json)['/api/v1/things/{thingId}'].get;
    expect(read.parameters).toEqual([{ name: 'thingId', in: 'path', required: true, description: 'Which thing.', schema: { type: 'string' } }]);
    expect(read.security).toEqual([]);
    const operation = (built.paths as Json)['/api/v1/things/{thingId}/trees'].post;
    expect(operation.parameters).toEqual([{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(operation.tags).toEqual(['test', 'extension']);
    expect(operation['x-orca-credits']).toBe(2);
    expect(Object.keys(operation.responses)).toEqual(['201', '400', '401', '402', '413', '429']);
    // Responses may grow: no additionalProperties: false, and no safe-integer noise.
    const response = operation.responses['201'].content['application/json'].schema;
    expect(response.additionalProperties).toBeUndefined();
    expect(response.properties.count).toEqual({ type: 'integer' });
  });
});

describe('extension fields', () => {
  it('tags the requestTimeout field of job activation as an extension', async () => {
    const api = await apiFixture();
    try {
      const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
      const body = doc.paths['/api/v1/jobs/activate'].post.requestBody.content['application/json'].schema;
      const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
      expect(schema.properties.requestTimeout['x-orca-extension']).toBe(true);
      expect(schema.properties.type['x-orca-extension']).toBeUndefined();
    } finally {
      await api.close();
    }
  }, 120_000);
});
