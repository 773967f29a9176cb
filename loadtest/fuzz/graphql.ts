// GraphQL request bodies for POST /api/v1/graphql: valid documents over the
// schema in api/graphql/schema.ts (with ids from the pools), documents that
// are only a literal or broken syntax, selections nested far deeper than
// the server's depth limit, documents near and over the 100,000-character
// limit, and string arguments holding what Postgres cannot store. The
// server must answer each with 200 and GraphQL errors, or a 400 problem;
// an INTERNAL error, a 5xx or a hang is a finding.
import type { FuzzContext, JsonValue } from './generate.ts';
import { poolOf, randomKey, variablesValue } from './values.ts';
import type { Rng } from './rng.ts';

const MAX_DOCUMENT = 100_000;

function some(rng: Rng, ctx: FuzzContext, resource: string): string {
  const pool = poolOf(ctx.pools, resource);
  return pool.length > 0 && rng.chance(0.85) ? rng.pick(pool) : randomKey(rng);
}

export function validGraphql(rng: Rng, ctx: FuzzContext): JsonValue {
  const limit = rng.int(1, 20);
  return rng.weighted<() => JsonValue>([
    [() => ({ query: `{ tasks(limit: ${limit}) { items { id state assignee variables processInstance { processInstanceKey state } } nextCursor } }` }), 3],
    [
      () => ({
        query: 'query Instance($key: ID!) { processInstance(key: $key) { processInstanceKey state variables incidents { id state } tasks { id } } }',
        variables: { key: some(rng, ctx, 'process-instances') },
        operationName: 'Instance',
      }),
      3,
    ],
    [() => ({ query: `{ incidents(limit: ${limit}, state: OPEN) { items { id message processInstance { state } } nextCursor } }` }), 2],
    [() => ({ query: `{ processInstances(limit: ${limit}, bpmnProcessId: "order") { items { processInstanceKey state } nextCursor } }` }), 2],
    [
      () => ({
        query: 'mutation Complete($id: ID!, $v: JSON) { completeTask(id: $id, variables: $v) { id completed } }',
        variables: { id: some(rng, ctx, 'tasks'), v: variablesValue(rng) },
      }),
      3,
    ],
    [() => ({ query: `{ task(id: ${JSON.stringify(some(rng, ctx, 'tasks'))}) { id state variables } }` }), 2],
    [() => ({ query: rng.pick(['{ __typename }', '{ __schema { queryType { name } } }', 'query { __type(name: "Task") { fields { name } } }']) }), 1],
  ])();
}

/** Bodies that are a GraphQL request in form only: a literal, broken syntax, wrong operations. */
export function literalGraphql(rng: Rng): JsonValue {
  return rng.pick<JsonValue>([
    { query: '1' },
    { query: '"text"' },
    { query: '{' },
    { query: '}' },
    { query: 'query {' },
    { query: '{ nope }' },
    { query: 'subscription { tasks { items { id } } }' },
    { query: 'mutation { completeTask }' },
    { query: 'query A { __typename } query B { __typename }' },
    { query: 'query A { __typename }', operationName: 'B' },
    { query: 'query ($x: Int) { tasks(limit: $x) { items { id } } }', variables: { x: 'many' } },
    { query: '{ tasks(limit: 99999999999) { items { id } } }' },
    { query: '{ tasks(limit: -1) { items { id } } }' },
    { query: '{ processInstance(key: "abc") { state } }' },
    { query: '{ processInstance(key: "99999999999999999999999") { state } }' },
    { query: 'fragment A on Task { ...B } fragment B on Task { ...A } { tasks { items { ...A } } }' },
    { query: '{ tasks { items { id } } }', variables: [] as JsonValue },
    { query: '\u0000' },
    { query: '{ __typename }'.repeat(3) },
  ]);
}

/** Selections nested deeper than the depth limit: through the schema's cycles, or plain braces. */
export function deepGraphql(rng: Rng): JsonValue {
  const depth = rng.pick([9, 100, 1_000, 5_000]);
  if (rng.chance(0.5)) {
    // instance → incidents → processInstance → incidents …, valid at every level; kept under the size limit.
    const levels = Math.min(depth, Math.floor((MAX_DOCUMENT - 100) / 35));
    const open = 'processInstances { items { ' + 'incidents { processInstance { '.repeat(levels);
    const close = '} } '.repeat(levels) + '} }';
    return { query: `{ ${open}state ${close} }` };
  }
  const braces = Math.min(depth * 6, Math.floor((MAX_DOCUMENT - 10) / 3));
  return { query: `{${'a{'.repeat(braces)}${'}'.repeat(braces)}}` };
}

/** Documents at and over the size limit, and ones that ask for many resolvers at once. */
export function hugeGraphql(rng: Rng): JsonValue {
  const aliases = (field: string, budget: number) => {
    let out = '';
    for (let i = 0; out.length + field.length + 12 < budget; i++) out += `a${i}: ${field} `;
    return out;
  };
  return rng.weighted<() => JsonValue>([
    [() => ({ query: `{ ${aliases('__typename', MAX_DOCUMENT - 10)}}` }), 2],
    [() => ({ query: `{ ${aliases('__typename', MAX_DOCUMENT + 50)}}` }), 1],
    [() => ({ query: `{ ${aliases('tasks(limit: 1) { nextCursor }', 12_000)}}` }), 1],
    [() => ({ query: `{ tasks(assignee: "${'x'.repeat(MAX_DOCUMENT - 80)}") { items { id } } }` }), 1],
    [() => ({ query: `# ${'c'.repeat(rng.pick([MAX_DOCUMENT - 20, 1_000_000]))}\n{ __typename }` }), 1],
  ])();
}

/** A valid document whose string argument holds `bad` as a GraphQL escape (\\u0000, a lone \\uD800 …). */
export function graphqlWithBadString(rng: Rng, ctx: FuzzContext, bad: string): JsonValue {
  const escaped = [...bad].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return rng.pick<JsonValue>([
    { query: `{ task(id: "${escaped}") { id } }` },
    { query: `{ processInstance(key: "${escaped}") { state } }` },
    { query: `{ tasks(assignee: "a${escaped}b") { items { id } } }` },
    { query: `{ processInstances(bpmnProcessId: "${escaped}") { items { state } } }` },
    { query: `mutation { completeTask(id: ${JSON.stringify(some(rng, ctx, 'tasks'))}, variables: { note: "${escaped}" }) { id } }` },
    { query: 'mutation ($id: ID!, $v: JSON) { completeTask(id: $id, variables: $v) { id } }', variables: { id: some(rng, ctx, 'tasks'), v: { [bad]: 1 } } },
  ]);
}
