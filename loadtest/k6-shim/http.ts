// Stand-in for `k6/http` so the k6 scripts run in Node for
// loadtest/k6-smoke.ts. k6's HTTP calls are synchronous; here a worker
// thread does the fetches while the calling thread blocks on Atomics.wait and
// then takes the answer with receiveMessageOnPort. A batch is fetched in
// parallel, as k6 does. Responses look like k6's (status 0 on a transport
// error, `body` a string), and each request is recorded with whether k6
// would count it in http_req_failed (default expected statuses 200–399, or
// the request's responseCallback).
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { state } from './state.ts';

interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

interface WireResponse {
  status: number;
  body: string | null;
  headers: Record<string, string>;
  durationMs: number;
  error?: string;
}

interface Params {
  headers?: Record<string, string>;
  tags?: Record<string, string>;
  timeout?: string | number;
  responseCallback?: ExpectedStatuses;
}

interface ExpectedStatuses {
  statuses: (number | { min: number; max: number })[];
}

export interface Response {
  status: number;
  body: string | null;
  headers: Record<string, string>;
  error: string;
  timings: { duration: number };
  json(): unknown;
}

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { port, flag } = workerData;
const signal = new Int32Array(flag);
port.on('message', async (requests) => {
  const answers = await Promise.all(requests.map(async (r) => {
    const started = performance.now();
    try {
      const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(r.timeoutMs) });
      const body = await res.text();
      return { status: res.status, body, headers: Object.fromEntries(res.headers), durationMs: performance.now() - started };
    } catch (err) {
      return { status: 0, body: null, headers: {}, durationMs: performance.now() - started, error: String(err) };
    }
  }));
  port.postMessage(answers);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

let channel: { port: MessageChannel['port1']; signal: Int32Array } | undefined;

function connection() {
  if (channel === undefined) {
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
    // The smoke run ends when its work is done, not when the worker would.
    worker.unref();
    port1.unref();
    channel = { port: port1, signal: new Int32Array(flag) };
  }
  return channel;
}

function fetchAll(requests: WireRequest[]): WireResponse[] {
  const { port, signal } = connection();
  Atomics.store(signal, 0, 0);
  port.postMessage(requests);
  const longest = Math.max(...requests.map((r) => r.timeoutMs)) + 5_000;
  if (Atomics.wait(signal, 0, 0, longest) === 'timed-out') throw new Error('k6-shim: the fetch worker did not answer');
  const received = receiveMessageOnPort(port);
  if (received === undefined) throw new Error('k6-shim: no answer from the fetch worker');
  return received.message as WireResponse[];
}

function timeoutMs(timeout: Params['timeout']): number {
  if (typeof timeout === 'number') return timeout;
  if (typeof timeout === 'string') {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(timeout);
    if (match) return Number(match[1]) * { ms: 1, s: 1_000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
  }
  return 60_000;
}

function expected(status: number, callback: ExpectedStatuses | undefined): boolean {
  if (callback === undefined) return status >= 200 && status <= 399;
  return callback.statuses.some((s) => (typeof s === 'number' ? s === status : status >= s.min && status <= s.max));
}

function toWire(method: string, url: string, body: unknown, params: Params = {}): WireRequest {
  if (body !== null && body !== undefined && typeof body !== 'string') throw new Error('k6-shim: only string bodies are supported');
  return {
    method,
    url,
    headers: { 'User-Agent': 'k6-shim', ...params.headers },
    body: (body as string | null) ?? undefined,
    timeoutMs: timeoutMs(params.timeout),
  };
}

function toResponse(request: WireRequest, answer: WireResponse, params: Params = {}): Response {
  state.requests.push({
    method: request.method,
    url: request.url,
    status: answer.status,
    failed: !expected(answer.status, params.responseCallback),
    tags: params.tags ?? {},
    durationMs: answer.durationMs,
  });
  return {
    status: answer.status,
    body: answer.body,
    headers: answer.headers,
    error: answer.error ?? '',
    timings: { duration: answer.durationMs },
    json: () => JSON.parse(answer.body ?? ''),
  };
}

export function request(method: string, url: string, body?: unknown, params?: Params): Response {
  const wire = toWire(method, url, body, params);
  return toResponse(wire, fetchAll([wire])[0], params);
}

export const get = (url: string, params?: Params) => request('GET', url, null, params);
export const post = (url: string, body?: unknown, params?: Params) => request('POST', url, body, params);
export const put = (url: string, body?: unknown, params?: Params) => request('PUT', url, body, params);
export const patch = (url: string, body?: unknown, params?: Params) => request('PATCH', url, body, params);
export const del = (url: string, body?: unknown, params?: Params) => request('DELETE', url, body, params);

type BatchItem = { method: string; url: string; body?: unknown; params?: Params } | [string, string, unknown?, Params?];

export function batch(items: BatchItem[]): Response[] {
  const normalised = items.map((item) => (Array.isArray(item) ? { method: item[0], url: item[1], body: item[2], params: item[3] } : item));
  const wires = normalised.map((i) => toWire(i.method, i.url, i.body, i.params));
  const answers = fetchAll(wires);
  return answers.map((answer, n) => toResponse(wires[n], answer, normalised[n].params));
}

export function expectedStatuses(...statuses: (number | { min: number; max: number })[]): ExpectedStatuses {
  return { statuses };
}

export default { request, get, post, put, patch, del, batch, expectedStatuses };
