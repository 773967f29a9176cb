// Orca's metrics (issue 15, DESIGN §5): one prom-client registry per
// service holding every `orca_` series, with the names dashboards and
// alerts depend on, base units and `_total` on counters. Every labelled
// series a dashboard reads is created at zero up front, so a rate is 0
// rather than absent before the first event. Label values come from
// closed sets (job kinds, instance end states, rejection reasons, route
// patterns), never from request input. The engine reports through
// engine-metrics.ts, HTTP through plugins/metrics.ts; gauges are read from
// the engine when scraped.
import { createRequire } from 'node:module';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { JOB_KINDS, type Engine, type EngineGauges, type RejectReason } from '../../engine/index.ts';
import { pendingDeliveries } from '../webhooks/delivery-statements.ts';
import { processRegistry } from './process-metrics.ts';

const REJECT_REASONS: readonly RejectReason[] = ['not_found', 'invalid_state', 'invalid_argument', 'backpressure', 'timeout'];
/** How long a scrape waits for the engine's gauges (Postgres, Redis) before leaving them out. */
const GAUGE_TIMEOUT_MS = 2_000;

export interface OrcaMetricsOptions {
  /** The `version` label of orca_build_info; default: package.json's. */
  version?: string;
  /** Add Node's default metrics (process, heap, event loop) to the scrape; one set per process. Default true. */
  processMetrics?: boolean;
}

export class OrcaMetrics {
  readonly registry = new Registry();
  readonly instancesStarted: Counter;
  readonly instancesEnded: Counter<'state'>;
  readonly instanceDuration: Histogram;
  readonly casesStarted: Counter;
  readonly casesEnded: Counter<'state'>;
  readonly jobsCreated: Counter<'job_kind'>;
  readonly jobsActivated: Counter<'job_kind'>;
  readonly jobsCompleted: Counter<'job_kind'>;
  readonly jobsFailed: Counter<'job_kind'>;
  readonly activationWait: Histogram<'job_kind'>;
  readonly incidentsCreated: Counter;
  readonly batchDuration: Histogram;
  readonly batchCommands: Histogram;
  readonly leaseChanges: Counter;
  readonly commandsRejected: Counter<'reason'>;
  readonly httpDuration: Histogram<'route' | 'method' | 'status_class'>;
  readonly creditsCharged: Counter;
  readonly creditsRefunded: Counter;
  readonly webhookDeliveries: Counter<'outcome'>;
  private engine: Engine | undefined;
  private reading: Promise<EngineGauges | undefined> | undefined;

