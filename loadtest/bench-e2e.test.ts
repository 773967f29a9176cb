// The end-to-end benchmark's harness is correct: a brief run at a low rate
// starts the Orca server as a child process, completes and verifies every
// instance it counts, reports no errors, ends its report with the JSON line
// in the agreed shape, and leaves no server, data directory, schema or Redis
// key behind. The embedded backend always runs; pg-redis only with
// DATABASE_URL and REDIS_URL (skipped with a message otherwise). Against a
// fake server the checks are shown to bite (an instance that is not
// COMPLETED fails the run, a job handed out twice fails it) and failed
// requests to be counted rather than thrown. No speed figure is asserted here, ever.
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_TYPE, LoadCheckFailed, PROCESS_ID, runLoad, type LoadSettings, type PhasePlan } from './bench-e2e-load.ts';
import { formatE2eReport, parseArgs, phasePlans, runE2eBenchmark, type E2eOptions, type E2eResult } from './bench-e2e.ts';
import { comparisonOrder, formatComparison, runWorkerComparison } from './bench-e2e-compare.ts';
import { WORKER_KINDS } from './bench-e2e-workers.ts';
import { newScratch, servicesFromEnv, type Scratch } from './bench-engine-services.ts';

const realServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!realServices) console.warn('bench-e2e.test: DATABASE_URL and REDIS_URL are not both set; the pg-redis run is skipped.');

const lowLoad: LoadSettings = { rate: 20, concurrency: 4, workers: 2, maxJobs: 32, longPollMs: 200, maxInFlight: 100 };
const brief = (backend: E2eOptions['backend']): E2eOptions => ({ backend, seconds: 1, warmupSeconds: 0.3, partitions: 2, load: lowLoad });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function expectSound(result: E2eResult): void {
  const { load, open, closed } = result;
  for (const phase of [open, closed]) {
    expect(phase.started).toBeGreaterThan(0);
    expect(phase.completed).toBe(phase.started);
    expect(phase.incomplete).toBe(0);
    expect(phase.errors).toBe(0);
    expect(phase.completedInWindow).toBeLessThanOrEqual(phase.completed);
    for (const summary of [phase.startToComplete, phase.activation, phase.startCall, phase.completeCall]) {
      expect(summary.samples).toBe(phase.completed);
      expect(summary.p50).toBeLessThanOrEqual(summary.p95);
      expect(summary.p95).toBeLessThanOrEqual(summary.p99);
      expect(summary.p99).toBeLessThanOrEqual(summary.max);
    }
  }
  expect(open.dropped).toBe(0);
  // Every instance counted (the warm-up's too) was looked up over the API and is COMPLETED.
  expect(load.counted).toBeGreaterThanOrEqual(open.completed + closed.completed);
  expect(load.verified).toBe(load.counted);
  expect(load.unmatchedJobs).toBe(0);
  expect(load.errors).toBe(0);
  expect(load.errorsByKind).toEqual({});
  expect(result.server.exit.code).toBe(0);

  const lines = formatE2eReport(result).split('\n');
  expect(lines[0]).toBe('| model | load | instances/s | start→complete p50 | p95 | p99 | activation p99 | errors |');
  expect(lines.at(-1)).toMatch(/^\{"backend":"(embedded|pg-redis)","max_pi_per_s":\d+,"p99_ms_at_200":\d+,"activation_p99_ms":\d+,"errors":\d+\}$/);
  const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  expect(Object.keys(last)).toEqual(['backend', 'max_pi_per_s', 'p99_ms_at_200', 'activation_p99_ms', 'errors']);
  expect(last.backend).toBe(result.options.backend);
  expect(last.max_pi_per_s).toBe(Math.round(closed.perSecond));
  expect(last.errors).toBe(0);
}

