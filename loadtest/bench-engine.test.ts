// The engine benchmark's harness is correct: a brief run on real Postgres and
// Redis completes every instance it starts, finds each one COMPLETED in
// Postgres, hands BullMQ the same amount of work, ends its report with the
// JSON line in the agreed shape, and leaves no schema or key behind, also
// when interrupted. It needs real services, so without DATABASE_URL and
// REDIS_URL those cases are skipped (with a message). The pure parts (argument
// parsing, the profile summariser, refusing unreachable services) always run.
// No speed figure is asserted here, ever.
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { formatCaseReport } from './bench-engine-cases.ts';
import { formatMessageReport } from './bench-engine-messages.ts';
import { formatEngineReport, parseArgs, runCases, runEngineBenchmark, runMessages, type EngineBenchOptions } from './bench-engine.ts';
import { checkServices, newScratch, ServicesUnavailable, servicesFromEnv, type Scratch } from './bench-engine-services.ts';
import { summariseProfile, type CpuProfile } from './cpu-profile-top.ts';

const realServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!realServices) console.warn('bench-engine.test: DATABASE_URL and REDIS_URL are not both set; the runs against real services are skipped.');

const brief: EngineBenchOptions = {
  seconds: 1,
  warmupSeconds: 0.2,
  settings: { partitions: 2, concurrency: 8, workers: 2, activateMax: 32, longPollMs: 100 },
};

async function leftovers(scratch: Scratch): Promise<{ schemas: number; keys: string[] }> {
  const services = servicesFromEnv();
  const client = new pg.Client({ connectionString: services.databaseUrl });
  await client.connect();
  const redis = new Redis(services.redisUrl);
  try {
    const { rows } = await client.query('select 1 from pg_namespace where nspname = $1', [scratch.schema]);
    const keys = [...(await redis.keys(`${scratch.orcaPrefix}*`)), ...(await redis.keys(`${scratch.bullmqPrefix}:*`))];
    return { schemas: rows.length, keys };
  } finally {
    await client.end();
    redis.disconnect();
  }
}

describe.skipIf(!realServices)('bench:engine harness on real Postgres and Redis (needs DATABASE_URL and REDIS_URL)', () => {
  const scratches: Scratch[] = [];
  afterAll(async () => {
    for (const scratch of scratches) expect(await leftovers(scratch)).toEqual({ schemas: 0, keys: [] });
  });

  it('--messages: every instance waits on its message, the publish completes it, all COMPLETED in Postgres', { timeout: 60_000 }, async () => {
    const scratch = newScratch();
    scratches.push(scratch);
    const run = await runMessages(brief, undefined, servicesFromEnv(), scratch);
    expect(run.completedInWindow).toBeGreaterThan(0);
    expect(run.verifiedCompleted).toBeGreaterThanOrEqual(run.completedInWindow);
    expect(run.latency.p50).toBeLessThanOrEqual(run.latency.p99);
    expect(JSON.parse(formatMessageReport(run).split('\n').at(-1)!)).toEqual({ message_pi_per_s: expect.any(Number), p99_ms: expect.any(Number) });
  });

  it('--signals: every instance waits on its signal, the broadcast completes it, all COMPLETED in Postgres', { timeout: 60_000 }, async () => {
    const scratch = newScratch();
    scratches.push(scratch);
    const run = await runMessages({ ...brief, signals: true }, undefined, servicesFromEnv(), scratch);
    expect(run.event).toBe('signal');
    expect(run.completedInWindow).toBeGreaterThan(0);
    expect(run.verifiedCompleted).toBeGreaterThanOrEqual(run.completedInWindow);
    expect(JSON.parse(formatMessageReport(run).split('\n').at(-1)!)).toEqual({ signal_pi_per_s: expect.any(Number), p99_ms: expect.any(Number) });
  });

  it('--cases: every case it starts completes after its two tasks, all COMPLETED in Postgres', { timeout: 60_000 }, async () => {
    const scratch = newScratch();
    scratches.push(scratch);
    const run = await runCases(brief, undefined, servicesFromEnv(), scratch);
    expect(run.completedInWindow).toBeGreaterThan(0);
    expect(run.verifiedCompleted).toBeGreaterThanOrEqual(run.completedInWindow);
    expect(JSON.parse(formatCaseReport(run).split('\n').at(-1)!)).toEqual({
      case_per_s: expect.any(Number),
      p99_ms: expect.any(Number),
      cpu_us_per_case: expect.any(Number),
    });
  });

  it('completes every instance it starts, verifies them in Postgres, and ends with the JSON line', { timeout: 60_000 }, async () => {
    const scratch = newScratch();
    scratches.push(scratch);
    const result = await runEngineBenchmark(brief, { scratch });
    const { orca, bullmq } = result;

    expect(orca.completedInWindow).toBeGreaterThan(0);
    expect(orca.completed).toBe(orca.started);
    expect(orca.verifiedCompleted).toBe(orca.completed);
    expect(orca.completedInWindow).toBeLessThanOrEqual(orca.completed);
    expect(orca.latency.samples).toBeGreaterThan(0);
    expect(orca.latency.p50).toBeLessThanOrEqual(orca.latency.p99);
    expect(orca.latency.p99).toBeLessThanOrEqual(orca.latency.max);
    expect(bullmq.jobs).toBe(orca.completedInWindow);
    // Bulk add, then process: the rate spans both phases.
    expect(bullmq.addSeconds).toBeGreaterThan(0);
    expect(bullmq.processSeconds).toBeGreaterThan(0);
    expect(bullmq.seconds).toBeCloseTo(bullmq.addSeconds + bullmq.processSeconds, 6);

    const lines = formatEngineReport(result).split('\n');
    expect(lines[0]).toBe('| engine | rate | p50 | p99 |');
    const last = JSON.parse(lines.at(-1)!) as Record<string, number>;
    expect(Object.keys(last)).toEqual(['orca_pi_per_s', 'bullmq_jobs_per_s', 'ratio', 'p99_ms']);
    for (const key of ['orca_pi_per_s', 'bullmq_jobs_per_s', 'p99_ms']) expect(Number.isInteger(last[key])).toBe(true);
    expect(Math.round(last.ratio * 100)).toBeCloseTo(last.ratio * 100, 6);
    expect(last.orca_pi_per_s).toBe(Math.round(orca.perSecond));
    expect(lines.at(-1)).toMatch(/^\{"orca_pi_per_s":\d+,"bullmq_jobs_per_s":\d+,"ratio":\d+(\.\d{1,2})?,"p99_ms":\d+\}$/);
  });

  it('cleans up after an interrupted run and reports the interruption', { timeout: 60_000 }, async () => {
    const scratch = newScratch();
    scratches.push(scratch);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_500);
    await expect(runEngineBenchmark({ ...brief, seconds: 30 }, { scratch, signal: controller.signal })).rejects.toThrow(/interrupted/);
  });
});

