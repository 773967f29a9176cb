// `npm run bench:mcp`: is the MCP endpoint a fair second door to the engine?
// Starts an Orca server as a child process (real Postgres and Redis when
// DATABASE_URL is set, else the embedded default), deploys one process per
// interface, then in one run has `concurrency` loops start an instance,
// activate its job and complete it, through REST and through the MCP tools
// (2026-07-28 revision), in alternating rounds. By default both sides are
// lean HTTP clients on undici pools (MCP as the JSON-RPC the official v2
// client sends, copied from one real call: bench-mcp-lean.ts), so the load
// generator takes little of the CPU the server needs; --client=sdk drives
// REST with fetch and MCP with the SDK's Client instead. Reports per-call p50/p99, instances per second, the server's CPU
// per instance (from /proc, a count that load on the machine does not
// inflate much) and the MCP ÷ REST rate; goal ≥ 0.5 (issue #18). Every
// instance is checked COMPLETED at the end. The last line is JSON.
//
// Flags: --instances=N per interface and round (default 300), --rounds=N (2),
// --concurrency=N (8), --partitions=N (4), --client=lean|sdk (lean).
import { processCpuMs } from './process-cpu.ts';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Pool } from 'undici';
import { startServer, type Backend, type OrcaServer } from './bench-e2e-server.ts';
import { messageOf, servicesFromEnv } from './bench-engine-services.ts';
import { leanMcp, recordingFetch, templateFrom } from './bench-mcp-lean.ts';
import { oneTaskModel } from './one-task-model.ts';

export interface McpBenchOptions {
  instances: number;
  rounds: number;
  concurrency: number;
  partitions: number;
  /** 'lean': undici pools on both sides (default); 'sdk': fetch for REST, the SDK's Client for MCP. */
  client?: 'lean' | 'sdk';
  /** Node flags for the server, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/p'] to see where its time goes. */
  nodeFlags?: string[];
  log?: (line: string) => void;
}

type Call = 'start' | 'activate' | 'complete';
const CALLS: Call[] = ['start', 'activate', 'complete'];

export interface DoorFigures {
  instances: number;
  seconds: number;
  perSecond: number;
  /** Server CPU (user + system) per instance, ms; null where /proc is unreadable. */
  serverCpuMsPerInstance: number | null;
  calls: Record<Call, { p50: number; p99: number; count: number }>;
}

export interface McpBenchResult {
  backend: Backend;
  client: 'lean' | 'sdk';
  concurrency: number;
  rest: DoorFigures;
  mcp: DoorFigures;
  /** MCP instances per second ÷ REST's. */
  ratio: number;
}

const USAGE = 'usage: bench:mcp [--instances=N] [--rounds=N] [--concurrency=N] [--partitions=N] [--client=lean|sdk]';

export function parseArgs(argv: string[]): McpBenchOptions {
  const options: McpBenchOptions = { instances: 300, rounds: 2, concurrency: 8, partitions: 4 };
  for (const arg of argv) {
    const client = /^--client=(lean|sdk)$/.exec(arg);
    if (client !== null) {
      options.client = client[1] as 'lean' | 'sdk';
      continue;
    }
    const match = /^--(instances|rounds|concurrency|partitions)=([0-9_,]+)$/.exec(arg);
    if (match === null) throw new Error(`bench:mcp: unknown argument ${arg}\n${USAGE}`);
    const value = Number(match[2].replace(/[_,]/g, ''));
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`bench:mcp: --${match[1]} must be a positive integer`);
    options[match[1] as 'instances' | 'rounds' | 'concurrency' | 'partitions'] = value;
  }
  return options;
}

/** One interface's three calls; each returns what the next needs. */
interface Door {
  start(): Promise<void>;
  /** A job's key, or undefined when none was waiting. */
  activate(): Promise<string | undefined>;
  complete(jobKey: string): Promise<void>;
}

type Post = (path: string, body: unknown) => Promise<{ status: number; text: string }>;

function fetchPost(server: OrcaServer): Post {
  return async (path, body) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
}

