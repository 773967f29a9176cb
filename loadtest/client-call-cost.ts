// What a worker's calls cost the process that makes them, apart from any
// server: CPU µs of this process per job completed, against a stub server
// (a child process) that answers an activation with ready-made jobs and a
// completion with 204 at once. Five ways, alternated round by round so a
// neighbour's load falls on all of them alike:
// - `loop`: undici Pool.request per completion, as bench:e2e's hand-written
//   loop sends it (loadtest/bench-e2e-client.ts);
// - `loop-key`: the same with an Idempotency-Key;
// - `client`: OrcaClient.completeJob;
// - `loop-worker`: bench:e2e's loop worker (activate, complete them all, again);
// - `library-worker`: createWorker with bench:e2e's handler.
// The first three complete `--calls` jobs, `--inflight` at a time; the
// workers run until they completed as many. Prints the median µs per job
// of each, and the ratios the client's cost is judged by. `--compare=DIR`
// adds `client` and `library-worker` of another checkout's client/ (another
// version of the library), so two versions are measured in one invocation.
//   npx tsx loadtest/client-call-cost.ts [--calls=20000] [--inflight=32] [--rounds=5] [--only=loop,client] [--compare=DIR]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import * as library from '../client/index.ts';

const WAYS = ['loop', 'loop-key', 'client', 'loop-worker', 'library-worker'] as const;
type Way = (typeof WAYS)[number] | 'client@other' | 'library-worker@other';
type Library = typeof library;

const API_KEY = 'call-cost-key';
const JOB_TYPE = 'call-cost';

/** The stub server: every activation gets `maxJobsToActivate` new jobs, every other POST a 204. */
function serve(): void {
  let next = 1n << 55n;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/api/v1/jobs/activate') {
        response.writeHead(204).end();
        return;
      }
      const { maxJobsToActivate, worker } = JSON.parse(Buffer.concat(chunks).toString()) as { maxJobsToActivate: number; worker: string };
      const jobs = Array.from({ length: maxJobsToActivate }, () => {
        const key = String(next++);
        return {
          key,
          type: JOB_TYPE,
          retries: 3,
          processInstanceKey: key,
          bpmnProcessId: 'one-task',
          processDefinitionVersion: 1,
          elementId: 'work',
          elementInstanceKey: key,
          customHeaders: {},
          variables: { orderId: key, amount: 42 },
          worker,
        };
      });
      const body = JSON.stringify({ jobs });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`${address.port}\n`);
  });
}

function argument(name: string, fallback: number): number {
  const flag = process.argv.find((a) => a.startsWith(`--${name}=`));
  return flag === undefined ? fallback : Number(flag.slice(name.length + 3));
}

/** Runs `one(i)` for i in 0..calls-1, `inflight` at a time. */
async function inFlight(calls: number, inflight: number, one: (i: number) => Promise<unknown>): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < calls) await one(started++);
  };
  await Promise.all(Array.from({ length: inflight }, lane));
}

