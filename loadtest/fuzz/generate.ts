// Valid-shaped requests for an operation of the OpenAPI document, and the
// draft form the mutations work on. Values follow the parameter and body
// schemas; where a field names something that must exist to get past a 404
// (an instance key, a job key, a task id, a deployed process id, a job
// type), it comes from the pools the runner fills from the server's own
// answers. A draft keeps path segments and query pairs already
// percent-encoded, so a mutation can put anything there, even broken
// encoding; `serialize` turns it into the bytes that are sent.
import { validGraphql } from './graphql.ts';
import { resourceOf, type Operation, type Schema } from './openapi.ts';
import type { Rng } from './rng.ts';
import { poolOf, randomKey, VARIABLE_NAMES, variablesValue } from './values.ts';

/** JSON text put into a body as it is (a nesting 100,000 deep is built as text, not as objects). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | number | string | RawJson | JsonValue[] | { [name: string]: JsonValue };

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: JsonValue; contentType?: string }
  | { kind: 'xml'; text: string; contentType?: string }
  | { kind: 'multipart'; field: string; filename: string; content: string }
  | { kind: 'bytes'; bytes: Buffer; contentType?: string };

export type AuthPlace = 'header' | 'bearer' | 'query' | 'none';

export interface Draft {
  op: Operation;
  /** Path parameter → segment as sent (percent-encoded). */
  path: Map<string, string>;
  /** Appended to the path as it is (long paths). */
  pathSuffix: string;
  /** [name, value] as sent (percent-encoded). */
  query: [string, string][];
  body: Body;
  auth: { place: AuthPlace; credential: string };
}

/** What the server told us exists: ids by resource (`process-instances`, `jobs`, `tasks` …), job types, each list's cursors. */
export interface Pools {
  ids: Map<string, string[]>;
  jobTypes: string[];
  /** Resource → cursors its list handed out (a cursor of one list is refused by another). */
  cursors: Map<string, string[]>;
}

export interface FuzzContext {
  pools: Pools;
  /** The fuzzing account's key (rotations replace it) and a bearer token minted from it, once there is one. */
  credentials: { key: string; token?: string };
  models: { bpmn: string[]; dmn: string[] };
}

