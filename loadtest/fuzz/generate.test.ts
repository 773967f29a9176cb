// The fuzzer's generators without a server: over a small OpenAPI document
// shaped like Orca's (JSON, XML and multipart bodies, path and query
// parameters, GraphQL, open and authenticated routes) every operation gets
// requests and every mutation kind is drawn; each kind makes what it says
// (NUL and lone surrogates in bodies, paths and queries, megabyte strings,
// nesting 100,000 deep, bodies over 10 MiB, invalid UTF-8, broken
// percent-encoding …); a seed and an index give the same bytes twice; and
// answers are judged as the runner judges them.
import { describe, expect, it } from 'vitest';
import { approvalDmn, serviceProcess } from '../../test/api/workflow-support.ts';
import { newPools, percentEncode, type FuzzContext, type FuzzRequest } from './generate.ts';
import { MUTATION_KINDS, mutationsFor, requestAt } from './mutations.ts';
import { operationsOf, type Operation } from './openapi.ts';
import { judge } from './runner.ts';

const auth = { security: [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }] };
const json = (schema: object, required = true) => ({ requestBody: { required, content: { 'application/json': { schema } } } });
const variables = { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} };
const page = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  { name: 'cursor', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 512 } },
];

const DOCUMENT = {
  openapi: '3.1.0',
  paths: {
    '/healthz': { get: { operationId: 'getHealthz' } },
    '/api/signup': {
      post: { operationId: 'postSignup', ...json({ type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] }) },
    },
    '/api/keys/rotate': { post: { operationId: 'postKeysRotate', ...auth } },
    '/api/v1/process-instances': {
      get: {
        operationId: 'getProcessInstances',
        ...auth,
        parameters: [{ name: 'filter.state', in: 'query', schema: { type: 'string', enum: ['ACTIVE', 'INCIDENT'] } }, ...page],
      },
      post: {
        operationId: 'postProcessInstances',
        ...auth,
        ...json({ type: 'object', properties: { bpmnProcessId: { type: 'string', minLength: 1, maxLength: 255 }, variables }, required: ['bpmnProcessId'] }),
      },
    },
    '/api/v1/process-instances/{key}': {
      get: { operationId: 'getProcessInstancesByKey', ...auth, parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }] },
    },
    '/api/v1/jobs/{jobKey}/complete': {
      post: {
        operationId: 'postJobsByJobKeyComplete',
        ...auth,
        parameters: [{ name: 'jobKey', in: 'path', required: true, schema: { type: 'string' } }],
        ...json({ type: 'object', properties: { variables } }, false),
      },
    },
    '/api/v1/process-definitions': {
      post: {
        operationId: 'postProcessDefinitions',
        ...auth,
        parameters: [{ name: 'resourceName', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 255 } }],
        requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } }, 'application/xml': { schema: { type: 'string' } } } },
      },
    },
    '/api/v1/graphql': {
      post: {
        operationId: 'postGraphql',
        ...auth,
        ...json({ type: 'object', properties: { query: { type: 'string', minLength: 1, maxLength: 100_000 } }, required: ['query'] }),
      },
    },
  },
};

const KEY = `orca_${'k'.repeat(43)}`;

function context(): FuzzContext {
  const pools = newPools();
  pools.ids.set('process-instances', ['36028797018963969']);
  pools.ids.set('jobs', ['36028797018963970']);
  pools.ids.set('tasks', ['36028797018963971']);
  pools.ids.set('process-definitions', ['order']);
  pools.jobTypes.push('ship');
  return { pools, credentials: { key: KEY }, models: { bpmn: [serviceProcess('order', 'ship')], dmn: [approvalDmn()] } };
}

const operations = operationsOf(DOCUMENT);
const byId = new Map(operations.map((op) => [op.id, op]));

function requests(kind: string | undefined, count: number, seed = 7): FuzzRequest[] {
  const ctx = context();
  const eligible = kind === undefined ? operations : operations.filter((op) => mutationsFor(op).some((m) => m.kind === kind));
  return Array.from({ length: count }, (_, i) => requestAt(seed, i, eligible, ctx, kind));
}

const text = (req: FuzzRequest) => req.body?.toString('latin1') ?? '';
const credentialOf = (req: FuzzRequest) =>
  req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '') ?? /[?&]api_key=([^&]*)/.exec(req.url)?.[1];
const isUtf8 = (bytes: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};
const decodes = (url: string) => {
  try {
    decodeURIComponent(url);
    return true;
  } catch {
    return false;
  }
};