  constructor(private readonly options: OrcaMetricsOptions = {}) {
    const registers = [this.registry];
    this.instancesStarted = new Counter({ name: 'orca_process_instances_started_total', help: 'Process instances started (committed).', registers });
    this.instancesEnded = new Counter({
      name: 'orca_process_instances_ended_total',
      help: 'Process instances that ended, by end state (COMPLETED; TERMINATED: cancelled).',
      labelNames: ['state'],
      registers,
    });
    this.instanceDuration = new Histogram({
      name: 'orca_process_instance_duration_seconds',
      help: 'Time from the start of a process instance to its end.',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
      registers,
    });
    this.casesStarted = new Counter({ name: 'orca_case_instances_started_total', help: 'CMMN case instances started (committed).', registers });
    this.casesEnded = new Counter({
      name: 'orca_case_instances_ended_total',
      help: 'CMMN case instances that ended, by end state (COMPLETED; TERMINATED: cancelled or exited).',
      labelNames: ['state'],
      registers,
    });
    const jobCounter = (name: string, help: string) => new Counter({ name, help, labelNames: ['job_kind'], registers });
    this.jobsCreated = jobCounter('orca_jobs_created_total', 'Jobs created, by kind of element waiting on them.');
    this.jobsActivated = jobCounter('orca_jobs_activated_total', 'Jobs handed to a worker, by kind.');
    this.jobsCompleted = jobCounter('orca_jobs_completed_total', 'Jobs completed (committed), by kind.');
    this.jobsFailed = jobCounter('orca_jobs_failed_total', 'Job failures reported by workers (committed), by kind.');
    this.activationWait = new Histogram({
      name: 'orca_job_activation_wait_seconds',
      help: 'Time from a job being offered (created, or offered again after a failure) to a worker activating it, by kind.',
      labelNames: ['job_kind'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.incidentsCreated = new Counter({ name: 'orca_incidents_created_total', help: 'Incidents raised (committed).', registers });
    this.batchDuration = new Histogram({
      name: 'orca_partition_batch_duration_seconds',
      help: "A partition leader's batch, from the start of its building to its publication (apply, commit, publish).",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.batchCommands = new Histogram({
      name: 'orca_partition_batch_commands',
      help: 'Commands one published batch carried.',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
      registers,
    });
    this.leaseChanges = new Counter({
      name: 'orca_partition_lease_changes_total',
      help: 'Times this process became the leader of a partition (start, takeover or handover).',
      registers,
    });
    this.commandsRejected = new Counter({
      name: 'orca_commands_rejected_total',
      help: 'Commands refused: backpressure and no answer in time (by the sender), rejections (by the leader).',
      labelNames: ['reason'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'orca_http_request_duration_seconds',
      help: 'HTTP requests by route pattern, method and status class.',
      labelNames: ['route', 'method', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.creditsCharged = new Counter({ name: 'orca_credits_charged_total', help: 'Credits taken from accounts.', registers });
    this.creditsRefunded = new Counter({ name: 'orca_credits_refunded_total', help: 'Credits given back (a charged action that failed).', registers });
    this.webhookDeliveries = new Counter({
      name: 'orca_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered; retrying: failed, tried again later; failed: given up or endpoint disabled).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['delivered', 'retrying', 'failed']) this.webhookDeliveries.inc({ outcome }, 0);
    const engineOf = () => this.engine;
    // The database did not answer in time: the last figure stands rather than a false zero.
    let lastBacklog = 0;
    new Gauge({
      name: 'orca_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting to be sent or tried again (the whole installation: the outbox is shared).',
      registers,
      async collect() {
        const engine = engineOf();
        if (engine !== undefined) lastBacklog = (await pendingDeliveries(engine.store.db, GAUGE_TIMEOUT_MS)) ?? lastBacklog;
        this.set(lastBacklog);
      },
    });
    new Gauge({ name: 'orca_build_info', help: 'Always 1; the version of Orca that serves.', labelNames: ['version'], registers }).set(
      { version: options.version ?? packageVersion() },
      1,
    );

    const read = () => this.gauges();
    // Postgres did not answer in time: the last figure stands rather than a false zero.
    let lastIncidentsOpen = 0;
    new Gauge({
      name: 'orca_partition_leader',
      help: 'By partition: 1 on the process that leads it, 0 on the other processes running partition leaders.',
      labelNames: ['partition'],
      registers,
      async collect() {
        this.reset();
        const gauges = await read();
        if (gauges === undefined || !gauges.leads) return;
        const led = new Set(gauges.led.map((l) => l.partition));
        for (let p = 0; p < gauges.partitions; p++) this.set({ partition: String(p) }, led.has(p) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'orca_partition_commands_pending',
      help: 'Commands waiting for the leader of the partition (appended, not yet committed), on the process that leads it.',
      labelNames: ['partition'],
      registers,
      async collect() {
        this.reset();
        const gauges = await read();
        for (const { partition, pending } of gauges?.led ?? []) if (pending !== undefined) this.set({ partition: String(partition) }, pending);
      },
    });
    new Gauge({
      name: 'orca_incidents_open',
      help: 'Open incidents on the partitions this process leads (sum over processes for the installation).',
      registers,
      async collect() {
        const gauges = await read();
        if (gauges?.incidentsOpen !== undefined) lastIncidentsOpen = gauges.incidentsOpen;
        this.set(lastIncidentsOpen);
      },
    });

    for (const state of ['COMPLETED', 'TERMINATED']) for (const ended of [this.instancesEnded, this.casesEnded]) ended.inc({ state }, 0);
    for (const kind of JOB_KINDS) {
      for (const counter of [this.jobsCreated, this.jobsActivated, this.jobsCompleted, this.jobsFailed]) counter.inc({ job_kind: kind }, 0);
      this.activationWait.zero({ job_kind: kind });
    }
    for (const reason of REJECT_REASONS) this.commandsRejected.inc({ reason }, 0);
  }

  /** The engine whose gauges a scrape reads. */
  watch(engine: Engine): void {
    this.engine = engine;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The scrape: Orca's series, then the process's (when enabled). */
  async text(): Promise<string> {
    // One reading of the engine for the gauges of this scrape.
    this.reading = undefined;
    const own = await this.registry.metrics();
    if (this.options.processMetrics === false) return own;
    return own + (await processRegistry().metrics());
  }

  private gauges(): Promise<EngineGauges | undefined> {
    const engine = this.engine;
    if (engine === undefined) return Promise.resolve(undefined);
    this.reading ??= engine.gauges(GAUGE_TIMEOUT_MS).catch(() => undefined);
    return this.reading;
  }
}

/** Orca's version, package.json's (the traces' service.version too). */
export function packageVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}