/** A request as it goes on the wire. */
export interface FuzzRequest {
  operation: string;
  mutation: string;
  method: string;
  /** Path and query string, as sent. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const POOL_SIZE = 200;

export function newPools(): Pools {
  return { ids: new Map(), jobTypes: [], cursors: new Map() };
}

/** Adds to a pool, keeping the newest POOL_SIZE. */
export function remember(list: string[], value: string): void {
  if (list.includes(value)) return;
  list.push(value);
  if (list.length > POOL_SIZE) list.shift();
}

const PEOPLE = ['alice', 'bob', 'carol'];

/** How often an operation is drawn: rotating the key makes every request in flight with the old one a 401, so less often. */
export function operationWeight(op: Operation): number {
  return op.path.endsWith('/keys/rotate') ? 0.25 : 1;
}

/** The pool a field or parameter of this name draws from, if any. */
function poolFor(name: string, resource: string): string | undefined {
  if (name === 'id') return resource;
  if (name === 'key' || name === 'processInstanceKey' || name === 'filter.processInstanceKey') return 'process-instances';
  if (name === 'jobKey') return 'jobs';
  if (name === 'bpmnProcessId' || name === 'filter.bpmnProcessId') return 'process-definitions';
  if (name === 'decisionId') return 'decisions';
  return undefined;
}

/** Fields whose schema alone would give values that never get past validation or a 404, or wait too long. */
function hinted(name: string, resource: string, rng: Rng, ctx: FuzzContext): JsonValue | undefined {
  const poolName = poolFor(name, resource);
  if (poolName !== undefined) {
    const pool = poolOf(ctx.pools, poolName);
    if (pool.length > 0 && rng.chance(0.85)) return rng.pick(pool);
    return /key$/i.test(name) || name === 'id' ? randomKey(rng) : `fuzz-${rng.word(6)}`;
  }
  switch (name) {
    case 'type':
      return ctx.pools.jobTypes.length > 0 ? rng.pick(ctx.pools.jobTypes) : 'fuzz-work';
    case 'variables':
      // The deployed decision reads `amount`; above 1000 it fails on purpose (two rules match a UNIQUE table).
      return resource === 'decisions' ? { ...variablesValue(rng), amount: rng.int(0, 1_200) } : variablesValue(rng);
    case 'email':
      return `fuzz-${rng.word(8)}@example.com`;
    case 'api_key':
      return ctx.credentials.key;
    case 'assignee':
    case 'filter.assignee':
      return rng.pick(PEOPLE);
    case 'retries':
      return rng.int(0, 3);
    case 'requestTimeout':
      // Long polling may wait up to a minute by request; the fuzzer's hang timeout must not fire on that.
      return rng.int(0, 200);
    case 'maxJobsToActivate':
      return rng.int(1, 5);
    case 'worker':
      return `fuzzer-${rng.int(1, 8)}`;
    case 'errorMessage':
      return `fuzzed failure ${rng.word(6)}`;
    case 'filter.variable':
      return `${rng.pick(VARIABLE_NAMES)}:${rng.chance(0.5) ? rng.word(3) : String(rng.int(0, 99))}`;
    case 'cursor': {
      const cursors = poolOf(ctx.pools, resource, 'cursors');
      return cursors.length > 0 && rng.chance(0.9) ? rng.pick(cursors) : rng.word(16);
    }
    case 'limit':
      return rng.chance(0.9) ? rng.int(1, 50) : rng.pick([1, 1000]);
    case 'version':
      return rng.int(1, 3);
    case 'resourceName':
      return resource === 'models' ? `fuzz-${rng.word(4)}.dmn` : `fuzz-${rng.word(4)}.bpmn`;
    case 'token':
      return `orcas_${rng.word(43)}`;
    case 'operationName':
      return null;
  }
  return undefined;
}

/** A value the schema accepts, drawn with a bias to small and boundary values. */
export function valueFor(schema: Schema, rng: Rng, name: string, resource: string, ctx: FuzzContext): JsonValue {
  const hint = hinted(name, resource, rng, ctx);
  if (hint !== undefined) return hint;
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum as JsonValue[]);
  if ('const' in schema) return schema.const as JsonValue;
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(anyOf)) {
    const nonNull = anyOf.filter((s) => s.type !== 'null');
    return valueFor(nonNull.length > 0 && rng.chance(0.85) ? rng.pick(nonNull) : rng.pick(anyOf), rng, name, resource, ctx);
  }
  let type = schema.type;
  if (Array.isArray(type)) type = rng.pick(type.filter((t) => t !== 'null').length > 0 && rng.chance(0.85) ? type.filter((t) => t !== 'null') : type);
  switch (type) {
    case 'string': {
      if (schema.format === 'email') return `fuzz-${rng.word(8)}@example.com`;
      const min = Number(schema.minLength ?? 0);
      const max = Math.min(Number(schema.maxLength ?? 16), Math.max(min, 16));
      return rng.word(rng.int(Math.max(min, 1), Math.max(max, 1)));
    }
    case 'integer':
    case 'number': {
      const min = Number(schema.minimum ?? 0);
      const max = Number(schema.maximum ?? min + 100);
      if (rng.chance(0.2)) return rng.pick([min, max]);
      return rng.int(min, Math.min(max, min + 10));
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: rng.int(0, 3) }, () => valueFor((schema.items as Schema | undefined) ?? {}, rng, '', resource, ctx));
    case 'object':
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      if (Object.keys(properties).length === 0 && schema.additionalProperties !== undefined) return variablesValue(rng);
      const out: Record<string, JsonValue> = {};
      for (const [field, fieldSchema] of Object.entries(properties)) {
        if (required.has(field) || rng.chance(0.5)) out[field] = valueFor(fieldSchema, rng, field, resource, ctx);
      }
      return out;
    }
  }
}

