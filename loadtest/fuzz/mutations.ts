// The ways the fuzzer breaks a valid request, one named kind each: wrong
// types, missing and extra fields, huge strings, deep nesting, characters
// Postgres cannot store (NUL, lone surrogates) and other control characters
// in every string position (body values and property names, variable names
// and values, path segments, query strings), malformed JSON, wrong content
// types, empty and oversized bodies, invalid UTF-8, broken percent-encoding,
// very long paths, bad credentials, GraphQL documents and BPMN/DMN XML gone
// wrong. Each kind says which operations it applies to and edits a draft
// from generate.ts in place; `buildRequest` picks the operation's kind by
// weight ('valid' among them) and serializes the result.
import { deepGraphql, graphqlWithBadString, hugeGraphql, literalGraphql } from './graphql.ts';
import { operationWeight, percentEncode, RawJson, serialize, validDraft, type Draft, type FuzzContext, type FuzzRequest, type JsonValue } from './generate.ts';
import type { Operation } from './openapi.ts';
import { Rng } from './rng.ts';
import { xmlControlChars, xmlDeep, xmlMalformed } from './xml-mutations.ts';

export interface Mutation {
  kind: string;
  /** How often, relative to the others that apply to the operation. */
  weight: number;
  applies(op: Operation): boolean;
  apply(draft: Draft, rng: Rng, ctx: FuzzContext): void;
}

/** What Postgres text/jsonb cannot hold, first; then other characters that trip parsers, logs and headers. */
export const BAD_STRINGS = ['\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\udfff\ud800', '\ud83d'];
const ODD_STRINGS = ['\u0001\u001f\u007f', '\r\n', '\u2028\u2029', '\ufeff', '\u202e', '😀', "'; DROP TABLE x; --", '%00', '../..', '${x}', '\\', '"', ''];

const OVERSIZED = 10 * 1024 * 1024 + 1024;

export function badString(rng: Rng): string {
  return rng.chance(0.7) ? rng.pick(BAD_STRINGS) : rng.pick(ODD_STRINGS);
}

const hasJson = (op: Operation) => op.body.has('application/json');
const hasXml = (op: Operation) => op.body.has('application/xml') || op.body.has('multipart/form-data');
const sendsBody = (op: Operation) => op.method !== 'GET';
const isGraphql = (op: Operation) => op.path.endsWith('/graphql');
const always = () => true;

/** A place in a JSON body: a value, or the name of a property. */
interface Slot {
  kind: 'value' | 'name';
  get(): JsonValue;
  set(value: JsonValue): void;
}

function jsonBody(draft: Draft): { value: JsonValue } {
  if (draft.body.kind !== 'json') draft.body = { kind: 'json', value: {} };
  return draft.body;
}

function slotsOf(holder: { value: JsonValue }): Slot[] {
  const slots: Slot[] = [{ kind: 'value', get: () => holder.value, set: (v) => (holder.value = v) }];
  const walk = (value: JsonValue, depth: number) => {
    if (depth > 6 || value === null || typeof value !== 'object' || value instanceof RawJson) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        slots.push({ kind: 'value', get: () => value[i], set: (v) => (value[i] = v) });
        walk(item, depth + 1);
      });
      return;
    }
    for (const name of Object.keys(value)) {
      let current = name;
      slots.push({ kind: 'value', get: () => value[current], set: (v) => (value[current] = v) });
      slots.push({
        kind: 'name',
        get: () => current,
        set: (v) => {
          const inner = value[current];
          delete value[current];
          current = String(v);
          value[current] = inner;
        },
      });
      walk(value[name], depth + 1);
    }
  };
  walk(holder.value, 0);
  return slots;
}

/** The variables object of the body, when it has one. */
function variablesOf(draft: Draft): Record<string, JsonValue> | undefined {
  if (draft.body.kind !== 'json') return undefined;
  const value = draft.body.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof RawJson) return undefined;
  const variables = value.variables;
  if (variables === null || typeof variables !== 'object' || Array.isArray(variables) || variables instanceof RawJson) return undefined;
  return variables;
}