describe('bench:e2e harness against a real Orca server', () => {
  it('embedded: completes and verifies every instance, reports no errors, and removes the server and its data', { timeout: 180_000 }, async () => {
    let server: { pid: number; location: string } | undefined;
    const result = await runE2eBenchmark(brief('embedded'), { onServer: (s) => (server = s) });
    expectSound(result);
    // No Postgres server of its own to probe.
    expect(result.flush).toBeUndefined();
    expect(server).toBeDefined();
    expect(alive(server!.pid)).toBe(false);
    expect(existsSync(server!.location)).toBe(false);
  });

  it('--compare-workers: runs the loop and the client library on one server, each sound, and prints their ratio last', { timeout: 240_000 }, async () => {
    let server: { pid: number; location: string } | undefined;
    const options: E2eOptions = { ...brief('embedded'), compareRounds: 1 };
    const result = await runWorkerComparison(options, { onServer: (s) => (server = s) });
    expect(result.runs.map((r) => r.kind)).toEqual(['loop', 'library']);
    for (const run of result.runs) {
      expect(run.closed.started).toBeGreaterThan(0);
      expect(run.closed.completed).toBe(run.closed.started);
      expect(run.errors).toBe(0);
      expect(run.errorsByKind).toEqual({});
      // Every instance needs at least its start and its completion committed; a worker activates at most 32 jobs at a time.
      expect(run.batchesPerInstance).toBeGreaterThan(0);
      expect(run.batchesPerInstance).toBeLessThanOrEqual(2);
      expect(run.activationsPerInstance).toBeGreaterThanOrEqual(1 / 32);
      // The server and this load generator each spent some CPU on every instance; embedded has no Postgres backends to count.
      expect(run.cpuUsPerInstance.server).toBeGreaterThan(0);
      expect(run.cpuUsPerInstance.client).toBeGreaterThan(0);
      expect(run.cpuUsPerInstance.postgres).toBeNull();
    }
    expect(formatComparison(result)).toMatch(/Mean CPU per instance: loop \d+ µs/);
    expect(result.ratio).toBeCloseTo(result.mean.library / result.mean.loop, 10);
    const last = JSON.parse(formatComparison(result).split('\n').at(-1)!) as Record<string, unknown>;
    expect(Object.keys(last)).toEqual(['backend', 'compare_workers', 'loop_pi_per_s', 'library_pi_per_s', 'library_vs_loop', 'errors']);
    expect(last).toMatchObject({ backend: 'embedded', compare_workers: true, errors: 0 });
    expect(alive(server!.pid)).toBe(false);
    expect(existsSync(server!.location)).toBe(false);
  });

  describe.skipIf(!realServices)('pg-redis (needs DATABASE_URL and REDIS_URL)', () => {
    const scratches: Scratch[] = [];
    afterAll(async () => {
      const services = servicesFromEnv();
      const client = new pg.Client({ connectionString: services.databaseUrl });
      await client.connect();
      const redis = new Redis(services.redisUrl);
      try {
        for (const scratch of scratches) {
          const { rows } = await client.query('select 1 from pg_namespace where nspname = $1', [scratch.schema]);
          expect(rows).toEqual([]);
          expect(await redis.keys(`${scratch.orcaPrefix}*`)).toEqual([]);
        }
      } finally {
        await client.end();
        redis.disconnect();
      }
    });

    it('completes and verifies every instance, reports no errors, and drops its schema and keys', { timeout: 180_000 }, async () => {
      const scratch = newScratch();
      scratches.push(scratch);
      let pid: number | undefined;
      const result = await runE2eBenchmark(brief('pg-redis'), { scratch, onServer: (s) => (pid = s.pid) });
      expectSound(result);
      // Beside the load, what a durable commit waited for the disk in each phase.
      for (const phase of ['open', 'closed'] as const) {
        expect(result.flush?.[phase].commit.samples).toBeGreaterThan(0);
        expect(result.flush?.[phase].commit.p50).toBeGreaterThan(0);
        expect(result.flush?.[phase].checkpoints).toBeGreaterThanOrEqual(0);
      }
      expect(formatE2eReport(result)).toMatch(/^Postgres flush probe .*: open p50 [\d.]+ ms, .*checkpoints begun; closed p50 /m);
      expect(alive(pid!)).toBe(false);
    });
  });
});

