// The OpenAPI 3.1 document served at /api/v1/openapi.json (SPEC.md
// "Versioning", DESIGN §5), built from the `routes` registry: the same zod
// schemas that validate requests describe them here, so the document cannot
// drift from what the server accepts. Errors share one Problem schema;
// authenticated routes list the three ways to send the API key; credits a
// route charges and opt-in extensions (DESIGN §6) are marked, the
// Idempotency-Key header of the routes that take it included.
import { z } from 'zod';
import { EVENT_DATA, eventPayloadSchema } from '../webhooks/event-payloads.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY_LENGTH } from '../services/idempotency.ts';
import { routes, type RouteSpec } from './route.ts';

type Json = Record<string, unknown>;
type AnyRoute = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

export const API_VERSION = '1.0.0';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input; `errors` lists each failing field. Every string refuses NUL and lone UTF-16 surrogates; variables nest at most 64 levels; ids are at most 255 characters (the limits: docs/api.md).',
  401: 'Missing, unknown, retired or expired credential; `WWW-Authenticate` names the ways to send one.',
  402: 'Out of credits; nothing was done.',
  403: 'Not yours.',
  404: 'Not found (or not yours).',
  409: 'Wrong state for this action.',
  413: 'Request body too large.',
  415: 'Unsupported Content-Type.',
  429: 'Rate limited; retry after `Retry-After` seconds.',
  500: 'Internal error; it has been logged.',
  503: 'Temporarily unavailable (backpressure or a dependency down); retry after `Retry-After` seconds.',
};

const WWW_AUTHENTICATE = {
  description: 'The ways to authenticate (RFC 9110 §11.6.1), e.g. `Bearer realm="orca", ApiKey realm="orca", header="X-API-Key"`.',
  schema: { type: 'string' },
};

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 0 },
};

/** The Idempotency-Key header of the routes that take one (an extension, DESIGN §6). */
const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'Extension: a key of your choosing (e.g. a UUID) that makes a retry safe. The same key with the same request answers the first result, status and body, ' +
    'for at least the command retention (24 hours by default) and changes nothing again (nor charges again); the same key with a different request is a 409 `IDEMPOTENCY_KEY_REUSED`. ' +
    "Keys belong to the account: starts share one space, deploys another, each job (or task) has its own; a mailbox message's key belongs to the sending agent and lasts as long as the message. 1 to 255 printable ASCII characters (400 otherwise).",
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
  'x-orca-extension': true,
};

const KEY_REUSED_TEXT = ' Extension: or `IDEMPOTENCY_KEY_REUSED`, the Idempotency-Key was used before for a different request (nothing was done).';

const problemSchema: Json = {
  type: 'object',
  description: 'RFC 9457 problem details (application/problem+json).',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code'],
  properties: {
    type: { type: 'string', description: 'A URI naming the kind of problem.' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'What went wrong with this request, for a person.' },
    instance: { type: 'string', description: 'The request path.' },
    // Not an enum: a new code must not break clients generated from this document.
    code: {
      type: 'string',
      description: 'Machine-readable; the same codes appear in GraphQL errors as extensions.code.',
      examples: ['INVALID_INPUT', 'UNAUTHENTICATED', 'OUT_OF_CREDITS', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'UNAVAILABLE'],
    },
    errors: {
      type: 'array',
      description: 'For invalid input: each failing field and why.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string', examples: ['body.variables'] }, message: { type: 'string' } },
      },
    },
  },
  additionalProperties: true,
};

const securitySchemes: Json = {
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The account API key (or a short-lived token from POST /api/token).' },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The API key or a short-lived token as Authorization: Bearer. A 401 answers with WWW-Authenticate: Bearer realm="orca", ApiKey realm="orca", header="X-API-Key".',
  },
  apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'The API key as a query parameter (avoid: URLs end up in logs).' },
  agentToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An agent\'s token (orcaag_…, from the MCP tools orca.register or orca.rotate_token) as Authorization: Bearer; the agent mailbox\'s only credential. A 401 answers with WWW-Authenticate: Bearer realm="orca-agents".',
  },
  appToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A platform app\'s token (orcaap_…, from POST /api/v1/platform/register) as Authorization: Bearer; it works on the /api/v1/platform/app routes and nowhere else. A 401 answers with WWW-Authenticate: Bearer realm="orca-platform-apps".',
  },
  session: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A person\'s sign-in session (orcass_…, from POST /api/login/verify or the sign-in link) as Authorization: Bearer; it opens the dashboard, wallet and account-key routes and nothing else, and those routes take nothing else. A 401 answers with WWW-Authenticate: Bearer realm="orca-account".',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: "The operator's token (the server's ORCA_ADMIN_TOKEN) as Authorization: Bearer; 403 on every call while the server has none.",
  },
};

/** Alternatives, not a combination: any one of them authenticates. */
const API_KEY_SECURITY = [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }];

