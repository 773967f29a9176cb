// The Idempotency-Key header (an extension, DESIGN §6; docs/api.md): reading
// and checking it, the fingerprint of the request it names, the engine
// command key it becomes, and the answers only a keyed request gets. The
// engine keeps the first result under the key (starts and job commands in
// their partition's command log, deploys in request_keys); this module only
// decides what a key is scoped to. A request without the header costs
// nothing here; with it, one hash of the request.
import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { CommandOptions } from '../../engine/index.ts';
import { ApiError } from '../problem.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How problems name the header (beside `body.…`, `query.…`, `params.…`). */
export const IDEMPOTENCY_FIELD = `headers.${IDEMPOTENCY_HEADER}`;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Printable ASCII, space included: what a header carries unchanged through proxies and clients. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]+$';
const PRINTABLE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** A keyed request as a route sees it: the key, and the fingerprint of what it asks. */
export interface Idempotency {
  key: string;
  /**
   * A digest of the request: method, route and path parameters, then either
   * `content` (what a route reads from a body it parses itself, e.g. an
   * uploaded model) or the parsed query and body.
   */
  fingerprint(content?: unknown): string;
}

/**
 * Key scopes: a start's key is the account's for starts, a job command's the
 * job's (complete and fail, and a task's completion, which completes its
 * job), a deploy's the account's for deploys, a signal broadcast's the
 * account's for broadcasts, a message publish's the account's for publishes. The same key in another scope
 * is another request; in the same scope with another fingerprint, a 409.
 */
export const scopedKey = {
  start: (key: string) => `start:${key}`,
  caseStart: (key: string) => `case-start:${key}`,
  caseCommand: (caseInstanceKey: string, key: string) => `case:${caseInstanceKey}:${key}`,
  job: (jobKey: string, key: string) => `job:${jobKey}:${key}`,
  deploy: (key: string) => `deploy:${key}`,
  signal: (key: string) => `signal:${key}`,
  message: (key: string) => `message:${key}`,
};

/** The header's value, undefined when absent; a 400 naming the header when it is malformed. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  const problem = keyProblem(key);
  if (problem !== undefined) {
    throw new ApiError('INVALID_INPUT', `The ${IDEMPOTENCY_HEADER} header ${problem}.`, { errors: [{ field: IDEMPOTENCY_FIELD, message: problem }] });
  }
  return key;
}

function keyProblem(key: string): string | undefined {
  if (key.length === 0) return 'must not be empty';
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) return `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, not ${key.length}`;
  if (!PRINTABLE.test(key)) return 'must hold printable ASCII characters only (space to ~)';
  return undefined;
}

/** The request's Idempotency, built lazily: nothing is hashed unless the route asks. */
export function idempotencyOf(key: string, method: string, path: string, input: { params: unknown; query: unknown; body: unknown }): Idempotency {
  return new KeyedRequest(key, method, path, input);
}

/** A class rather than a literal with an arrow: no function is made for each keyed request (a worker's every completion). */
class KeyedRequest implements Idempotency {
  constructor(
    readonly key: string,
    private readonly method: string,
    private readonly path: string,
    private readonly input: { params: unknown; query: unknown; body: unknown },
  ) {}

  fingerprint(content?: unknown): string {
    const { method, path, input } = this;
    return fingerprintOf(content === undefined ? [method, path, input.params, input.query, input.body] : [method, path, input.params, content]);
  }
}

/** sha256 of the canonical JSON of `value` (object keys sorted), base64url. */
export function fingerprintOf(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'base64url');
}

/**
 * JSON with every object's keys in sorted order, so the same request hashes
 * the same however its client ordered them. Built in one string, without the
 * arrays a map-and-join makes: every keyed request pays for it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out += `${i > 0 ? ',' : ''}${item === undefined ? 'null' : canonicalJson(item)}`;
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const names = Object.keys(record);
  if (!inOrder(names)) names.sort();
  let out = '';
  for (const name of names) {
    const item = record[name];
    if (item !== undefined) out += `${out === '' ? '' : ','}${JSON.stringify(name)}:${canonicalJson(item)}`;
  }
  return `{${out}}`;
}

/** Whether the names are already in sort()'s order (UTF-16 code units), as a client's sorted keys often are. */
function inOrder(names: string[]): boolean {
  for (let i = 1; i < names.length; i++) if (names[i - 1] > names[i]) return false;
  return true;
}

/** The engine options of a keyed command, its key in the scope `commandKey` gives (undefined without a key). */
export function keyedCommand(
  idempotency: Idempotency | undefined,
  commandKey: (key: string) => string,
  content?: unknown,
): (CommandOptions & { commandKey: string; fingerprint: string }) | undefined {
  return idempotency === undefined ? undefined : { commandKey: commandKey(idempotency.key), fingerprint: idempotency.fingerprint(content) };
}

/** The 409 for a key already used, within the retention, by a different request. */
export function keyReused(): ApiError {
  return new ApiError(
    'IDEMPOTENCY_KEY_REUSED',
    `The ${IDEMPOTENCY_HEADER} was used before for a different request (another route, target or body) and answers only that one for as long as results are kept (ORCA_COMMAND_RETENTION_MS, 24 hours by default). ` +
      'Send a new key for a new request; send the first request unchanged to get its result. Nothing was done.',
    { errors: [{ field: IDEMPOTENCY_FIELD, message: 'already used for a different request' }] },
  );
}

/** The 503 for a keyed request the engine did not answer in time: the same key is the safe retry. */
export function keyedTimeout(what: string): ApiError {
  return new ApiError(
    'UNAVAILABLE',
    `No committed answer from the engine in time. ${what} Send the same request with the same ${IDEMPOTENCY_HEADER}: it answers the first result if the change was applied, and applies it once otherwise.`,
    { retryAfterSeconds: 1 },
  );
}
