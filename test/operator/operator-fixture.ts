// The operator's world for one test file: the fake Kubernetes API server
// (operator/testing/), a real Orca server on loopback (test/api's
// apiFixture), an account whose API key sits in a Secret, and operators
// started against both with short timings. Every request an operator sends
// to Orca passes through a counting fetch, so tests count deploy calls as
// they were sent; `orcaDown` makes that path fail as a dead server would,
// `orcaAnswers` answers in Orca's place with an error status.
import { afterAll, beforeAll } from 'vitest';
import { startOperator, type Operator, type OperatorOptions } from '../../operator/index.ts';
import { silentLog } from '../../operator/log.ts';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../operator/testing/fake-api-server.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually } from '../api/workflow-support.ts';

export { eventually };

export const PD = { apiVersion: 'orca.dev/v1alpha1', kind: 'ProcessDefinition' } as const;
export const DD = { apiVersion: 'orca.dev/v1alpha1', kind: 'DecisionDefinition' } as const;
export const NS = 'default';

export interface OrcaCall {
  method: string;
  path: string;
  status: number;
}

export interface OperatorWorld {
  kube: FakeApiServer;
  orca: ApiFixture;
  apiKey: string;
  /** Every request operators sent to Orca, in order. */
  calls: OrcaCall[];
  /** Deploy calls (BPMN and DMN) sent so far. */
  deploys(): number;
  /** While true, every request to Orca fails as a refused connection would. */
  orcaDown: boolean;
  /** While set, every request to Orca is answered with this status (a problem body, Retry-After when given) instead of reaching it. */
  orcaAnswers?: { status: number; retryAfterSeconds?: number };
  /** While true, requests to Orca are accepted and never answered (until the sender gives up). */
  orcaHangs: boolean;
  /** Starts an operator (stopped after the file) against both servers. */
  operator(options?: Partial<OperatorOptions>): Promise<Operator>;
  /** A ProcessDefinition as kubectl apply would send it. */
  processDefinition(name: string, spec: Record<string, unknown>, metadata?: Record<string, unknown>): KubeObject;
  get(kind: { apiVersion: string; kind: string }, name: string): KubeObject & { status?: Status };
  /** Waits until the resource's condition `type` has `status` (and, if given, `reason`) for its current generation. */
  condition(kind: { apiVersion: string; kind: string }, name: string, type: string, status: string, reason?: string): Promise<Status>;
}

export interface Status {
  observedGeneration?: number;
  conditions?: { type: string; status: string; reason: string; message: string; lastTransitionTime: string; observedGeneration?: number }[];
  sourceChecksum?: string;
  deployedChecksum?: string;
  processId?: string;
  decisionIds?: string[];
  version?: number;
  deployedAt?: string;
  redeployToken?: string;
  error?: { code: string; message: string };
}

const DEPLOY_PATHS = ['/api/v1/process-definitions', '/api/v1/models'];

export function operatorWorld(): OperatorWorld {
  const operators: Operator[] = [];
  const world = {
    calls: [] as OrcaCall[],
    orcaDown: false,
    orcaHangs: false,
  } as OperatorWorld;

  const countingFetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? 'GET';
    if (world.orcaDown) {
      world.calls.push({ method, path: url.pathname, status: 0 });
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    }
    if (world.orcaHangs) {
      world.calls.push({ method, path: url.pathname, status: 0 });
      const signal = init?.signal;
      return new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    }
    if (world.orcaAnswers) {
      const { status, retryAfterSeconds } = world.orcaAnswers;
      world.calls.push({ method, path: url.pathname, status });
      const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
      if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
      return new Response(JSON.stringify({ status, code: 'UNAVAILABLE', title: 'Unavailable', detail: 'injected by the test' }), { status, headers });
    }
    const response = await fetch(input, init);
    world.calls.push({ method, path: url.pathname, status: response.status });
    return response;
  };

  beforeAll(async () => {
    // HTTPS, as a cluster serves it (kubectl sends no token over plain HTTP).
    world.kube = await startFakeApiServer({ tls: true });
    world.orca = await apiFixture();
    world.apiKey = (await world.orca.newAccount()).apiKey;
    world.kube.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'orca-key', namespace: NS },
      data: { apiKey: Buffer.from(`${world.apiKey}\n`).toString('base64') },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(operators.map((o) => o.stop()));
    await world.kube?.close();
    await world.orca?.close();
  });

  world.deploys = () => world.calls.filter((c) => c.method === 'POST' && DEPLOY_PATHS.includes(c.path)).length;

  world.operator = async (options = {}) => {
    const operator = await startOperator({
      orcaUrl: world.orca.baseUrl,
      kubeconfig: world.kube.kubeconfig(),
      leaseNamespace: NS,
      port: 0,
      host: '127.0.0.1',
      log: silentLog,
      processMetrics: false,
      lease: { durationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 200 },
      watch: { inactivityMs: 3_000, backoffMs: [100, 1_000] },
      rateLimiter: { baseMs: 20, maxMs: 2_000 },
      ...options,
      orcaClient: { fetch: countingFetch, ...options.orcaClient },
    });
    operators.push(operator);
    const stop = operator.stop.bind(operator);
    operator.stop = async () => {
      operators.splice(operators.indexOf(operator), 1);
      await stop();
    };
    return operator;
  };

  world.processDefinition = (name, spec, metadata = {}) => ({
    ...PD,
    metadata: { name, namespace: NS, ...metadata },
    spec: { apiKeySecretRef: { name: 'orca-key' }, ...spec },
  });

  world.get = (kind, name) => {
    const object = world.kube.get(kind.apiVersion, kind.kind, NS, name);
    if (object === undefined) throw new Error(`${kind.kind} ${name} does not exist`);
    return object as KubeObject & { status?: Status };
  };

  world.condition = (kind, name, type, status, reason) =>
    eventually(
      async () => {
        const object = world.kube.get(kind.apiVersion, kind.kind, NS, name) as (KubeObject & { status?: Status }) | undefined;
        const s = object?.status;
        const c = s?.conditions?.find((x) => x.type === type);
        if (!c || c.status !== status || (reason !== undefined && c.reason !== reason)) return undefined;
        return s!.observedGeneration === object!.metadata.generation ? s : undefined;
      },
      `${kind.kind} ${name}: ${type}=${status}${reason ? ` (${reason})` : ''}`,
      20_000,
    );

  return world;
}