/**
 * Just enough of Orca's API for the load generator: deploy, start, activate
 * (each started instance's job once, at once), complete, and the instance
 * list the verification reads. `state` says what the list reports;
 * `failStart` answers some starts 503; `handOutTwice` offers the first job again.
 */
async function fakeOrca(behaviour: { state?: string; failStart?: (n: number) => boolean; handOutTwice?: boolean }) {
  const queued: { key: string; processInstanceKey: string }[] = [];
  const instances = new Map<string, string>();
  let starts = 0;
  let repeated = false;
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/api/v1/process-definitions') return send(res, 200, { id: PROCESS_ID, deployments: [] });
      if (url.pathname === '/api/v1/process-instances' && req.method === 'POST') {
        if (behaviour.failStart?.(++starts)) return send(res, 503, { title: 'busy' });
        const key = String(1000 + instances.size);
        instances.set(key, new Date().toISOString());
        queued.push({ key: `j${key}`, processInstanceKey: key });
        return send(res, 201, { processInstanceKey: key, bpmnProcessId: PROCESS_ID, version: 1, state: 'ACTIVE' });
      }
      if (url.pathname === '/api/v1/process-instances') {
        const items = [...instances].map(([key, createdAt]) => ({ processInstanceKey: key, createdAt, state: behaviour.state ?? 'COMPLETED' }));
        return send(res, 200, { items: behaviour.state === undefined ? items : [], nextCursor: null });
      }
      if (url.pathname.startsWith('/api/v1/process-instances/')) {
        const key = url.pathname.split('/').at(-1)!;
        return send(res, 200, { processInstanceKey: key, createdAt: instances.get(key), state: behaviour.state ?? 'COMPLETED' });
      }
      if (url.pathname === '/api/v1/jobs/activate') {
        const jobs = queued.splice(0, 32).map((j) => ({ ...j, type: JOB_TYPE }));
        if (behaviour.handOutTwice && !repeated && jobs.length > 0) {
          repeated = true;
          queued.push(jobs[0]);
        }
        // A short long poll when there is nothing, so the worker neither sleeps 1–5 s nor spins.
        if (jobs.length === 0) return void setTimeout(() => send(res, 200, { jobs }), 20);
        return send(res, 200, { jobs });
      }
      if (url.pathname.endsWith('/complete')) return send(res, 204);
      return send(res, 404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('bench:e2e checks, against a fake server', () => {
  const fastSettings: LoadSettings = { ...lowLoad, rate: 50, workers: 1, longPollMs: 20 };
  const plans: PhasePlan[] = [{ name: 'open', model: 'open', seconds: 0.3 }];

  it('fails the run when an instance whose completion was acknowledged is not COMPLETED', { timeout: 30_000 }, async () => {
    const fake = await fakeOrca({ state: 'ACTIVE' });
    try {
      const failure: unknown = await runLoad(fake.baseUrl, 'key', fastSettings, plans).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(LoadCheckFailed);
      expect((failure as Error).message).toMatch(/15 of 15 instances whose job completion was acknowledged are not COMPLETED: \d+ \(ACTIVE\)/);
    } finally {
      await fake.close();
    }
  });

  it.each(WORKER_KINDS)('fails the run when a job is handed out twice (%s workers)', { timeout: 30_000 }, async (workerKind) => {
    const fake = await fakeOrca({ handOutTwice: true });
    try {
      await expect(runLoad(fake.baseUrl, 'key', { ...fastSettings, workerKind }, plans)).rejects.toThrow(/handed out twice/);
    } finally {
      await fake.close();
    }
  });

  it('counts failed requests by kind instead of stopping', { timeout: 30_000 }, async () => {
    const fake = await fakeOrca({ failStart: (n) => n % 5 === 0 });
    try {
      const result = await runLoad(fake.baseUrl, 'key', fastSettings, plans);
      const failed = result.errorsByKind['start 503'];
      expect(failed).toBeGreaterThan(0);
      expect(result.errors).toBe(failed);
      expect(result.phases[0].errors).toBe(failed);
      expect(result.verified).toBe(result.counted);
      expect(result.phases[0].completed).toBe(result.phases[0].started);
    } finally {
      await fake.close();
    }
  });
});

describe('bench:e2e flags', () => {
  it('parses its flags and rejects anything else', () => {
    const defaults = parseArgs([]);
    expect(defaults).toMatchObject({ backend: 'embedded', seconds: 10, warmupSeconds: 2, partitions: 8 });
    expect(defaults.load).toEqual({ rate: 200, concurrency: 256, workers: 4, maxJobs: 32, longPollMs: 1_000, maxInFlight: 1_000 });
    const options = parseArgs(['--backend=pg-redis', '--seconds=4', '--rate=150', '--concurrency=32', '--workers=2', '--long-poll-ms=0', '--cpu-prof=/tmp/p']);
    expect(options).toMatchObject({ backend: 'pg-redis', seconds: 4, warmupSeconds: 1, cpuProfDir: '/tmp/p' });
    expect(options.load).toMatchObject({ rate: 150, concurrency: 32, workers: 2, longPollMs: 0 });
    expect(phasePlans(parseArgs(['--warmup=0'])).map((p) => p.name)).toEqual(['open', 'closed']);
    expect(phasePlans(defaults).map((p) => p.name)).toEqual(['warm-up', 'open', 'closed']);
    expect(() => parseArgs(['--backend=sqlite'])).toThrow(/Unknown or malformed/);
    expect(() => parseArgs(['--seconds=0'])).toThrow(/malformed/);
    expect(() => parseArgs(['--workers=1.5'])).toThrow(/malformed/);
    expect(() => parseArgs(['--fast'])).toThrow(/Unknown or malformed/);
    expect(defaults.telemetry).toBeUndefined();
    expect(parseArgs(['--telemetry=metrics', '--rounds=5'])).toMatchObject({ telemetry: 'metrics', rounds: 5 });
    expect(parseArgs(['--telemetry=off']).telemetry).toBe('off');
    expect(defaults.load.loopKeys).toBeUndefined();
    expect(parseArgs(['--compare-workers', '--loop-keys']).load.loopKeys).toBe(true);
    expect(() => parseArgs(['--loop-keys=yes'])).toThrow(/Unknown or malformed/);
    expect(parseArgs(['--telemetry=traces']).telemetry).toBe('traces');
    expect(() => parseArgs(['--telemetry=traced'])).toThrow(/Unknown or malformed/);
    expect(() => parseArgs(['--rounds=0'])).toThrow(/malformed/);
  });

  it('chooses the workers: the loop by default, the client library, or both compared', () => {
    expect(parseArgs([]).load.workerKind).toBeUndefined();
    expect(parseArgs([]).compareRounds).toBeUndefined();
    expect(parseArgs(['--workers=library']).load).toMatchObject({ workerKind: 'library', workers: 4 });
    expect(parseArgs(['--workers=2', '--worker-kind=loop']).load).toMatchObject({ workerKind: 'loop', workers: 2 });
    expect(parseArgs(['--compare-workers']).compareRounds).toBe(2);
    expect(parseArgs(['--compare-workers', '--rounds=3']).compareRounds).toBe(3);
    expect(comparisonOrder(2)).toEqual([
      { round: 1, kind: 'loop' },
      { round: 1, kind: 'library' },
      { round: 2, kind: 'library' },
      { round: 2, kind: 'loop' },
    ]);
    expect(() => parseArgs(['--workers=threads'])).toThrow(/malformed/);
    expect(() => parseArgs(['--compare-workers=yes'])).toThrow(/malformed/);
  });
});