describe('reading the OpenAPI document', () => {
  it('finds each operation with its parameters, body types and whether it authenticates', () => {
    expect(operations.map((op) => op.id).sort()).toEqual(
      [
        'getHealthz',
        'getProcessInstances',
        'getProcessInstancesByKey',
        'postGraphql',
        'postJobsByJobKeyComplete',
        'postKeysRotate',
        'postProcessDefinitions',
        'postProcessInstances',
        'postSignup',
      ].sort(),
    );
    const deploy = byId.get('postProcessDefinitions')!;
    expect([...deploy.body.keys()].sort()).toEqual(['application/xml', 'multipart/form-data']);
    expect(deploy.params).toEqual([{ name: 'resourceName', in: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }]);
    expect(byId.get('getHealthz')!.auth).toBe(false);
    expect(byId.get('postJobsByJobKeyComplete')!).toMatchObject({ method: 'POST', auth: true, bodyRequired: false });
  });
});

describe('drawing requests', () => {
  const all = requests(undefined, 1_500);

  it('sends every operation and draws every mutation kind', () => {
    expect(new Set(all.map((r) => r.operation))).toEqual(new Set(operations.map((op) => op.id)));
    expect(new Set(all.map((r) => r.mutation))).toEqual(new Set(MUTATION_KINDS));
  });

  it('gives the same bytes for the same seed and index, and others for another seed', () => {
    const again = requests(undefined, 50);
    expect(again).toEqual(all.slice(0, 50));
    expect(requests(undefined, 50, 8)).not.toEqual(again);
  });

  it('makes valid requests valid-shaped: ids mostly from the pools, parsable JSON, the credential', () => {
    const ids: string[] = [];
    for (const req of requests('valid', 300)) {
      const op = byId.get(req.operation)!;
      if (op.auth) expect(credentialOf(req)).toBe(KEY);
      if (req.headers['content-type'] === 'application/json') expect(() => JSON.parse(text(req))).not.toThrow();
      if (op.id === 'postProcessInstances') ids.push(JSON.parse(text(req)).bpmnProcessId);
      if (op.id === 'getProcessInstancesByKey') ids.push(/^\/api\/v1\/process-instances\/([^/?]+)/.exec(req.url)![1]);
      if (req.headers['content-type'] === 'application/xml') expect(req.url).toMatch(/resourceName=/);
    }
    const known = ids.filter((id) => id === 'order' || id === '36028797018963969');
    expect(known.length / ids.length).toBeGreaterThan(0.7);
  });
});

