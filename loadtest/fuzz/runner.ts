// Sends the generated requests with bounded concurrency and judges each
// answer. A finding is any 5xx, any error answer that is not an RFC 9457
// problem (application/problem+json with type, title, status, detail and
// code), a GraphQL error whose code is INTERNAL or whose status is 5xx, no
// answer within the per-request timeout (a hang), a dropped connection, and
// the server process dying. Findings are kept once per operation and kind,
// with the first request that produced them. Successful answers feed the
// pools (instance and job keys, task and incident ids, cursors) and the
// credentials (a rotated key, a minted token) the next requests draw on.
import { Agent, request as send } from 'undici';
import { remember, type FuzzContext, type FuzzRequest } from './generate.ts';
import { poolOf } from './values.ts';
import { mutationsFor, requestAt } from './mutations.ts';
import { resourceOf, type Operation } from './openapi.ts';

export interface Finding {
  operation: string;
  kind: string;
  count: number;
  mutations: Set<string>;
  request?: FuzzRequest;
  /** Status and the start of the body, or what went wrong on the wire. */
  answer: string;
}

/** The earliest-sent request a partition answered with a 503 naming it: usually the one that stalled it. */
export interface Stall {
  partition: number;
  /** Seconds into the run when it was sent. */
  sentAt: number;
  request: FuzzRequest;
  answer: string;
}

export class Findings {
  readonly byKey = new Map<string, Finding>();
  readonly stalls = new Map<number, Stall>();

  noteStall(stall: Stall): void {
    const known = this.stalls.get(stall.partition);
    if (known === undefined || stall.sentAt < known.sentAt) this.stalls.set(stall.partition, stall);
  }

  add(operation: string, kind: string, mutation: string, answer: string, request?: FuzzRequest): void {
    const key = `${operation} ${kind}`;
    const known = this.byKey.get(key);
    if (known) {
      known.count++;
      known.mutations.add(mutation);
      return;
    }
    this.byKey.set(key, { operation, kind, count: 1, mutations: new Set([mutation]), request, answer });
  }

  get size(): number {
    return this.byKey.size;
  }
}

export interface Stats {
  sent: number;
  byOperation: Map<string, number>;
  byMutation: Map<string, number>;
  /** Status (or `hang`, `connection error`) → count. */
  statuses: Map<string, number>;
  /** Mutation kind → status → count. */
  byMutationStatus: Map<string, Map<string, number>>;
}

export interface RunOptions {
  baseUrl: string;
  operations: Operation[];
  ctx: FuzzContext;
  seed: number;
  requests: number;
  seconds: number;
  concurrency: number;
  timeoutMs: number;
  findings: Findings;
  /** False once the server process is gone (the run then stops). */
  alive: () => boolean;
  /** Restricts the run to one mutation kind (debugging a finding). */
  only?: string;
}

export interface RunOutcome {
  stats: Stats;
  stoppedBy: 'count' | 'time' | 'server-died';
  ms: number;
}

/** Orca's default body limit (api/app.ts) and Node's default limit on a request's head: above them a request may be cut off. */
const BODY_LIMIT = 10 * 1024 * 1024;
const HEAD_LIMIT = 16 * 1024;
const CLOSED = new Set(['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET']);

/** A request the server may refuse and close the connection on before it is all sent. */
function overLimits(req: FuzzRequest): boolean {
  const head = req.url.length + Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  return head > HEAD_LIMIT || (req.body?.length ?? 0) > BODY_LIMIT;
}

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/** The finding an answer is, or undefined when it is a proper answer. */
export function judge(op: Operation, status: number, contentType: string, text: string): string | undefined {
  if (status >= 500) return `HTTP ${status}`;
  if (status >= 400) {
    const problem = parseJson(text);
    const complete =
      problem !== undefined && ['type', 'title', 'detail', 'code'].every((field) => typeof problem[field] === 'string') && problem.status === status;
    if (!contentType.toLowerCase().startsWith('application/problem+json') || !complete) {
      // fastify's own answers carry a code (FST_ERR_BAD_URL …): it tells one cause from another.
      const code = typeof problem?.code === 'string' ? ` (${problem.code})` : '';
      return `HTTP ${status} not problem+json${code}`;
    }
    return undefined;
  }
  if (status >= 200 && status < 300 && op.path.endsWith('/graphql')) {
    const errors = parseJson(text)?.errors;
    if (Array.isArray(errors)) {
      for (const error of errors as { extensions?: { code?: unknown; status?: unknown } }[]) {
        const code = error.extensions?.code;
        const errorStatus = Number(error.extensions?.status ?? 0);
        if (code === 'INTERNAL' || errorStatus >= 500) return `GraphQL error ${String(code)} (${errorStatus})`;
      }
    }
  }
  return undefined;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the ids, cursors and credentials a successful answer carries. */
export function harvest(path: string, json: unknown, ctx: FuzzContext): void {
  const resource = resourceOf(path);
  const { pools } = ctx;
  const walk = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 50)) walk(item, depth + 1);
      return;
    }
    const o = value as Record<string, unknown>;
    const text = (field: string) => (typeof o[field] === 'string' && o[field] !== '' ? (o[field] as string) : undefined);
    if (text('processInstanceKey')) remember(poolOf(pools, 'process-instances'), text('processInstanceKey')!);
    if (resource === 'jobs' && text('key') && text('type')) remember(poolOf(pools, 'jobs'), text('key')!);
    if (text('jobKey')) remember(poolOf(pools, 'jobs'), text('jobKey')!);
    if (text('id') && ['tasks', 'incidents', 'process-definitions'].includes(resource)) remember(poolOf(pools, resource), text('id')!);
    if (text('decisionId')) remember(poolOf(pools, 'decisions'), text('decisionId')!);
    if (text('bpmnProcessId')) remember(poolOf(pools, 'process-definitions'), text('bpmnProcessId')!);
    if (text('nextCursor')) remember(poolOf(pools, resource, 'cursors'), text('nextCursor')!);
    if (text('new_key')) ctx.credentials = { key: text('new_key')! };
    if (text('access_token')) ctx.credentials.token = text('access_token');
    for (const field of Object.keys(o)) walk(o[field], depth + 1);
  };
  walk(json, 0);
}