function poolPost(server: OrcaServer, pool: Pool): Post {
  return async (path, body) => {
    const res = await pool.request({
      method: 'POST',
      path,
      headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
}

function restDoor(send: Post, processId: string): Door {
  const post = async (path: string, body: unknown, expected: number) => {
    const { status, text } = await send(path, body);
    if (status !== expected) throw new Error(`bench:mcp: POST ${path} answered ${status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  return {
    start: async () => void (await post('/api/v1/process-instances', { bpmnProcessId: processId, variables: { n: 1 } }, 201)),
    activate: async () => (await post('/api/v1/jobs/activate', { type: `${processId}-work`, maxJobsToActivate: 1, worker: 'bench' }, 200)).jobs[0]?.key,
    complete: async (jobKey) => void (await post(`/api/v1/jobs/${jobKey}/complete`, { variables: { done: true } }, 204)),
  };
}

type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

function sdkCaller(client: Client): ToolCaller {
  return async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`bench:mcp: ${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };
}

function mcpDoor(callTool: ToolCaller, sessionId: string, processId: string): Door {
  const call = async (name: string, args: Record<string, unknown>) =>
    (await callTool(name, { sessionId, ...args })) as Record<string, unknown> & { jobs?: { key: string }[] };
  return {
    start: async () => void (await call('orca.start_instance', { bpmnProcessId: processId, variables: { n: 1 } })),
    activate: async () => (await call('orca.activate_jobs', { type: `${processId}-work`, maxJobsToActivate: 1, worker: 'bench' })).jobs?.[0]?.key,
    complete: async (jobKey) => void (await call('orca.complete_job', { jobKey, variables: { done: true } })),
  };
}

interface Samples {
  instances: number;
  seconds: number;
  cpuMs: number | null;
  latencies: Record<Call, number[]>;
}

async function runRound(door: Door, instances: number, concurrency: number, pid: number, into: Samples): Promise<void> {
  let left = instances;
  const timed = async <T>(call: Call, run: () => Promise<T>): Promise<T> => {
    const began = performance.now();
    const value = await run();
    into.latencies[call].push(performance.now() - began);
    return value;
  };
  const cpuBefore = processCpuMs(pid);
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left--;
        await timed('start', () => door.start());
        // The loop may take another loop's job: every started instance gets exactly one completion all the same.
        let jobKey: string | undefined;
        while ((jobKey = await timed('activate', () => door.activate())) === undefined) await new Promise((r) => setTimeout(r, 2));
        await timed('complete', () => door.complete(jobKey!));
      }
    }),
  );
  into.seconds += (performance.now() - began) / 1000;
  into.instances += instances;
  const cpuAfter = processCpuMs(pid);
  into.cpuMs = into.cpuMs === null || cpuBefore === null || cpuAfter === null ? null : into.cpuMs + (cpuAfter - cpuBefore);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 100) / 100;
}

function figures(samples: Samples): DoorFigures {
  const calls = Object.fromEntries(
    CALLS.map((call) => {
      const sorted = [...samples.latencies[call]].sort((a, b) => a - b);
      return [call, { p50: percentile(sorted, 50), p99: percentile(sorted, 99), count: sorted.length }];
    }),
  ) as DoorFigures['calls'];
  return {
    instances: samples.instances,
    seconds: Math.round(samples.seconds * 100) / 100,
    perSecond: Math.round((samples.instances / samples.seconds) * 10) / 10,
    serverCpuMsPerInstance: samples.cpuMs === null ? null : Math.round((samples.cpuMs / samples.instances) * 100) / 100,
    calls,
  };
}

const newSamples = (): Samples => ({ instances: 0, seconds: 0, cpuMs: 0, latencies: { start: [], activate: [], complete: [] } });

