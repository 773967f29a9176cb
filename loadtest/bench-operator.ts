// `npm run bench:operator`: the operator under a platform team's first
// `kubectl apply` of a whole directory. The fake Kubernetes API server
// (operator/testing/) and the operator run in this process; a real Orca
// runs as a child process (bench-e2e-server.ts: embedded, or Postgres and
// Redis with --backend=pg-redis or when DATABASE_URL and REDIS_URL are
// set). N ProcessDefinitions (default 500) are created at once; a watch
// of our own records when each turns Ready. Then the operator resyncs
// every resource at least ten more times and we count the deploy calls that
// caused (there must be none). Deploy calls are counted by Orca, from its
// request metrics. Reports: time to all Ready, p99 from apply to Ready,
// deploy calls, deploy calls during the resyncs; the last line is JSON.
// Before it, what the burst cost: CPU per resource of this process (the
// operator and the fake API server) and of Orca, and the requests the
// API server got; --profile DIR writes CPU profiles of both.
//
//   npm run bench:operator [-- --resources 500 --resyncs 10 --resync-seconds 2 --backend embedded|pg-redis --profile DIR]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createInformer } from '../operator/kube/informer.ts';
import { kubeApi, type KubeObject } from '../operator/kube/api-client.ts';
import { loadKubeConfig } from '../operator/kube/config.ts';
import { silentLog } from '../operator/log.ts';
import { startOperator, type Operator } from '../operator/index.ts';
import { startFakeApiServer, type FakeApiServer, type LoggedRequest } from '../operator/testing/fake-api-server.ts';
import { startServer, type Backend, type OrcaServer } from './bench-e2e-server.ts';
import { servicesFromEnv } from './bench-engine-services.ts';
import { measureBurst } from './burst-cost.ts';
import { oneTaskModel } from './one-task-model.ts';

export interface OperatorBenchOptions {
  resources: number;
  resyncs: number;
  resyncSeconds: number;
  backend: Backend;
  /** Orca partitions of the child server. */
  partitions?: number;
  /** Write CPU profiles here: Orca's for its whole run, this process's for the burst (bench-burst.cpuprofile). */
  profileDir?: string;
  log?: (line: string) => void;
}

export interface OperatorBenchResult {
  resources: number;
  all_ready_s: number;
  p99_apply_to_ready_ms: number;
  deploys: number;
  deploys_on_resync: number;
}

const NS = 'bench';
const DEPLOY_PATH = '/api/v1/process-definitions';

/** Deploy calls Orca has answered, from its own request metrics, so the count does not rest on the operator's word: in all, and by status class. */
async function deployCalls(baseUrl: string): Promise<{ calls: number; byStatus: Record<string, number> }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const byStatus: Record<string, number> = {};
  let calls = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('orca_http_request_duration_seconds_count{') && line.includes(`route="${DEPLOY_PATH}"`) && line.includes('method="POST"')) {
      const n = Number(line.slice(line.lastIndexOf(' ') + 1));
      const status = /status_class="([^"]*)"/.exec(line)?.[1] ?? '?';
      byStatus[status] = (byStatus[status] ?? 0) + n;
      calls += n;
    }
  }
  return { calls, byStatus };
}

