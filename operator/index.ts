// The Orca operator (docs/operator.md): reconciles ProcessDefinition and
// DecisionDefinition resources into deployments on an Orca server through
// the client library — a client of Orca's REST API, never a back door.
// startOperator wires the pieces: the Kubernetes API client, the
// controller (informers, work queue, reconcilers), leader election on a
// Lease, and the health and metrics listener.
import { hostname } from 'node:os';
import { createController, type Controller, type ControllerOptions } from './controller.ts';
import { startHealthServer } from './health-server.ts';
import { kubeApi } from './kube/api-client.ts';
import { loadKubeConfig } from './kube/config.ts';
import { leaderElector, type LeaderElector } from './leader-election.ts';
import { jsonLog, type OperatorLog } from './log.ts';
import { operatorMetrics, type OperatorMetrics } from './metrics.ts';

export interface OperatorOptions {
  orcaUrl: string;
  /** Unset: all namespaces. */
  watchNamespace?: string;
  /** Namespace of the Lease `orca-operator` (default: the watch namespace, else `default`). */
  leaseNamespace?: string;
  identity?: string;
  resyncSeconds?: number;
  /** Health and metrics port (0: any free one). */
  port?: number;
  host?: string;
  /** Kubeconfig text; unset: in-cluster when KUBERNETES_SERVICE_HOST is set, else KUBECONFIG or ~/.kube/config. */
  kubeconfig?: string;
  inCluster?: boolean;
  log?: OperatorLog;
  workers?: number;
  /** Lease timings (defaults 15 s / 10 s / 2 s); tests shorten them. */
  lease?: { durationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  watch?: ControllerOptions['watch'];
  rateLimiter?: ControllerOptions['rateLimiter'];
  orcaClient?: ControllerOptions['orcaClient'];
  processMetrics?: boolean;
}

export interface Operator {
  /** The health and metrics port. */
  port: number;
  metrics: OperatorMetrics;
  controller: Controller;
  elector: LeaderElector;
  readonly leading: boolean;
  stop(): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<Operator> {
  const identity = options.identity || `${hostname()}-${process.pid}`;
  const log = options.log ?? jsonLog({ base: { component: 'orca-operator', identity } });
  const api = kubeApi(loadKubeConfig({ kubeconfig: options.kubeconfig, inCluster: options.inCluster }));
  const metrics = operatorMetrics({ processMetrics: options.processMetrics });
  const controller = createController({
    api,
    orcaUrl: options.orcaUrl,
    namespace: options.watchNamespace,
    resyncMs: (options.resyncSeconds ?? 300) * 1000,
    workers: options.workers,
    identity,
    metrics,
    log,
    watch: options.watch,
    rateLimiter: options.rateLimiter,
    orcaClient: options.orcaClient,
  });
  const elector = leaderElector({
    api,
    namespace: options.leaseNamespace || options.watchNamespace || 'default',
    identity,
    leaseDurationMs: options.lease?.durationMs,
    renewDeadlineMs: options.lease?.renewDeadlineMs,
    retryPeriodMs: options.lease?.retryPeriodMs,
    log,
    onStartedLeading: () => {
      metrics.leader.set(1);
      controller.setActive(true);
    },
    onStoppedLeading: () => {
      metrics.leader.set(0);
      controller.setActive(false);
    },
  });
  const health = await startHealthServer({ port: options.port ?? 8080, host: options.host, ready: () => controller.synced, registry: metrics.registry });
  controller.start();
  elector.start();
  log('info', { orcaUrl: options.orcaUrl, namespace: options.watchNamespace ?? '(all)', port: health.port }, 'operator started');
  return {
    port: health.port,
    metrics,
    controller,
    elector,
    get leading() {
      return elector.leading;
    },
    async stop() {
      await elector.stop();
      await controller.stop();
      await health.close();
      api.close();
    },
  };
}
