// The log side of tracing: pino's mixin adding `trace_id` and `span_id` of
// the active span to each line written while one is active (nothing when
// tracing is off: no span is ever active then).
import { trace } from '@opentelemetry/api';

export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
