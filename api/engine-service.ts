// The engine role (`orca start --role engine`) in one call: the partition
// leaders, and a small HTTP listener of their own so Kubernetes can probe
// and scrape engine shards — GET /healthz, /readyz and /metrics, nothing
// else (no API, no keys). close() stops taking requests before the engine
// hands its partitions over.
import type { Tracer } from '@opentelemetry/api';
import Fastify, { LogController } from 'fastify';
import { createEngine, type Engine, type EngineOptions } from '../engine/index.ts';
import type { AppConfig } from './config.ts';
import { engineMetrics } from './metrics/engine-metrics.ts';
import { OrcaMetrics } from './metrics/orca-metrics.ts';
import { clientErrorHandler, registerErrorHandling } from './plugins/errors.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerProbes } from './routes/health.ts';
import { traceLogFields } from './tracing/log-fields.ts';
import type { DispatcherOptions, WebhookDispatcher } from './webhooks/dispatcher.ts';
import { serviceDispatcher } from './webhooks/service.ts';

/** What wires the engine service without being configuration: hooks for tests. */
export interface EngineServiceOptions {
  logger?: boolean;
  /** The engine's shard identity and test hooks. */
  engine?: EngineOptions;
  /** Tracing on: the leaders trace their batches (probes and scrapes are not traced). */
  tracer?: Tracer;
  /** Test hooks of the webhook dispatcher (clock, retry schedule, name resolution). */
  webhooks?: Partial<DispatcherOptions>;
}

export interface EngineService {
  engine: Engine;
  metrics: OrcaMetrics | undefined;
  /** The webhook dispatcher of this shard; undefined with ORCA_WEBHOOK_DISPATCHER=off. */
  webhookDispatcher: WebhookDispatcher | undefined;
  /** Starts listening; resolves to the base URL. */
  listen(): Promise<string>;
  /** Stops the listener, then the engine (its leases are released for another shard). Idempotent. */
  close(): Promise<void>;
}

/** The engine role of `config` (its role is taken as `engine` whatever it says), listening on config.http. */
export async function createEngineService(config: AppConfig, options: EngineServiceOptions = {}): Promise<EngineService> {
  const { port, host } = config.http;
  const metrics = config.metrics.enabled ? new OrcaMetrics({ processMetrics: config.metrics.processMetrics }) : undefined;
  const engine = await createEngine(
    { ...config.engine, role: 'engine' },
    { ...options.engine, metrics: metrics && engineMetrics(metrics), tracer: options.tracer, credits: config.credits },
  );
  metrics?.watch(engine);
  const logger = options.logger;
  const app = Fastify({
    logger: logger ? { mixin: traceLogFields } : false,
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler,
  });
  try {
    registerErrorHandling(app);
    if (metrics) registerMetrics(app, metrics);
    registerProbes(app, engine);
    await app.ready();
  } catch (error) {
    await engine.close();
    throw error;
  }
  const webhookDispatcher = serviceDispatcher(
    { ...config, engine: { ...config.engine, role: 'engine' } },
    engine,
    metrics,
    (error) => app.log.warn({ err: error }, 'webhook dispatcher'),
    options.webhooks,
  );
  let closing: Promise<void> | undefined;
  return {
    engine,
    metrics,
    webhookDispatcher,
    async listen() {
      const address = new URL(await app.listen({ port, host }));
      if (host === '0.0.0.0' || host === '::') address.hostname = 'localhost';
      return address.origin;
    },
    close() {
      closing ??= (async () => {
        try {
          await app.close();
        } finally {
          await webhookDispatcher?.stop();
          await engine.close();
        }
      })();
      return closing;
    },
  };
}
