// What the engine records for traces, through @opentelemetry/api only (the
// service registers the SDK, api/tracing/): the engine is handed a Tracer
// when tracing is on and none when it is off, so with tracing off the hot
// path makes no tracing call at all. A command carries its sender's W3C
// trace context (`traceparent`) to the partition leader, over the stream or
// in memory, only when the sender's span is sampled: a leader's batch span
// links to the requests whose commands it carries.
import { context, ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags, type Attributes, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';

export type { Tracer };

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C traceparent of the active span when it is sampled (nothing else is worth linking to); else undefined. */
export function sampledTraceparent(): string | undefined {
  const span = trace.getSpan(context.active());
  if (span === undefined) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if ((traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** The span context a traceparent names (remote); undefined when it is not one (a command from elsewhere). */
export function spanContextOf(traceparent: unknown): SpanContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (match === null || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
  return { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16), isRemote: true };
}

/** The context whose parent is `span` (for children started outside its callback). */
export function contextOf(span: Span) {
  return trace.setSpan(ROOT_CONTEXT, span);
}

/** Runs `work` in a new active span, ending it when the work settles; a throw marks the span an error. */
export async function inSpan<T>(tracer: Tracer, name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed by `err` (its code, for an EngineError, as an attribute). */
export function failed(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') span.setAttribute('orca.error.code', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/** `trace_id` and `span_id` of the active span, for a log line; undefined when none is active. */
export function traceFields(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