const SECURITY: Record<AnyRoute['auth'], Json[]> = {
  none: [],
  apiKey: API_KEY_SECURITY,
  agentToken: [{ agentToken: [] }],
  appToken: [{ appToken: [] }],
  session: [{ session: [] }],
  adminToken: [{ adminToken: [] }],
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  extension:
    'Opt-in capabilities beyond the documented service (a new route or a new optional field). Clients written against the documented behaviour never see them.',
};

/**
 * Drops what zod emits that only gets in a reader's way: the safe-integer
 * bounds of every `.int()`, and `additionalProperties: false` on responses —
 * a response may gain fields, and clients must not reject it when it does.
 */
function tidy(value: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(value)) return value.map((v) => tidy(v, io));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === 'minimum' || key === 'maximum') && Math.abs(inner as number) === Number.MAX_SAFE_INTEGER) continue;
    if (io === 'output' && key === 'additionalProperties' && inner === false) continue;
    out[key] = tidy(inner, io);
  }
  return out;
}

/**
 * Collects the `$defs` zod emits (named or recursive schemas) into
 * components/schemas: inside an OpenAPI document `#/$defs/…` would point at
 * the document's root, not at the schema that carried them.
 */
class SchemaCollector {
  readonly components: Record<string, Json> = { Problem: problemSchema };
  /** Each placed component as zod emitted it (refs not yet rewritten), to spot the same schema again. */
  readonly #raw = new Map<string, string>([['Problem', '']]);

  convert(schema: z.ZodType, io: 'input' | 'output', hint: string): Json {
    const converted = tidy(z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }), io) as Json;
    delete converted.$schema;
    const defs = (converted.$defs ?? {}) as Record<string, Json>;
    delete converted.$defs;
    const renames = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) renames.set(name, this.#place(name.startsWith('__') ? `${hint}${name.replace(/^_+/, '_')}` : name, def));
    if (renames.size === 0) return converted;
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const out: Json = {};
      for (const [key, inner] of Object.entries(value)) {
        const target = key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/') ? renames.get(inner.slice('#/$defs/'.length)) : undefined;
        out[key] = target !== undefined ? `#/components/schemas/${target}` : rewrite(inner);
      }
      return out;
    };
    for (const [name, target] of renames) this.components[target] = rewrite(defs[name]) as Json;
    return rewrite(converted) as Json;
  }

  /** A free component name for `def`: the same name when the same schema is already there. */
  #place(wanted: string, def: Json): string {
    const safe = wanted.replace(/[^A-Za-z0-9._-]/g, '_');
    const raw = JSON.stringify(def);
    for (let n = 1; ; n++) {
      const name = n === 1 ? safe : `${safe}_${n}`;
      const existing = this.#raw.get(name);
      if (existing === raw) return name;
      if (existing === undefined) {
        this.#raw.set(name, raw);
        return name;
      }
    }
  }
}

/** `/api/v1/jobs/:jobKey/complete` → `/api/v1/jobs/{jobKey}/complete`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
}

function operationId(spec: AnyRoute): string {
  const words = spec.path
    .replace(/^\/api(\/v1)?/, '')
    .split(/[^A-Za-z0-9:]+/)
    .filter(Boolean)
    .map((w) => (w.startsWith(':') ? `by ${w.slice(1)}` : w));
  const camel = [spec.method.toLowerCase(), ...words]
    .join(' ')
    .split(' ')
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');
  return camel || spec.method.toLowerCase();
}

function parameters(spec: AnyRoute, collector: SchemaCollector, hint: string): Json[] {
  const out: Json[] = [];
  const declared = new Set<string>();
  const add = (where: 'path' | 'query', schema: z.ZodType) => {
    const json = collector.convert(schema, 'input', `${hint}_${where}`);
    const properties = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      if (where === 'path') declared.add(name);
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  };
  if (spec.params) add('path', spec.params);
  if (spec.query) add('query', spec.query);
  if (spec.idempotent) out.push(IDEMPOTENCY_KEY_PARAMETER);
  // OpenAPI requires every templated segment to be declared.
  for (const name of pathParamNames(spec.path)) {
    if (!declared.has(name)) out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  return out;
}

function rawContentSchema(contentType: string): Json {
  if (contentType.startsWith('multipart/')) return { type: 'object', additionalProperties: true };
  if (contentType.startsWith('application/json')) return {};
  return { type: 'string' };
}

function requestBody(spec: AnyRoute, collector: SchemaCollector, hint: string): Json | undefined {
  const content: Json = {};
  let required = true;
  if (spec.body) {
    content['application/json'] = { schema: collector.convert(spec.body, 'input', `${hint}_body`) };
    // The route parses a missing body as `{}`, so a schema that accepts it makes the body optional.
    required = !spec.body.safeParse({}).success;
  }
  if (spec.rawBody) {
    for (const contentType of spec.rawBody.contentTypes) {
      if (!(contentType in content)) content[contentType] = { schema: rawContentSchema(contentType) };
    }
  }
  if (Object.keys(content).length === 0) return undefined;
  return { required, ...(spec.rawBody ? { description: spec.rawBody.description } : {}), content };
}

/** Statuses every route of its kind can answer, beside the ones it lists. */
function errorStatuses(spec: AnyRoute): number[] {
  const statuses = new Set(spec.errors ?? []);
  if (spec.body || spec.query || spec.params) statuses.add(400);
  if (spec.auth !== 'none') {
    statuses.add(401);
    statuses.add(429);
  }
  if (spec.credits) statuses.add(402);
  if (spec.idempotent) statuses.add(409);
  if (spec.body || spec.rawBody) statuses.add(413);
  return [...statuses].filter((s) => s >= 400).sort((a, b) => a - b);
}

