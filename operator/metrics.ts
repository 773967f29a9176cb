// The operator's Prometheus metrics, on its own registry, named as SREs know
// them from controller-runtime: reconciles by result and their duration,
// the work queue's depth, and Orca's own deploy count and leadership.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface OperatorMetrics {
  registry: Registry;
  reconciles: Counter<'result'>;
  reconcileDuration: Histogram;
  workqueueDepth: Gauge;
  deploys: Counter<'kind'>;
  leader: Gauge;
}

export function operatorMetrics(options: { processMetrics?: boolean } = {}): OperatorMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const reconciles = new Counter({
    name: 'orca_operator_reconcile_total',
    help: 'Reconciles by result: success, error (retried with backoff), requeue (retried after a set delay).',
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of ['success', 'error', 'requeue']) reconciles.inc({ result }, 0);
  const deploys = new Counter({
    name: 'orca_operator_deploys_total',
    help: 'Deploy calls the operator made to Orca, by model kind (bpmn, dmn).',
    labelNames: ['kind'],
    registers: [registry],
  });
  for (const kind of ['bpmn', 'dmn']) deploys.inc({ kind }, 0);
  return {
    registry,
    reconciles,
    reconcileDuration: new Histogram({
      name: 'orca_operator_reconcile_duration_seconds',
      help: 'Time one reconcile took.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    workqueueDepth: new Gauge({ name: 'orca_operator_workqueue_depth', help: 'Keys waiting in the work queue.', registers: [registry] }),
    deploys,
    leader: new Gauge({ name: 'orca_operator_leader', help: '1 while this replica holds the orca-operator Lease.', registers: [registry] }),
  };
}