/** A request the operation should accept (given the ids exist): every required part, some optional ones. */
export function validDraft(op: Operation, rng: Rng, ctx: FuzzContext): Draft {
  const resource = resourceOf(op.path);
  const draft: Draft = { op, path: new Map(), pathSuffix: '', query: [], body: { kind: 'none' }, auth: validAuth(op, rng, ctx) };
  if (op.body.has('application/json')) {
    const value = op.path.endsWith('/graphql') ? validGraphql(rng, ctx) : valueFor(op.body.get('application/json')!, rng, '', resource, ctx);
    if (op.bodyRequired || rng.chance(0.8)) draft.body = { kind: 'json', value };
  } else if (op.body.has('application/xml') || op.body.has('multipart/form-data')) {
    const content = rng.pick(resource === 'models' ? ctx.models.dmn : ctx.models.bpmn);
    const filename = resource === 'models' ? 'fuzz.dmn' : 'fuzz.bpmn';
    draft.body =
      op.body.has('application/xml') && (rng.chance(0.7) || !op.body.has('multipart/form-data'))
        ? { kind: 'xml', text: content }
        : { kind: 'multipart', field: 'file', filename, content };
  }
  for (const param of op.params) {
    const needed = param.required || (param.name === 'resourceName' && draft.body.kind === 'xml');
    if (!needed && !rng.chance(0.4)) continue;
    const value = valueFor(param.schema, rng, param.name, resource, ctx);
    const text = percentEncode(value === null ? '' : String(value));
    if (param.in === 'path') draft.path.set(param.name, text);
    else draft.query.push([param.name, text]);
  }
  return draft;
}

function validAuth(op: Operation, rng: Rng, ctx: FuzzContext): Draft['auth'] {
  if (!op.auth) return { place: 'none', credential: '' };
  const { key, token } = ctx.credentials;
  // Rotation takes the key itself, not a token minted from it.
  if (op.path.endsWith('/keys/rotate')) return { place: 'header', credential: key };
  const place = rng.weighted<AuthPlace>([
    ['header', 6],
    ['bearer', 3],
    ['query', 1],
  ]);
  const credential = place === 'bearer' && token !== undefined && rng.chance(0.5) ? token : key;
  return { place, credential: place === 'query' ? percentEncode(credential) : credential };
}

const UNRESERVED = /[A-Za-z0-9\-._~!'()*]/;

/**
 * Percent-encoding of every UTF-16 code unit, lone surrogates included
 * (as the three bytes a generalized UTF-8 gives them, which no decoder
 * accepts): encodeURIComponent throws on those, and they are exactly what
 * the fuzzer wants to send.
 */
export function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate: encode code unit by code unit.
  }
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (UNRESERVED.test(char)) {
      out += char;
      continue;
    }
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    for (const byte of utf8Bytes(code)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function utf8Bytes(code: number): number[] {
  if (code < 0x80) return [code];
  if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 0x3f)];
  if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
  return [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
}

/** JSON text of a value with RawJson parts inlined. Lone surrogates come out as \\udXXX escapes (valid JSON text). */
export function jsonText(value: JsonValue): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export function serialize(draft: Draft, mutation: string): FuzzRequest {
  const { op } = draft;
  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => draft.path.get(name) ?? 'missing');
  path += draft.pathSuffix;
  const query = [...draft.query];
  const headers: Record<string, string> = {};
  if (draft.auth.place === 'header') headers['x-api-key'] = draft.auth.credential;
  if (draft.auth.place === 'bearer') headers.authorization = `Bearer ${draft.auth.credential}`;
  if (draft.auth.place === 'query') query.push(['api_key', draft.auth.credential]);
  const url = query.length === 0 ? path : `${path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
  let body: Buffer | undefined;
  const b = draft.body;
  switch (b.kind) {
    case 'json':
      body = Buffer.from(jsonText(b.value));
      headers['content-type'] = b.contentType ?? 'application/json';
      break;
    case 'xml':
      body = Buffer.from(b.text);
      headers['content-type'] = b.contentType ?? 'application/xml';
      break;
    case 'multipart': {
      const boundary = 'orca-fuzz-boundary';
      body = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${b.field}"; filename="${b.filename}"\r\nContent-Type: application/xml\r\n\r\n${b.content}\r\n--${boundary}--\r\n`,
      );
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      break;
    }
    case 'bytes':
      body = b.bytes;
      if (b.contentType !== undefined) headers['content-type'] = b.contentType;
      break;
  }
  return { operation: op.id, mutation, method: op.method, url, headers, body };
}