/** Puts `text` somewhere a string goes: a body value or property name, a variable, a path segment or a query value. */
function putString(draft: Draft, rng: Rng, text: string): void {
  const variables = variablesOf(draft);
  const where = rng.weighted<string>([
    ['body', draft.body.kind === 'json' ? 6 : 0],
    ['variable', variables ? 4 : 0],
    ['path', draft.path.size > 0 ? 3 : 0],
    ['query', draft.query.length > 0 ? 2 : 0],
    ['new-query', 1],
  ]);
  const mix = (old: string) => rng.pick([text, `${old}${text}`, `${text}${old}`, `${old.slice(0, 1)}${text}${old.slice(1)}`]);
  if (where === 'variable') {
    if (rng.chance(0.5)) variables![mix('name')] = rng.word(3);
    else variables![rng.pick(['orderId', 'note', 'customer'])] = rng.chance(0.7) ? mix('value') : { nested: [mix('deep')] };
  } else if (where === 'body') {
    const slots = slotsOf(jsonBody(draft)).filter((s) => s.kind === 'name' || typeof s.get() === 'string');
    if (slots.length === 0) jsonBody(draft).value = { [text]: text };
    else {
      const slot = rng.pick(slots);
      slot.set(mix(String(slot.get())));
    }
  } else if (where === 'path') {
    const name = rng.pick([...draft.path.keys()]);
    draft.path.set(name, percentEncode(mix(decodeOr(draft.path.get(name)!))));
  } else if (where === 'query') {
    const entry = rng.pick(draft.query);
    entry[1] = percentEncode(mix(decodeOr(entry[1])));
  } else draft.query.push([rng.pick(['limit', 'cursor', 'filter.state', 'x']), percentEncode(text)]);
}

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function nested(depth: number, rng: Rng): RawJson {
  return rng.chance(0.5) ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

const WRONG_VALUES: JsonValue[] = [
  0,
  -1,
  1.5,
  1e308,
  new RawJson('12345678901234567890'),
  true,
  false,
  null,
  [],
  {},
  'text',
  '123',
  [1, 2],
  { nested: 'object' },
];
const WRONG_QUERY = ['abc', '-1', '0', '1.5', '1e400', '99999999999999999999', '', 'true', 'null', '[]'];
const WRONG_SEGMENTS = ['abc', '-1', '0', '1.5', '99999999999999999999999', '9223372036854775808', '%20', 'null', 'undefined', '__proto__'];

function mutation(kind: string, weight: number, applies: (op: Operation) => boolean, apply: Mutation['apply']): Mutation {
  return { kind, weight, applies, apply };
}

export const MUTATIONS: Mutation[] = [
  mutation('valid', 30, always, () => {}),
  mutation(
    'wrong-type',
    6,
    (op) => hasJson(op) || op.params.length > 0,
    (draft, rng) => {
      const where = rng.weighted<string>([
        ['body', hasJson(draft.op) ? 3 : 0],
        ['path', draft.path.size > 0 ? 1 : 0],
        ['query', draft.op.params.some((p) => p.in === 'query') ? 1 : 0],
      ]);
      if (where === 'body') rng.pick(slotsOf(jsonBody(draft)).filter((s) => s.kind === 'value')).set(rng.pick(WRONG_VALUES));
      else if (where === 'path') draft.path.set(rng.pick([...draft.path.keys()]), rng.pick(WRONG_SEGMENTS));
      else {
        const name = rng.pick(draft.op.params.filter((p) => p.in === 'query')).name;
        draft.query = draft.query.filter(([n]) => n !== name);
        draft.query.push([name, rng.pick(WRONG_QUERY)]);
        if (rng.chance(0.3)) draft.query.push([name, rng.pick(WRONG_QUERY)]);
      }
    },
  ),
  mutation(
    'missing-field',
    5,
    (op) => hasJson(op) || op.params.some((p) => p.required),
    (draft, rng) => {
      const required = draft.op.params.filter((p) => p.required);
      if (hasJson(draft.op) && (required.length === 0 || rng.chance(0.6))) {
        const body = jsonBody(draft);
        if (body.value !== null && typeof body.value === 'object' && !Array.isArray(body.value) && !(body.value instanceof RawJson) && rng.chance(0.7)) {
          const names = Object.keys(body.value);
          if (names.length > 0) delete body.value[rng.pick(names)];
        } else body.value = {};
        return;
      }
      const param = rng.pick(required);
      if (param.in === 'path') draft.path.set(param.name, '');
      else draft.query = draft.query.filter(([n]) => n !== param.name);
    },
  ),
  mutation('extra-field', 4, always, (draft, rng) => {
    const name = rng.pick(['extra', '__proto__', 'constructor', 'prototype', 'toString', `x${rng.word(4)}`]);
    const value: JsonValue = rng.pick<JsonValue>([1, 'x', { admin: true }, [null], null]);
    if (hasJson(draft.op) && rng.chance(0.7)) {
      const body = jsonBody(draft);
      const objects = slotsOf(body)
        .map((s) => s.get())
        .filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawJson));
      // defineProperty: assigning `__proto__` would set the prototype, not add a property that is sent.
      if (objects.length === 0) body.value = { [name]: value };
      else Object.defineProperty(rng.pick(objects), name, { value, enumerable: true, writable: true, configurable: true });
    } else draft.query.push([name, percentEncode(String(JSON.stringify(value)))]);
  }),
  mutation('huge-string', 3, always, (draft, rng) => {
    const size = rng.pick([10_000, 100_000, 1_000_000]);
    const huge = rng.chance(0.7) ? 'x'.repeat(size) : '😀'.repeat(size / 4);
    if (draft.body.kind === 'xml') draft.body.text = draft.body.text.replace(/ name="[^"]*"/, ` name="${huge}"`);
    else putString(draft, rng, huge);
  }),
  mutation('deep-nesting', 3, hasJson, (draft, rng) => {
    const deep = nested(rng.pick([65, 1_000, 100_000]), rng);
    const variables = variablesOf(draft);
    if (variables && rng.chance(0.6)) variables.deep = deep;
    else if (rng.chance(0.3)) jsonBody(draft).value = deep;
    else rng.pick(slotsOf(jsonBody(draft)).filter((s) => s.kind === 'value')).set(deep);
  }),
  mutation('control-chars', 14, always, (draft, rng, ctx) => {
    const bad = badString(rng);
    if (isGraphql(draft.op) && rng.chance(0.5)) draft.body = { kind: 'json', value: graphqlWithBadString(rng, ctx, bad) };
    else putString(draft, rng, bad);
  }),
  mutation(
    'malformed-json',
    4,
    (op) => hasJson(op) || sendsBody(op),
    (draft, rng) => {
      const text = rng.pick([
        '{',
        '{"bpmnProcessId":"order"',
        '{"a":1,}',
        "{'a':1}",
        '{"a":NaN}',
        '{"a":1} trailing',
        '/* c */ {}',
        '\ufeff{}',
        '{"a":"raw \u0001 control"}',
        `{"n":${'9'.repeat(10_000)}}`,
        '{"a":1,"a":2}',
        'null',
        '"just a string"',
        `${'['.repeat(10_000)}`,
      ]);
      draft.body = { kind: 'bytes', bytes: Buffer.from(text), contentType: 'application/json' };
    },
  ),
  mutation('wrong-content-type', 4, sendsBody, (draft, rng) => {
    const contentType = rng.pick([
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/json',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      ';;;',
      'application/problem+json',
      'image/png',
    ]);
    const bytes = draft.body.kind === 'none' ? Buffer.from('{}') : serialize(draft, '').body!;
    draft.body = { kind: 'bytes', bytes, contentType };
  }),
  mutation('empty-body', 4, sendsBody, (draft, rng) => {
    const contentType = rng.pick([serialize(draft, '').headers['content-type'] ?? 'application/json', 'application/json', undefined]);
    draft.body = { kind: 'bytes', bytes: Buffer.alloc(0), contentType };
  }),
  mutation('oversized-body', 1, sendsBody, (draft) => {
    const contentType = serialize(draft, '').headers['content-type'] ?? 'application/json';
    draft.body = { kind: 'bytes', bytes: oversized(), contentType };
  }),
  mutation(
    'invalid-utf8',
    3,
    (op) => hasJson(op) || hasXml(op),
    (draft, rng) => {
      const bytes = rng.pick([[0xff, 0xfe], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe0, 0xa4], [0x80]]);
      const inside = (text: string, at: number) => Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at))]);
      if (draft.body.kind === 'xml') {
        const text = draft.body.text;
        draft.body = { kind: 'bytes', bytes: inside(text, text.indexOf('id="') + 4), contentType: 'application/xml' };
      } else {
        const text = serialize(draft, '').body?.toString() ?? '{"a":""}';
        const quote = text.indexOf('":"');
        draft.body = { kind: 'bytes', bytes: inside(text, quote < 0 ? 1 : quote + 3), contentType: 'application/json' };
      }
    },
  ),
  mutation('broken-encoding', 4, always, (draft, rng) => {
    const broken = rng.pick(['%', '%G0', '%E0%A4', '%ED%A0%80', '%C0%80', '%FF', '%%32%30', 'a%2', '%u0000']);
    const where = rng.weighted<string>([
      ['path', draft.path.size > 0 ? 3 : 0],
      ['query', 2],
      ['suffix', 1],
    ]);
    if (where === 'path') draft.path.set(rng.pick([...draft.path.keys()]), rng.chance(0.5) ? broken : `1${broken}2`);
    else if (where === 'query') draft.query.push([rng.chance(0.8) ? rng.pick(['limit', 'cursor', 'filter.state', 'x']) : broken, broken]);
    else draft.pathSuffix = `/${broken}`;
  }),
  mutation('long-path', 2, always, (draft, rng) => {
    const length = rng.pick([2_000, 8_000, 20_000, 100_000]);
    if (draft.path.size > 0 && rng.chance(0.6)) draft.path.set(rng.pick([...draft.path.keys()]), 'a'.repeat(length));
    else {
      const piece = rng.pick(['/x', '/..', '//', '/%2e%2e']);
      draft.pathSuffix = piece.repeat(Math.ceil(length / piece.length));
    }
  }),
  mutation(
    'auth-missing',
    3,
    (op) => op.auth,
    (draft) => {
      draft.auth = { place: 'none', credential: '' };
    },
  ),
  mutation(
    'auth-bad',
    3,
    (op) => op.auth,
    (draft, rng, ctx) => {
      const key = ctx.credentials.key;
      const credential = rng.pick(['', 'orca_' + rng.word(43), key.slice(0, -1), `${key}x`, 'x'.repeat(10_000), `${key}\u0000`, `\ud800${key}`, 'null']);
      // Header values cannot carry control characters at all: those go in the query.
      const unsendable = [...credential].some((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff));
      const place = unsendable ? 'query' : rng.pick(['header', 'bearer', 'query'] as const);
      draft.auth = { place, credential: place === 'query' ? percentEncode(credential) : credential };
    },
  ),
  mutation('graphql-literal', 5, isGraphql, (draft, rng) => {
    draft.body = { kind: 'json', value: literalGraphql(rng) };
  }),
  mutation('graphql-deep', 3, isGraphql, (draft, rng) => {
    draft.body = { kind: 'json', value: deepGraphql(rng) };
  }),
  mutation('graphql-huge', 2, isGraphql, (draft, rng) => {
    draft.body = { kind: 'json', value: hugeGraphql(rng) };
  }),
  mutation('xml-control-chars', 6, hasXml, xmlControlChars),
  mutation('xml-malformed', 4, hasXml, xmlMalformed),
  mutation('xml-deep', 2, hasXml, xmlDeep),
];