describe('each mutation kind makes what it names', () => {
  const some = (kind: string, count: number, test: (req: FuzzRequest) => boolean) => expect(requests(kind, count).some(test), kind).toBe(true);
  const every = (kind: string, count: number, test: (req: FuzzRequest) => boolean) => {
    for (const req of requests(kind, count)) expect(test(req), `${kind}: ${req.operation} ${req.url.slice(0, 100)}`).toBe(true);
  };

  it('control-chars: NUL and lone surrogates in bodies (names and values), paths and query strings', () => {
    const reqs = requests('control-chars', 400);
    expect(reqs.some((r) => text(r).includes('\\u0000'))).toBe(true);
    expect(reqs.some((r) => /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i.test(text(r)))).toBe(true);
    expect(reqs.some((r) => /"[^"]*\\u0000[^"]*":/.test(text(r)))).toBe(true);
    expect(reqs.some((r) => /^\/api\/v1\/[a-z-]+\/[^/?]*(%00|%ED%[AB])/.test(r.url))).toBe(true);
    expect(reqs.some((r) => /\?.*=[^&]*(%00|%ED%[AB])/.test(r.url))).toBe(true);
    expect(reqs.some((r) => r.operation === 'postGraphql' && /\\\\u0000|\\\\ud800/i.test(text(r)))).toBe(true);
  });

  it('huge-string, deep-nesting, oversized-body, long-path: a megabyte, 100,000 levels, over 10 MiB, 100,000 characters', () => {
    some('huge-string', 200, (r) => text(r).length >= 1_000_000 || r.url.length >= 1_000_000);
    some('deep-nesting', 100, (r) => text(r).includes('['.repeat(100_000)) || text(r).includes('{"a":'.repeat(100_000)));
    every('oversized-body', 10, (r) => r.body!.length > 10 * 1024 * 1024);
    every('long-path', 50, (r) => r.url.length >= 2_000);
    some('long-path', 50, (r) => r.url.length >= 100_000);
  });

  it('malformed-json, empty-body, wrong-content-type, invalid-utf8: bodies the parsers must refuse', () => {
    every('malformed-json', 100, (r) => {
      try {
        const value: unknown = JSON.parse(text(r));
        // Two are JSON by syntax but not by sense: duplicate names, and a number of 10,000 digits (Infinity).
        return value === null || typeof value !== 'object' || text(r) === '{"a":1,"a":2}' || text(r).startsWith('{"n":9999');
      } catch {
        return true;
      }
    });
    every('empty-body', 50, (r) => r.body!.length === 0);
    some('wrong-content-type', 100, (r) => r.headers['content-type'] === 'text/plain');
    every('invalid-utf8', 50, (r) => !isUtf8(r.body!));
  });

  it('broken-encoding: percent-encoding no decoder accepts; wrong-type, missing-field, extra-field: the shape broken', () => {
    every('broken-encoding', 100, (r) => !decodes(r.url));
    some('wrong-type', 200, (r) => r.operation === 'postProcessInstances' && typeof JSON.parse(text(r)).bpmnProcessId !== 'string');
    some('missing-field', 200, (r) => r.operation === 'postProcessInstances' && !('bpmnProcessId' in JSON.parse(text(r))));
    some('extra-field', 200, (r) => text(r).includes('"__proto__"'));
  });

  it('auth-missing and auth-bad: no credential, or one that is not the key', () => {
    every('auth-missing', 50, (r) => credentialOf(r) === undefined);
    every('auth-bad', 100, (r) => credentialOf(r) !== KEY);
    some('auth-bad', 100, (r) => /api_key=[^&]*(%00|%ED%A0%80)/.test(r.url));
  });

  it('graphql-literal, graphql-deep, graphql-huge: literals, deep selections, documents at the size limit', () => {
    every('graphql-literal', 50, (r) => typeof JSON.parse(text(r)).query === 'string');
    some('graphql-literal', 50, (r) => JSON.parse(text(r)).query === '1');
    some('graphql-deep', 50, (r) => JSON.parse(text(r)).query.includes('a{'.repeat(1_000)));
    some('graphql-huge', 50, (r) => JSON.parse(text(r)).query.length >= 99_000);
  });

  it('xml-control-chars, xml-malformed, xml-deep: models holding NUL or surrogate references, broken, or nested 100,000 deep', () => {
    some('xml-control-chars', 100, (r) => /&#0;|&#x0;/.test(text(r)));
    some('xml-control-chars', 100, (r) => /&#xD800;|&#55296;/.test(text(r)));
    some('xml-malformed', 100, (r) => text(r).includes('<!ENTITY l9'));
    some('xml-malformed', 100, (r) => r.headers['content-type'] === 'multipart/form-data; boundary=b');
    some('xml-deep', 50, (r) => text(r).includes('<x>'.repeat(100_000)));
  });
});

describe('percentEncode', () => {
  it('encodes lone surrogates as the bytes no decoder accepts, and everything else reversibly', () => {
    expect(percentEncode('\ud800')).toBe('%ED%A0%80');
    expect(percentEncode('a\u0000/😀')).toBe('a%00%2F%F0%9F%98%80');
    expect(decodeURIComponent(percentEncode('a b/é😀\u0000'))).toBe('a b/é😀\u0000');
  });
});

describe('judging answers', () => {
  const op = (id: string): Operation => byId.get(id)!;
  const problem = (status: number) => JSON.stringify({ type: 'https://orca.dev/problems/x', title: 'X', status, detail: 'd', instance: '/', code: 'X' });

  it('passes a complete problem, and finds 5xx, other error bodies and INTERNAL GraphQL errors', () => {
    expect(judge(op('getHealthz'), 400, 'application/problem+json; charset=utf-8', problem(400))).toBeUndefined();
    expect(judge(op('getHealthz'), 200, 'application/json', '{}')).toBeUndefined();
    expect(judge(op('getHealthz'), 500, 'application/problem+json', problem(500))).toBe('HTTP 500');
    expect(judge(op('getHealthz'), 503, 'application/problem+json', problem(503))).toBe('HTTP 503');
    expect(judge(op('getHealthz'), 400, 'application/json', '{"error":"Bad Request","statusCode":400}')).toBe('HTTP 400 not problem+json');
    expect(judge(op('getHealthz'), 400, 'application/json', '{"code":"FST_ERR_BAD_URL","statusCode":400}')).toBe('HTTP 400 not problem+json (FST_ERR_BAD_URL)');
    expect(judge(op('getHealthz'), 404, 'application/problem+json', problem(400))).toBe('HTTP 404 not problem+json (X)');
    expect(judge(op('getHealthz'), 431, '', '')).toBe('HTTP 431 not problem+json');
    expect(
      judge(
        op('postGraphql'),
        200,
        'application/json',
        JSON.stringify({ data: null, errors: [{ message: 'x', extensions: { code: 'INVALID_INPUT', status: 400 } }] }),
      ),
    ).toBeUndefined();
    expect(
      judge(
        op('postGraphql'),
        200,
        'application/json',
        JSON.stringify({ data: null, errors: [{ message: 'x', extensions: { code: 'INTERNAL', status: 500 } }] }),
      ),
    ).toBe('GraphQL error INTERNAL (500)');
  });
});