describe('bench:engine pure parts', () => {
  it('refuses to run when a service does not answer, naming it', async () => {
    const services = { databaseUrl: 'postgres://postgres@127.0.0.1:1/test', redisUrl: 'redis://127.0.0.1:1' };
    const refused = checkServices(services, 1_000);
    await expect(refused).rejects.toThrow(ServicesUnavailable);
    await expect(refused).rejects.toThrow(/PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/test[\s\S]*Redis at redis:\/\/127\.0\.0\.1:1/);
  });

  it('parses its flags and rejects anything else', () => {
    const defaults = parseArgs([]);
    expect(defaults.seconds).toBe(10);
    expect(defaults.warmupSeconds).toBe(2);
    const options = parseArgs(['--seconds=8', '--warmup=0.5', '--partitions=4', '--concurrency=64', '--workers=2']);
    expect(options).toMatchObject({ seconds: 8, warmupSeconds: 0.5, settings: { partitions: 4, concurrency: 64, workers: 2 } });
    expect(parseArgs(['--seconds=1']).warmupSeconds).toBe(0.25);
    expect(() => parseArgs(['--seconds=0'])).toThrow(/malformed/);
    expect(() => parseArgs(['--workers=1.5'])).toThrow(/malformed/);
    expect(() => parseArgs(['--fast'])).toThrow(/Unknown or malformed/);
    expect(parseArgs(['--messages', '--concurrency=16'])).toMatchObject({ messages: true, settings: { concurrency: 16 } });
    expect(parseArgs([])).not.toHaveProperty('messages');
    expect(parseArgs(['--signals'])).toMatchObject({ signals: true });
    expect(() => parseArgs(['--signals', '--messages'])).toThrow(/pick one/);
    expect(parseArgs(['--cases'])).toMatchObject({ cases: true });
  });

  it('sums self time per function and per file from the sample deltas', () => {
    const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
        { id: 2, callFrame: frame('(idle)') },
        { id: 3, callFrame: frame('commit', 'file:///x/node_modules/pg/lib/client.js', 9) },
        { id: 4, callFrame: frame('parse', 'file:///x/node_modules/pg/lib/result.js', 1) },
      ],
      startTime: 0,
      endTime: 10_000,
      samples: [2, 3, 3, 4],
      timeDeltas: [1_000, 4_000, 3_000, 2_000],
    };
    const summary = summariseProfile(profile);
    expect(summary.totalMs).toBe(10);
    expect(summary.functions.map((f) => [f.name, f.ms])).toEqual([
      ['commit (npm:pg:10)', 7],
      ['parse (npm:pg:2)', 2],
      ['(idle)', 1],
    ]);
    expect(summary.files[0]).toMatchObject({ name: 'npm:pg', ms: 9, percent: 90 });
  });
});