/** Completes `calls` jobs; returns how many. */
async function completions(way: 'loop' | 'loop-key' | 'client', baseUrl: string, calls: number, inflight: number, lib: Library): Promise<number> {
  if (way === 'client') {
    const orca = new lib.OrcaClient({ url: baseUrl, apiKey: API_KEY });
    await inFlight(calls, inflight, (i) => orca.completeJob(String(1000 + i), { done: true }));
    await orca.close();
    return calls;
  }
  const pool = new Pool(baseUrl, { connections: inflight, pipelining: 1, keepAliveTimeout: 30_000 });
  await inFlight(calls, inflight, async (i) => {
    const headers: Record<string, string> = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
    if (way === 'loop-key') headers['idempotency-key'] = randomUUID();
    const response = await pool.request({
      method: 'POST',
      path: `/api/v1/jobs/${1000 + i}/complete`,
      headers,
      body: JSON.stringify({ variables: { done: true } }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await response.body.text();
  });
  await pool.close();
  return calls;
}

/** bench:e2e's loop worker (bench-e2e-workers.ts), its bookkeeping left out, two of them: until `jobs` are completed; returns how many were. */
async function loopWorkers(baseUrl: string, jobs: number, maxJobs: number): Promise<number> {
  const pool = new Pool(baseUrl, { connections: 2 * (maxJobs + 1), pipelining: 1, keepAliveTimeout: 30_000 });
  let done = 0;
  const call = async (path: string, json: unknown) => {
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(json),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await response.body.text();
    return text === '' ? undefined : (JSON.parse(text) as { jobs: { key: string }[] });
  };
  const worker = async (name: string) => {
    while (done < jobs) {
      const answer = await call('/api/v1/jobs/activate', { type: JOB_TYPE, maxJobsToActivate: maxJobs, worker: name });
      await Promise.all(
        answer!.jobs.map(async (job) => {
          await call(`/api/v1/jobs/${job.key}/complete`, { variables: { done: true } });
          done++;
        }),
      );
    }
  };
  await Promise.all([worker('w0'), worker('w1')]);
  await pool.close();
  return done;
}

/** Two createWorker workers on one client until `jobs` are completed (and stopped, their jobs in hand completed too); returns how many were. */
async function libraryWorkers(baseUrl: string, jobs: number, maxJobs: number, lib: Library): Promise<number> {
  const orca = new lib.OrcaClient({ url: baseUrl, apiKey: API_KEY });
  let done = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const workers = ['w0', 'w1'].map((name) =>
    lib.createWorker({
      client: orca,
      type: JOB_TYPE,
      name,
      maxJobsActive: maxJobs,
      handler: () => ({ done: true }),
      onEvent: (event) => {
        if (event.type === 'job-completed' && ++done >= jobs) finish();
      },
    }),
  );
  await finished;
  await Promise.all(workers.map((w) => w.stop()));
  await orca.close();
  return done;
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  const calls = argument('calls', 20_000);
  const inflight = argument('inflight', 32);
  const rounds = argument('rounds', 5);
  const only = process.argv.find((a) => a.startsWith('--only='));
  const ways: Way[] = only === undefined ? [...WAYS] : (only.slice(7).split(',') as Way[]);
  const compare = process.argv.find((a) => a.startsWith('--compare='));
  const other: Library | undefined =
    compare === undefined ? undefined : ((await import(pathToFileURL(path.resolve(compare.slice(10), 'client/index.ts')).href)) as Library);
  if (other !== undefined) ways.push(...(['client@other', 'library-worker@other'] as const).filter((w) => ways.includes(w.split('@')[0] as Way)));
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  const baseUrl = `http://127.0.0.1:${port}`;
  const run = (way: Way) => {
    const [base, version] = way.split('@') as [(typeof WAYS)[number], string | undefined];
    const lib = version === undefined ? library : other!;
    if (base === 'loop-worker') return loopWorkers(baseUrl, calls, inflight);
    return base === 'library-worker' ? libraryWorkers(baseUrl, calls, inflight, lib) : completions(base, baseUrl, calls, inflight, lib);
  };
  try {
    for (const way of ways) await run(way); // warm-up: JIT, connections
    const perJob = new Map<Way, number[]>(ways.map((w) => [w, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ways : [...ways].reverse();
      for (const way of order) {
        const before = process.cpuUsage();
        const jobs = await run(way);
        const used = process.cpuUsage(before);
        perJob.get(way)!.push((used.user + used.system) / jobs);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const medians = new Map(ways.map((w) => [w, median(perJob.get(w)!)]));
    for (const way of ways) {
      console.log(
        `${way.padEnd(21)} ${medians.get(way)!.toFixed(1)} µs per job (rounds: ${perJob
          .get(way)!
          .map((x) => x.toFixed(1))
          .join(', ')})`,
      );
    }
    const ratio = (a: Way, b: Way) => (medians.has(a) && medians.has(b) ? `${a} ÷ ${b} = ${(medians.get(a)! / medians.get(b)!).toFixed(3)}` : undefined);
    const ratios = [ratio('client', 'loop'), ratio('client', 'loop-key'), ratio('library-worker', 'loop-worker')];
    ratios.push(ratio('client', 'client@other'), ratio('library-worker', 'library-worker@other'));
    console.log(ratios.filter(Boolean).join('; '));
  } finally {
    child.kill();
  }
}

await main();
