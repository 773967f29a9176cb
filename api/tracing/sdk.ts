// The OpenTelemetry trace SDK of one process, started when the OTEL_*
// variables ask for it (settings.ts) and registered globally (tracer
// provider, AsyncLocalStorage context, W3C trace-context propagation). The
// engine gets only the Tracer and uses @opentelemetry/api; this module is
// the one that knows the SDK.
//
// Versions are pinned exactly in package.json: the 2.x SDK line
// (@opentelemetry/sdk-trace-node, sdk-trace-base, core and resources
// 2.12.0) with its release set's OTLP exporter
// (@opentelemetry/exporter-trace-otlp-http 0.223.0) and
// @opentelemetry/api 1.9.1. The 3.x SDK (and exporters 0.300+) need
// Node 22 and npm would install them on Node 20 with only a warning; keep
// the whole set on one release and move to 3.x with Node 22.
//
// Export is asynchronous and bounded: a BatchSpanProcessor keeps at most
// 2048 finished spans (OTEL_BSP_MAX_QUEUE_SIZE) and drops the rest while
// the collector lags; an export that fails, or does not answer within
// OTEL_EXPORTER_OTLP_TIMEOUT (10 s), is reported through `log` — at most a
// line a minute — and costs requests nothing.
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { packageVersion } from '../metrics/orca-metrics.ts';
import type { SamplerSetting, TracingSettings } from './settings.ts';

/** How long shutdown waits for the last spans to leave: a dead collector must not hold the process. */
const SHUTDOWN_MS = 2_000;
/** At most one line about failed exports per this long. */
const LOG_EVERY_MS = 60_000;

export interface Tracing {
  readonly tracer: Tracer;
  readonly settings: TracingSettings;
  /** Exports what has ended so far (tests). */
  flush(): Promise<void>;
  /**
   * Exports what is left, waiting at most 2 s, and unregisters the SDK;
   * false when the collector did not take it in time (the exporter's last
   * request may then hold the event loop until OTEL_EXPORTER_OTLP_TIMEOUT).
   * Idempotent.
   */
  shutdown(): Promise<boolean>;
}

export interface TracingOptions {
  /** Where failed exports are reported (default: a JSON line on stderr). */
  log?: (message: string) => void;
  /** Tests: spans go here (an InMemorySpanExporter) instead of over OTLP, through the same batch processor. */
  exporter?: SpanExporter;
}

/** Starts and registers the SDK for `settings`; one at a time per process (the API's globals are process-wide). */
export function startTracing(settings: TracingSettings, options: TracingOptions = {}): Tracing {
  const log = options.log ?? ((message) => process.stderr.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: message })}\n`));
  setGlobalErrorHandler(rateLimited(log));
  const exporter = options.exporter ?? new OTLPTraceExporter({ url: settings.url });
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': packageVersion() }).merge(
    // OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME is in `settings` already.
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    sampler: sampler(settings.sampler),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const tracer = provider.getTracer('orca', packageVersion());
  let stopped: Promise<boolean> | undefined;
  return {
    tracer,
    settings,
    flush: () => provider.forceFlush(),
    shutdown() {
      stopped ??= (async () => {
        const flushed = await within(provider.shutdown(), SHUTDOWN_MS);
        trace.disable();
        context.disable();
        propagation.disable();
        return flushed;
      })();
      return stopped;
    },
  };
}

function sampler(setting: SamplerSetting): Sampler {
  switch (setting.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(setting.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(setting.ratio) });
  }
}

/** The SDK's error handler: the first failure at once, then at most one line a minute saying how many there were. */
function rateLimited(log: (message: string) => void): (error: unknown) => void {
  let last = 0;
  let quiet = 0;
  return (error) => {
    const now = Date.now();
    if (last !== 0 && now - last < LOG_EVERY_MS) {
      quiet++;
      return;
    }
    const more = quiet > 0 ? ` (and ${quiet} more since the last report)` : '';
    last = now;
    quiet = 0;
    const message = error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
    log(`tracing: exporting spans failed: ${message}${more}; spans are dropped while the collector does not take them`);
  };
}

/** Whether `work` settled within `ms` (a failure counts as settled: there is nothing more to wait for). */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms, false);
    timer.unref();
    const settled = () => (clearTimeout(timer), resolve(true));
    work.then(settled, settled);
  });
}