function responses(spec: AnyRoute, collector: SchemaCollector, hint: string): Json {
  const { status, schema, description, contentType } = spec.response;
  const success: Json = { description: description ?? 'Success.' };
  if (schema) success.content = { [contentType ?? 'application/json']: { schema: collector.convert(schema, 'output', `${hint}_response`) } };
  else if (contentType) success.content = { [contentType]: { schema: rawContentSchema(contentType) } };
  const out: Json = { [String(status)]: success };
  for (const error of errorStatuses(spec)) {
    out[String(error)] = {
      description: (STATUS_TEXT[error] ?? 'Error.') + (error === 409 && spec.idempotent ? KEY_REUSED_TEXT : ''),
      ...(error === 429 || error === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
      ...(error === 401 ? { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } } : {}),
      content: { 'application/problem+json': { schema: PROBLEM_REF } },
    };
  }
  return out;
}

export interface DocumentOptions {
  /** Where the API is reached (PUBLIC_URL); relative to the document when absent. */
  serverUrl?: string;
  /** Defaults to every route declared so far. */
  routes?: readonly AnyRoute[];
}

export function buildOpenApiDocument(options: DocumentOptions = {}): Json {
  const collector = new SchemaCollector();
  const paths: Record<string, Record<string, Json>> = {};
  const tags = new Set<string>();
  const usedIds = new Set<string>();
  const declared = [...(options.routes ?? routes)].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const spec of declared) {
    let id = operationId(spec);
    for (let n = 2; usedIds.has(id); n++) id = `${operationId(spec)}${n}`;
    usedIds.add(id);
    const operationTags = [...new Set([...spec.tags, ...(spec.extension ? ['extension'] : [])])];
    for (const tag of operationTags) tags.add(tag);
    const body = requestBody(spec, collector, id);
    const operation: Json = {
      operationId: id,
      summary: spec.summary,
      tags: operationTags,
      parameters: parameters(spec, collector, id),
      ...(body ? { requestBody: body } : {}),
      responses: responses(spec, collector, id),
      security: SECURITY[spec.auth],
      ...(spec.credits ? { 'x-orca-credits': spec.credits } : {}),
      ...(spec.extension ? { 'x-orca-extension': true } : {}),
    };
    const path = openApiPath(spec.path);
    paths[path] ??= {};
    paths[path][spec.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Orca workflow API',
      version: API_VERSION,
      description:
        'BPMN 2.0 process orchestration over REST. Errors are RFC 9457 problem details (application/problem+json), router errors included. Lists take `limit` and `cursor` and answer `{items, nextCursor}`. `x-orca-credits` on an operation is what it charges. ' +
        'Limits on what a request may carry (docs/api.md): no string anywhere may contain NUL or a lone UTF-16 surrogate; the value of a variable nests at most 64 levels; at most 1,000 variables and 4 MiB of them per request; ids 1 to 255 characters; a path segment over 1,024 characters is a 414, a URL and headers over 16 KiB a 431.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [...tags].sort().map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths,
    webhooks: webhookEvents(collector),
    components: { schemas: collector.components, securitySchemes },
  };
}

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    description:
      "The event id: the same on every attempt and for every endpoint. Deduplicate on it. An endpoint with `batching` is sent JSON arrays of events instead, under a batch id here: deduplicate on each element's `id` (docs/webhooks.md).",
  },
  { name: 'webhook-timestamp', description: 'When this attempt was signed, Unix seconds.' },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per live signing secret (two during the 24 hours after a rotation).',
  },
];

/** The events an endpoint is sent (OpenAPI 3.1 `webhooks`), one POST each, signed the Standard Webhooks way (docs/webhooks.md). */
function webhookEvents(collector: SchemaCollector): Json {
  const events: Json = {};
  for (const [type, { when }] of Object.entries(EVENT_DATA)) {
    const name = `WebhookEvent_${type.replace(/\./g, '_')}`;
    events[type] = {
      post: {
        operationId: name,
        summary: `${when} POSTed to each enabled endpoint subscribed to \`${type}\`.`,
        tags: ['webhooks'],
        parameters: SIGNATURE_HEADERS.map((h) => ({ in: 'header', required: true, schema: { type: 'string' }, ...h })),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: collector.convert(eventPayloadSchema(type as keyof typeof EVENT_DATA), 'output', name) } },
        },
        responses: { '2XX': { description: 'Received. Anything else, or no answer within 15 s, is a failed attempt, retried.' } },
      },
    };
  }
  return events;
}
