// Runs the k6 scripts of loadtest/k6 in Node, briefly, against a real Orca,
// since there is no k6 binary here: a copy of the scripts in a temporary
// directory has its `k6…` imports pointed at the stand-ins in
// loadtest/k6-shim, then each script's setup() and a few iterations of each
// of its scenarios run (arrival-rate starters first, then the VUs that work
// the jobs or tasks off), in the order start-instances, job-workers,
// end-to-end, task-list-users (completing over REST, then over GraphQL). The run fails unless no request failed (as
// k6 counts http_req_failed), no check failed, every job and task the
// scripts started was completed, and every instance is COMPLETED over the
// API. This exercises the scripts' API calls, bodies and bookkeeping; k6's
// own runtime (executors, thresholds) is not emulated.
//   npx tsx loadtest/k6-smoke.ts                 # starts an embedded Orca itself
//   BASE_URL=… API_KEY=… npx tsx loadtest/k6-smoke.ts
// Prints one line per script and, last, {"scripts","requests","failed_requests","failed_checks"}.
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, type OrcaServer } from './bench-e2e-server.ts';
import { messageOf } from './bench-engine-services.ts';
import { resetState, state } from './k6-shim/state.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const K6_DIR = path.join(HERE, 'k6');
const SHIMS: Record<string, string> = {
  k6: 'k6.ts',
  'k6/http': 'http.ts',
  'k6/metrics': 'metrics.ts',
  'k6/execution': 'execution.ts',
};
/** Iterations of an arrival-rate scenario: instances (or tasks) to work off. */
const ARRIVALS = 6;
/** Most iterations of a VU scenario; it stops as soon as the work is done. */
const MAX_ROUNDS = 60;

interface Scenario {
  executor: string;
  exec?: string;
}

interface ScriptModule {
  options: { scenarios: Record<string, Scenario>; thresholds: Record<string, string[]> };
  setup?: () => unknown;
  default: (data: unknown) => void;
  [exec: string]: unknown;
}

/**
 * Per run: the script, env for its init, and how to tell its VU scenarios are
 * done. A script runs twice under different names (`?graphql`): a new URL is a
 * new module, evaluated again with the new env (its lib modules are shared).
 */
const PLAN: { script: string; env: Record<string, string>; done: () => boolean }[] = [
  { script: 'start-instances.js', env: {}, done: () => true },
  // SPEC.md polling (sleeps capped by the shim); it works off the instances start-instances.js left.
  { script: 'job-workers.js', env: { LONG_POLL_MS: '0' }, done: () => metricCount('orca_jobs_completed') >= ARRIVALS },
  { script: 'end-to-end.js', env: { LONG_POLL_MS: '100' }, done: () => metricCount('orca_jobs_completed') >= ARRIVALS },
  { script: 'task-list-users.js', env: { THINK_TIME_S: '0' }, done: () => metricCount('orca_tasks_completed') >= ARRIVALS },
  { script: 'task-list-users.js?graphql', env: { THINK_TIME_S: '0', COMPLETE_VIA: 'graphql' }, done: () => metricCount('orca_tasks_completed') >= ARRIVALS },
];

const metricCount = (name: string) => (state.metrics.get(name) ?? []).reduce((sum, v) => sum + v, 0);

export interface SmokeResult {
  scripts: {
    script: string;
    requests: number;
    /** The distinct `name` tags of its requests: which API calls it made. */
    calls: string[];
    failedRequests: string[];
    failedChecks: string[];
    /** Samples per custom metric. */
    metrics: Record<string, number>;
  }[];
  /** Instances of each load-test process by state, read over the API at the end. */
  instances: Record<string, Record<string, number>>;
}