export async function runFuzz(options: RunOptions): Promise<RunOutcome> {
  const { baseUrl, operations, ctx, findings, concurrency, timeoutMs } = options;
  const stats: Stats = { sent: 0, byOperation: new Map(), byMutation: new Map(), statuses: new Map(), byMutationStatus: new Map() };
  const byId = new Map(operations.map((op) => [op.id, op]));
  const eligible = options.only === undefined ? operations : operations.filter((op) => mutationsFor(op).some((m) => m.kind === options.only));
  if (eligible.length === 0) throw new Error(`no operation takes the mutation '${options.only}'`);
  const agent = new Agent({ connections: concurrency * 2, keepAliveTimeout: 10_000 });
  const inFlight = new Set<FuzzRequest>();
  const t0 = performance.now();
  let next = 0;
  let stoppedBy: RunOutcome['stoppedBy'] = 'count';
  let stop = false;

  const record = (req: FuzzRequest, status: string) => {
    stats.sent++;
    bump(stats.byOperation, req.operation);
    bump(stats.byMutation, req.mutation);
    bump(stats.statuses, status);
    let perKind = stats.byMutationStatus.get(req.mutation);
    if (!perKind) stats.byMutationStatus.set(req.mutation, (perKind = new Map()));
    bump(perKind, status);
  };

  const checkAlive = () => {
    if (options.alive()) return true;
    if (!stop) {
      stop = true;
      stoppedBy = 'server-died';
      const pending = [...inFlight].map((r) => `${r.operation} (${r.mutation})`).join(', ');
      findings.add('(server)', 'server process died', '-', `the server exited while these were in flight: ${pending || 'none'}`, [...inFlight][0]);
    }
    return false;
  };

  async function one(req: FuzzRequest): Promise<void> {
    const op = byId.get(req.operation)!;
    const sentAt = (performance.now() - t0) / 1000;
    const signal = AbortSignal.timeout(timeoutMs);
    inFlight.add(req);
    try {
      // Such a connection is not used again: Node answers an oversized head and closes it without `Connection: close`.
      const reset = overLimits(req);
      const res = await send(`${baseUrl}${req.url}`, { method: req.method as 'GET', headers: req.headers, body: req.body, dispatcher: agent, signal, reset });
      const text = await res.body.text();
      const contentType = String(res.headers['content-type'] ?? '');
      record(req, String(res.statusCode));
      const kind = judge(op, res.statusCode, contentType, text);
      const answer = `${res.statusCode} ${contentType}: ${text.slice(0, 400)}`;
      if (kind !== undefined) findings.add(req.operation, kind, req.mutation, answer, req);
      const stalled = res.statusCode === 503 ? /partition (\d+)/i.exec(text) : null;
      if (stalled) findings.noteStall({ partition: Number(stalled[1]), sentAt, request: req, answer });
      if (res.statusCode >= 200 && res.statusCode < 300 && contentType.includes('json')) harvest(op.path, parseJson(text), ctx);
    } catch (err) {
      if (signal.aborted) {
        record(req, 'hang');
        findings.add(req.operation, 'hang', req.mutation, `no answer within ${timeoutMs} ms`, req);
      } else {
        // A dying server closes sockets a moment before its exit is seen: that is not this request's finding.
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (!checkAlive()) return;
        const code = (err as { code?: string }).code ?? (err as Error).name;
        if (overLimits(req) && CLOSED.has(code)) {
          // A server may answer 413 or 431 and close before the request is all sent; the client then sees only the closed socket.
          record(req, 'closed while sending');
          return;
        }
        record(req, 'connection error');
        findings.add(req.operation, `connection error ${code}`, req.mutation, (err as Error).message, req);
      }
    } finally {
      inFlight.delete(req);
    }
  }

  async function worker(): Promise<void> {
    while (!stop) {
      if (!checkAlive()) return;
      if (next >= options.requests) return;
      if (performance.now() - t0 > options.seconds * 1000) {
        stoppedBy = 'time';
        return;
      }
      const req = requestAt(options.seed, next++, eligible, ctx, options.only);
      await one(req);
    }
  }

  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await agent.close();
  }
  return { stats, stoppedBy, ms: performance.now() - t0 };
}