export const MUTATION_KINDS = MUTATIONS.map((m) => m.kind);

let oversizedBody: Buffer | undefined;
function oversized(): Buffer {
  // Built once: more than the server's 10 MiB body limit, as one JSON string.
  oversizedBody ??= Buffer.concat([Buffer.from('{"variables":{"big":"'), Buffer.alloc(OVERSIZED, 'a'), Buffer.from('"}}')]);
  return oversizedBody;
}

export function mutationsFor(op: Operation): Mutation[] {
  return MUTATIONS.filter((m) => m.applies(op));
}

/** One request for `op`: a valid draft, then a mutation chosen by weight among those that apply. */
export function buildRequest(op: Operation, rng: Rng, ctx: FuzzContext, only?: string): FuzzRequest {
  const candidates = mutationsFor(op).filter((m) => only === undefined || m.kind === only);
  const chosen = rng.weighted(candidates.map((m) => [m, m.weight] as const));
  const draft = validDraft(op, rng, ctx);
  chosen.apply(draft, rng, ctx);
  return serialize(draft, chosen.kind);
}

/** Request number `index` of the run with `seed`: the operation, the mutation and every value drawn from them alone. */
export function requestAt(seed: number, index: number, operations: Operation[], ctx: FuzzContext, only?: string): FuzzRequest {
  const rng = new Rng(seed, index);
  const op = rng.weighted(operations.map((o) => [o, operationWeight(o)] as const));
  return buildRequest(op, rng, ctx, only);
}