async function completedCount(server: OrcaServer, processId: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query: string = `filter.bpmnProcessId=${processId}&filter.state=COMPLETED&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await fetch(`${server.baseUrl}/api/v1/process-instances?${query}`, { headers: { 'x-api-key': server.apiKey } });
    const page = (await res.json()) as { items: unknown[]; nextCursor: string | null };
    count += page.items.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return count;
}

export async function runMcpBenchmark(options: McpBenchOptions, env: NodeJS.ProcessEnv = process.env): Promise<McpBenchResult> {
  const log = options.log ?? (() => {});
  const backend: Backend = env.DATABASE_URL ? 'pg-redis' : 'embedded';
  const server = await startServer({
    backend,
    services: backend === 'pg-redis' ? servicesFromEnv(env) : undefined,
    partitions: options.partitions,
    nodeFlags: options.nodeFlags,
  });
  const stopOnSignal = () => void server.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  const clientKind = options.client ?? 'lean';
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const recording = recordingFetch();
  const restPool = new Pool(server.baseUrl, { connections: options.concurrency, pipelining: 1 });
  let lean: ReturnType<typeof leanMcp> | undefined;
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.baseUrl), { fetch: recording.fetch }));
    const tool = sdkCaller(client);
    const { token } = (await tool('orca.register', { apiKey: server.apiKey, name: 'bench' })) as { token: string };
    const { sessionId } = (await tool('orca.connect', { token })) as { sessionId: string };
    for (const id of ['bench-rest', 'bench-mcp'])
      await tool('orca.deploy_process', { sessionId, xml: oneTaskModel(id, `${id}-work`), resourceName: `${id}.bpmn` });
    if (clientKind === 'lean') lean = leanMcp(server.baseUrl, await templateFrom(client, recording, sessionId), options.concurrency);
    const doors = {
      rest: restDoor(lean === undefined ? fetchPost(server) : poolPost(server, restPool), 'bench-rest'),
      mcp: mcpDoor(lean === undefined ? tool : lean.call, sessionId, 'bench-mcp'),
    };
    const samples = { rest: newSamples(), mcp: newSamples() };
    // A short warm-up of both, unmeasured: JIT and connection pools.
    const warm = Math.min(20, options.instances);
    await runRound(doors.rest, warm, options.concurrency, server.pid, newSamples());
    await runRound(doors.mcp, warm, options.concurrency, server.pid, newSamples());
    for (let round = 1; round <= options.rounds; round++) {
      for (const door of round % 2 === 1 ? (['rest', 'mcp'] as const) : (['mcp', 'rest'] as const)) {
        await runRound(doors[door], options.instances, options.concurrency, server.pid, samples[door]);
        log(`bench:mcp: round ${round} ${door}: ${samples[door].instances} instances so far`);
      }
    }
    const expected = warm + options.instances * options.rounds;
    for (const id of ['bench-rest', 'bench-mcp']) {
      const deadline = Date.now() + 30_000;
      let done = await completedCount(server, id);
      while (done < expected && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        done = await completedCount(server, id);
      }
      if (done !== expected) throw new Error(`bench:mcp: ${id} has ${done} COMPLETED instances, expected ${expected}`);
    }
    const rest = figures(samples.rest);
    const mcp = figures(samples.mcp);
    return { backend, client: clientKind, concurrency: options.concurrency, rest, mcp, ratio: Math.round((mcp.perSecond / rest.perSecond) * 1000) / 1000 };
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    await client.close().catch(() => {});
    await lean?.close().catch(() => {});
    await restPool.close().catch(() => {});
    await server.stop();
  }
}

export function formatMcpReport(result: McpBenchResult): string {
  const lines = [`bench:mcp — ${result.backend}, ${result.client} clients, ${result.concurrency} loops, start → activate → complete, ms per call over HTTP`];
  lines.push(`${'door'.padEnd(5)}  ${'inst/s'.padStart(8)}  ${'cpu ms/inst'.padStart(11)}  ${CALLS.map((c) => `${c} p50/p99`.padStart(20)).join('  ')}`);
  for (const door of ['rest', 'mcp'] as const) {
    const f = result[door];
    const cells = CALLS.map((c) => `${f.calls[c].p50.toFixed(2)} / ${f.calls[c].p99.toFixed(2)}`.padStart(20));
    lines.push(`${door.padEnd(5)}  ${f.perSecond.toFixed(1).padStart(8)}  ${String(f.serverCpuMsPerInstance ?? '-').padStart(11)}  ${cells.join('  ')}`);
  }
  lines.push(`MCP ÷ REST rate: ${result.ratio} (goal ≥ 0.5)`);
  lines.push(JSON.stringify({ bench: 'mcp', ...result }));
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const options = parseArgs(process.argv.slice(2));
    const result = await runMcpBenchmark({ ...options, log: (line) => console.error(line) });
    console.log(formatMcpReport(result));
  } catch (err) {
    console.error(messageOf(err));
    process.exitCode = 1;
  }
}