/** Requests counted by method and path, names of objects left out: what the operator asked the API server for. */
function requestKinds(requests: LoggedRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const path = r.path.replace(/\/namespaces\/[^/]+/, '').replace(/^(\/api\/v1\/[^/]+|\/apis\/[^/]+\/[^/]+\/[^/]+)\/[^/]+/, '$1/NAME');
    const kind = `${r.method} ${path}${r.query.watch ? ' (watch)' : ''}`;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function isReady(object: KubeObject): boolean {
  const status = object.status as { conditions?: { type: string; status: string }[]; observedGeneration?: number } | undefined;
  return status?.observedGeneration === object.metadata.generation && status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

export async function runOperatorBenchmark(options: OperatorBenchOptions): Promise<OperatorBenchResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let orca: OrcaServer | undefined;
  let kube: FakeApiServer | undefined;
  let operator: Operator | undefined;
  let stopWatch: (() => Promise<void>) | undefined;
  try {
    orca = await startServer({
      backend: options.backend,
      services: options.backend === 'pg-redis' ? servicesFromEnv() : undefined,
      partitions: options.partitions ?? 4,
      nodeFlags: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : undefined,
    });
    kube = await startFakeApiServer({ historyLimit: Math.max(10_000, options.resources * 20) });
    kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'orca-key', namespace: NS }, stringData: { apiKey: orca.apiKey } });
    log(`bench:operator: Orca (${orca.backend}) at ${orca.baseUrl}, fake API server at ${kube.url}`);

    const deploys = () => deployCalls(orca!.baseUrl);

    // Our own watch of the resources: when each first shows Ready for its generation.
    const appliedAt = new Map<string, number>();
    const readyAt = new Map<string, number>();
    let allReady: () => void = () => {};
    const allReadyPromise = new Promise<void>((resolve) => (allReady = resolve));
    const observe = (object: KubeObject) => {
      const name = object.metadata.name;
      if (!readyAt.has(name) && appliedAt.has(name) && isReady(object)) {
        readyAt.set(name, performance.now());
        if (readyAt.size === options.resources) allReady();
      }
    };
    const watchApi = kubeApi(loadKubeConfig({ kubeconfig: kube.kubeconfig() }));
    const watcher = createInformer<KubeObject>({
      api: watchApi,
      path: `/apis/orca.dev/v1alpha1/namespaces/${NS}/processdefinitions`,
      handlers: { added: observe, updated: (_, object) => observe(object) },
    });
    watcher.start();
    await watcher.waitForSync();
    stopWatch = async () => {
      await watcher.stop();
      watchApi.close();
    };

    operator = await startOperator({
      orcaUrl: orca.baseUrl,
      kubeconfig: kube.kubeconfig(),
      watchNamespace: NS,
      port: 0,
      host: '127.0.0.1',
      resyncSeconds: options.resyncSeconds,
      log: silentLog,
      processMetrics: false,
    });
    await operator.controller.waitForSync();
    const leader = operator;
    while (!leader.leading) await new Promise((resolve) => setTimeout(resolve, 20));

    // kubectl apply -f dir/: every resource at once.
    const cost = await measureBurst({ childPid: orca.pid, profile: options.profileDir !== undefined });
    const requestsBefore = kube.requests.length;
    const started = performance.now();
    for (let i = 0; i < options.resources; i++) {
      const name = `process-${String(i).padStart(4, '0')}`;
      appliedAt.set(name, performance.now());
      kube.create({
        apiVersion: 'orca.dev/v1alpha1',
        kind: 'ProcessDefinition',
        metadata: { name, namespace: NS },
        spec: { bpmnXml: oneTaskModel(name, 'bench-work'), apiKeySecretRef: { name: 'orca-key' } },
      });
    }
    await allReadyPromise;
    const allReadyMs = performance.now() - started;
    const latencies = [...readyAt.entries()].map(([name, at]) => at - appliedAt.get(name)!).sort((a, b) => a - b);
    const answered = await deploys();
    const deploysAtReady = answered.calls;
    const cpu = cost.cpuMs();
    if (options.profileDir) await cost.stopProfile(path.join(options.profileDir, 'bench-burst.cpuprofile'));
    const perResource = (ms: number) => (ms / options.resources).toFixed(2);
    log(`bench:operator: CPU per resource during the burst: operator and fake API server ${perResource(cpu.self)} ms, Orca ${perResource(cpu.child)} ms`);
    log(`bench:operator: Kubernetes API requests during the burst: ${requestKinds(kube.requests.slice(requestsBefore))}`);
    const reconciles = (await leader.metrics.reconciles.get()).values.map((v) => `${v.labels.result} ${v.value}`).join(', ');
    const statuses = Object.entries(answered.byStatus)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ');
    log(
      `bench:operator: ${options.resources} Ready in ${(allReadyMs / 1000).toFixed(2)} s with ${deploysAtReady} deploy calls (answered ${statuses}; reconciles ${reconciles})`,
    );

    // Each resync reconciles every resource once: wait for at least `resyncs` rounds of them.
    const successes = async () => (await leader.metrics.reconciles.get()).values.find((v) => v.labels.result === 'success')?.value ?? 0;
    const baseline = await successes();
    const target = baseline + options.resyncs * options.resources;
    while ((await successes()) < target) await new Promise((resolve) => setTimeout(resolve, 100));
    log(`bench:operator: ${options.resyncs} resyncs of ${options.resources} resources done`);

    return {
      resources: options.resources,
      all_ready_s: Math.round(allReadyMs) / 1000,
      p99_apply_to_ready_ms: Math.round(percentile(latencies, 99)),
      deploys: deploysAtReady,
      deploys_on_resync: (await deploys()).calls - deploysAtReady,
    };
  } finally {
    await operator?.stop();
    await stopWatch?.();
    await kube?.close();
    await orca?.stop();
  }
}

export function formatOperatorReport(result: OperatorBenchResult, options: OperatorBenchOptions): string {
  return [
    `bench:operator (${options.backend}): ${result.resources} ProcessDefinitions applied at once`,
    `  all Ready after           ${result.all_ready_s.toFixed(2)} s`,
    `  p99 apply → Ready         ${result.p99_apply_to_ready_ms} ms`,
    `  deploy calls              ${result.deploys} (must be ${result.resources})`,
    `  deploy calls, ${options.resyncs} resyncs   ${result.deploys_on_resync} (must be 0)`,
    JSON.stringify(result),
  ].join('\n');
}

function parseOptions(argv: string[]): OperatorBenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      resources: { type: 'string', default: '500' },
      resyncs: { type: 'string', default: '10' },
      'resync-seconds': { type: 'string', default: '2' },
      backend: { type: 'string' },
      profile: { type: 'string' },
    },
  });
  const backend = (values.backend ?? (process.env.DATABASE_URL && process.env.REDIS_URL ? 'pg-redis' : 'embedded')) as Backend;
  if (backend !== 'embedded' && backend !== 'pg-redis') throw new Error(`--backend must be embedded or pg-redis, not '${String(backend)}'`);
  const number = (text: string, name: string) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  return {
    resources: Math.floor(number(values.resources, 'resources')),
    resyncs: Math.floor(number(values.resyncs, 'resyncs')),
    resyncSeconds: number(values['resync-seconds'], 'resync-seconds'),
    backend,
    profileDir: values.profile,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = parseOptions(process.argv.slice(2));
  runOperatorBenchmark(options).then(
    (result) => {
      process.stdout.write(`${formatOperatorReport(result, options)}\n`);
      process.exit(result.deploys === result.resources && result.deploys_on_resync === 0 ? 0 : 1);
    },
    (error: unknown) => {
      process.stderr.write(`bench:operator failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
