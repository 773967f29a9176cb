// The measuring half of `bench:reads`: each read route the console uses,
// called over HTTP against the running server one request at a time (what
// one operator's page does), with inputs that vary per request (random
// instances, customers, date windows), a warm-up first, and every answer
// checked for status 200 and a plausible body so a fast error can never
// pass for a fast read. Reports p50/p99 per route in milliseconds.
import { ASSIGNEES, instanceKey } from './bench-reads-fill.ts';

export interface MeasureOptions {
  baseUrl: string;
  apiKey: string;
  instances: number;
  partitions: number;
  /** From the fill: instance n started at from + n·step (epoch ms). */
  from: number;
  step: number;
  samples: number;
  warmup: number;
}

export interface RouteFigures {
  p50: number;
  p99: number;
  samples: number;
}

/** What one request of a route asks for; `check` says whether the answer is the real thing. */
interface Probe {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  check: (body: any) => boolean;
}

export class ReadCheckFailed extends Error {}

export async function measureRoutes(options: MeasureOptions, log: (line: string) => void = () => {}): Promise<Record<string, RouteFigures>> {
  const { instances: total, partitions, from } = options;
  const pick = () => 1 + Math.floor(Math.random() * total);
  const keyOf = (n: number) => instanceKey(n, partitions).toString();
  const iso = (ms: number) => new Date(ms).toISOString();
  const day = 24 * 3600 * 1000;
  const list = '/api/v1/process-instances';
  const page = (body: { items?: unknown[] }) => Array.isArray(body.items) && body.items.length > 0;

  const get = async (path: string) => {
    const response = await fetch(`${options.baseUrl}${path}`, { headers: { 'x-api-key': options.apiKey } });
    const text = await response.text();
    return { status: response.status, body: text.length > 0 ? JSON.parse(text) : undefined };
  };
  /** The cursor after `pages` pages of a list (not timed). */
  const cursorAfter = async (path: string, pages: number) => {
    let cursor: string | null = null;
    for (let i = 0; i < pages; i++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await get(`${path}${cursor === null ? '' : `${sep}cursor=${encodeURIComponent(cursor)}`}`);
      cursor = res.body?.nextCursor ?? null;
      if (cursor === null) throw new ReadCheckFailed(`${path}: no page ${i + 2}`);
    }
    return cursor!;
  };
  const withCursor = (path: string, cursor: string) => `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;

  const routes: Record<string, () => Promise<Probe> | Probe> = {
    'instances: first page': () => ({ path: list, check: page }),
    'instances: filter.state=ACTIVE': () => ({ path: `${list}?filter.state=ACTIVE`, check: page }),
    'instances: filter.state=INCIDENT': () => ({ path: `${list}?filter.state=INCIDENT`, check: page }),
    'instances: filter.bpmnProcessId': () => ({ path: `${list}?filter.bpmnProcessId=approval`, check: page }),
    'instances: filter.bpmnProcessId+version': () => ({ path: `${list}?filter.bpmnProcessId=order&filter.version=1`, check: page }),
    'instances: filter.variable (customer)': () => ({
      path: `${list}?filter.variable=customer:C-${Math.floor(Math.random() * Math.min(5000, total))}`,
      check: page,
    }),
    'instances: filter.variable (orderId)': () => {
      const n = pick();
      return { path: `${list}?filter.variable=orderId:ORD-${String(n).padStart(8, '0')}`, check: (b) => b.items?.length === 1 };
    },
    'instances: filter.startedAfter/Before (a day)': () => {
      const start = from + Math.random() * 28 * day;
      return { path: `${list}?filter.startedAfter=${iso(start)}&filter.startedBefore=${iso(start + day)}`, check: page };
    },
    'instances: filter.endedAfter': () => ({ path: `${list}?filter.endedAfter=${iso(from + (20 + Math.random() * 9) * day)}`, check: page }),
    'instances: filter.endedBefore': () => ({ path: `${list}?filter.endedBefore=${iso(from + (1 + Math.random() * 28) * day)}`, check: page }),
    'instances: filter.state+startedBefore': () => ({
      path: `${list}?filter.state=INCIDENT&filter.startedBefore=${iso(from + (1 + Math.random() * 28) * day)}`,
      check: page,
    }),
    'instances: cursor page 2': async () => ({ path: withCursor(list, await cursorAfter(list, 1)), check: page }),
    // Page 21 of a million; fewer pages in when a small fill has not that many.
    'instances: deep cursor page (filter.state=COMPLETED)': async () => {
      const path = `${list}?filter.state=COMPLETED`;
      return { path: withCursor(path, await cursorAfter(path, Math.max(1, Math.min(20, Math.floor((total * 0.6) / 50) - 1)))), check: page };
    },
    'instance: one (GET {key})': () => ({ path: `${list}/${keyOf(pick())}`, check: (b) => typeof b.processInstanceKey === 'string' }),
    'incidents: first page': () => ({ path: '/api/v1/incidents', check: page }),
    'incidents: filter.state=OPEN': () => ({ path: '/api/v1/incidents?filter.state=OPEN', check: page }),
    'incidents: filter.bpmnProcessId': () => ({ path: '/api/v1/incidents?filter.bpmnProcessId=onboarding', check: page }),
    'incidents: filter.processInstanceKey': () => ({
      path: `/api/v1/incidents?filter.processInstanceKey=${keyOf(pick())}`,
      check: (b) => Array.isArray(b.items),
    }),
    'incidents: cursor page 2': async () => ({ path: withCursor('/api/v1/incidents', await cursorAfter('/api/v1/incidents', 1)), check: page }),
    'definition statistics (latest)': () => ({ path: '/api/v1/process-definitions/order/statistics', check: (b) => b.elements?.length > 0 }),
    'definition statistics (?version=1)': () => ({ path: '/api/v1/process-definitions/order/statistics?version=1', check: (b) => b.elements?.length > 0 }),
    'instance statistics': () => ({ path: `${list}/${keyOf(pick())}/statistics`, check: (b) => b.elements?.length > 0 }),
    'instance history': () => ({ path: `${list}/${keyOf(pick())}/history`, check: page }),
    'completed tasks: first page': () => ({ path: '/api/v1/completed-tasks', check: page }),
    'completed tasks: filter.assignee': () => ({
      path: `/api/v1/completed-tasks?filter.assignee=user-${Math.floor(Math.random() * ASSIGNEES)}`,
      check: page,
    }),
    'completed tasks: cursor page 2': async () => ({
      path: withCursor('/api/v1/completed-tasks', await cursorAfter('/api/v1/completed-tasks', 1)),
      check: page,
    }),
  };

  const figures: Record<string, RouteFigures> = {};
  for (const [name, probe] of Object.entries(routes)) {
    const timings: number[] = [];
    for (let i = 0; i < options.warmup + options.samples; i++) {
      const { path, check } = await probe();
      const began = performance.now();
      const res = await get(path);
      const ms = performance.now() - began;
      if (res.status !== 200 || !check(res.body)) {
        throw new ReadCheckFailed(`${name}: GET ${path} answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      }
      if (i >= options.warmup) timings.push(ms);
    }
    figures[name] = { p50: quantile(timings, 0.5), p99: quantile(timings, 0.99), samples: timings.length };
    log(`bench:reads: ${name}: p50 ${figures[name].p50} ms, p99 ${figures[name].p99} ms`);
  }
  return figures;
}

/** Nearest-rank quantile, in ms with two decimals. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[at] * 100) / 100;
}