export async function runSmoke(baseUrl: string, apiKey: string): Promise<SmokeResult> {
  const copy = await copyWithShims();
  try {
    const results: SmokeResult['scripts'] = [];
    for (const { script, env, done } of PLAN) {
      resetState();
      (globalThis as Record<string, unknown>).__ENV = { BASE_URL: baseUrl, API_KEY: apiKey, DURATION: '10s', RATE: '5', ...env };
      // Synchronous, as k6's open() is; relative to the script, which sits at the copy's top.
      (globalThis as Record<string, unknown>).open = (file: string) => readFileSync(path.resolve(copy, file), 'utf8');
      const [file, variant] = script.split('?');
      const url = pathToFileURL(path.join(copy, file));
      if (variant !== undefined) url.search = variant;
      const module = (await import(url.href)) as ScriptModule;
      const data = module.setup?.();
      const scenarios = Object.values(module.options.scenarios);
      const run = (scenario: Scenario, vu: number, iteration: number) => {
        const fn = scenario.exec === undefined || scenario.exec === 'default' ? module.default : (module[scenario.exec] as (d: unknown) => void);
        Object.assign(state, { vu, iteration });
        fn(data);
      };
      for (const scenario of scenarios.filter((s) => s.executor === 'constant-arrival-rate')) for (let i = 0; i < ARRIVALS; i++) run(scenario, 1 + (i % 3), i);
      for (const scenario of scenarios.filter((s) => s.executor === 'constant-vus')) {
        for (let round = 0; round < MAX_ROUNDS && !done(); round++) run(scenario, 1 + (round % 2), round);
      }
      results.push({
        script,
        requests: state.requests.length,
        calls: [...new Set(state.requests.map((r) => r.tags.name ?? '(untagged)'))].sort(),
        failedRequests: state.requests.filter((r) => r.failed).map((r) => `${r.method} ${r.url} → ${r.status}`),
        failedChecks: state.checks.filter((c) => !c.passed).map((c) => c.name),
        metrics: Object.fromEntries([...state.metrics].map(([name, samples]) => [name, samples.length])),
      });
    }
    return { scripts: results, instances: await instanceStates(baseUrl, apiKey) };
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/** loadtest/k6 in a temporary directory, with `from 'k6…'` pointing at loadtest/k6-shim. */
async function copyWithShims(): Promise<string> {
  const copy = await mkdtemp(path.join(tmpdir(), 'orca-k6-smoke-'));
  await cp(K6_DIR, copy, { recursive: true });
  // The copy sits outside the repository: say its .js files are ES modules.
  await writeFile(path.join(copy, 'package.json'), '{"type":"module"}\n');
  for (const dir of [copy, path.join(copy, 'lib')]) {
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.js'))) {
      const full = path.join(dir, file);
      const source = await readFile(full, 'utf8');
      const rewritten = source.replace(/from '(k6(?:\/[a-z-]+)?)'/g, (_match, specifier: string) => {
        const shim = SHIMS[specifier];
        if (shim === undefined) throw new Error(`${file} imports ${specifier}, which loadtest/k6-shim does not stand in for`);
        return `from '${pathToFileURL(path.join(HERE, 'k6-shim', shim)).href}'`;
      });
      await writeFile(full, rewritten);
    }
  }
  return copy;
}

async function instanceStates(baseUrl: string, apiKey: string): Promise<SmokeResult['instances']> {
  const out: SmokeResult['instances'] = {};
  for (const process of ['orca-load-service-task', 'orca-load-user-task']) {
    const counts: Record<string, number> = {};
    const res = await fetch(`${baseUrl}/api/v1/process-instances?filter.bpmnProcessId=${process}&limit=1000`, { headers: { 'x-api-key': apiKey } });
    const body = (await res.json()) as { items: { state: string }[] };
    for (const item of body.items) counts[item.state] = (counts[item.state] ?? 0) + 1;
    out[process] = counts;
  }
  return out;
}

/** Every way the run can be wrong, as sentences; empty when it is sound. */
export function smokeProblems(result: SmokeResult): string[] {
  const problems: string[] = [];
  for (const s of result.scripts) {
    if (s.requests === 0) problems.push(`${s.script}: made no request`);
    if (s.failedRequests.length > 0) problems.push(`${s.script}: failed requests: ${s.failedRequests.slice(0, 5).join('; ')}`);
    if (s.failedChecks.length > 0) problems.push(`${s.script}: failed checks: ${[...new Set(s.failedChecks)].join('; ')}`);
  }
  const service = result.instances['orca-load-service-task'] ?? {};
  const tasks = result.instances['orca-load-user-task'] ?? {};
  // start-instances.js and end-to-end.js each start ARRIVALS; each task-list-users.js run feeds ARRIVALS.
  if (service.COMPLETED !== 2 * ARRIVALS || Object.keys(service).length !== 1)
    problems.push(`service-task instances by state: ${JSON.stringify(service)}, expected ${2 * ARRIVALS} COMPLETED`);
  if (tasks.COMPLETED !== 2 * ARRIVALS || Object.keys(tasks).length !== 1)
    problems.push(`user-task instances by state: ${JSON.stringify(tasks)}, expected ${2 * ARRIVALS} COMPLETED`);
  const calls = (script: string) => result.scripts.find((s) => s.script === script)?.calls ?? [];
  if (!calls('task-list-users.js').includes('POST /api/v1/tasks/:id/complete')) problems.push('task-list-users.js did not complete tasks over REST');
  if (!calls('task-list-users.js?graphql').includes('POST /api/v1/graphql completeTask'))
    problems.push('task-list-users.js with COMPLETE_VIA=graphql did not complete tasks over GraphQL');
  const e2e = result.scripts.find((s) => s.script === 'end-to-end.js');
  if ((e2e?.metrics.orca_start_to_complete ?? 0) !== ARRIVALS)
    problems.push(`end-to-end.js: ${e2e?.metrics.orca_start_to_complete ?? 0} orca_start_to_complete samples, expected ${ARRIVALS}`);
  return problems;
}

async function main(): Promise<number> {
  let server: OrcaServer | undefined;
  let baseUrl = process.env.BASE_URL;
  let apiKey = process.env.API_KEY;
  if (!baseUrl || !apiKey) {
    server = await startServer({ backend: 'embedded', partitions: 2 });
    ({ baseUrl, apiKey } = server);
  }
  try {
    const result = await runSmoke(baseUrl, apiKey);
    for (const s of result.scripts) {
      console.log(
        `${s.script}: ${s.requests} requests (${s.calls.join(', ')}), ${s.failedRequests.length} failed, ${s.failedChecks.length} failed checks, metric samples ${JSON.stringify(s.metrics)}`,
      );
    }
    console.log(`instances: ${JSON.stringify(result.instances)}`);
    const problems = smokeProblems(result);
    for (const problem of problems) console.error(`k6-smoke: ${problem}`);
    console.log(
      JSON.stringify({
        scripts: result.scripts.length,
        requests: result.scripts.reduce((n, s) => n + s.requests, 0),
        failed_requests: result.scripts.reduce((n, s) => n + s.failedRequests.length, 0),
        failed_checks: result.scripts.reduce((n, s) => n + s.failedChecks.length, 0),
      }),
    );
    return problems.length === 0 ? 0 : 1;
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`k6-smoke failed: ${messageOf(err)}`);
      process.exit(1);
    },
  );
}
