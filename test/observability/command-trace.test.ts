// What a command carries of the trace, read back from the partition's real
// command stream (in-process, and Redis when REDIS_URL is set), with no
// leader to take it: with tracing off, nothing — the command is exactly
// what it was; with tracing on, the W3C traceparent of the sender's span
// when that span is sampled, and nothing for a span sampled out. And the
// engine's log lines carry trace_id and span_id while a span is active.
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../api/tracing/sdk.ts';
import { traceLogFields } from '../../api/tracing/log-fields.ts';
import { NO_METRICS } from '../../engine/metrics.ts';
import { commandClient } from '../../engine/partition/command-client.ts';
import type { EngineCommand } from '../../engine/partition/commands.ts';
import { stderrLog } from '../../engine/partition/log.ts';
import { implementations, title } from '../../engine/queue/testing/implementations.ts';
import type { Queues } from '../../engine/queue/index.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
beforeAll(() => {
  tracing = startTracing({ url: 'http://127.0.0.1:9/v1/traces', sampler: { name: 'parentbased_always_on' }, serviceName: 'orca-test' }, { exporter });
});
afterAll(() => tracing.shutdown());

const PARTITION = 1;
const start = (): EngineCommand => ({ kind: 'start', account: 'acme', bpmnProcessId: 'order', variables: { n: 1 } });

for (const implementation of implementations) {
  describe.skipIf(implementation.skip)(`the trace context inside a command (${title(implementation)})`, () => {
    const harness = implementation.harness();
    let queues: Queues;
    let readFrom = '0';
    beforeAll(async () => {
      queues = await harness.open();
    });
    afterAll(() => harness.cleanup());

    /** Sends one command through a client (no leader: it goes over the stream and nobody answers) and returns the entry the stream got. */
    async function sent(traced: boolean, command: EngineCommand, within?: Parameters<typeof context.with>[0]): Promise<EngineCommand> {
      const send = commandClient({ queues, replyTimeoutMs: 50, maxPending: 100, metrics: NO_METRICS, tracer: traced ? tracing.tracer : undefined });
      const sending = send(PARTITION, command).catch((err: unknown) => err);
      await (within === undefined ? sending : context.with(within, () => sending));
      const entries = await queues.commands.read(PARTITION, readFrom, 10, 0);
      expect(entries).toHaveLength(1);
      readFrom = entries[0].id;
      return entries[0].payload as EngineCommand;
    }

    it('with tracing off adds nothing to the command, even inside a sampled span', async () => {
      await tracing.tracer.startActiveSpan('caller', async (span) => {
        const payload = await sent(false, start());
        span.end();
        expect(payload).toEqual({ ...start(), fresh: true });
        expect('trace' in payload).toBe(false);
      });
    });

    it('with tracing on carries the sampled sender’s traceparent', async () => {
      await tracing.tracer.startActiveSpan('caller', async (span) => {
        const payload = await sent(true, start());
        span.end();
        const { traceId, spanId } = span.spanContext();
        expect(payload.trace).toBe(`00-${traceId}-${spanId}-01`);
      });
    });

    it('with tracing on carries nothing for a sender sampled out, or with no span', async () => {
      const unsampled = trace.setSpanContext(context.active(), {
        traceId: 'a'.repeat(32),
        spanId: 'b'.repeat(16),
        traceFlags: TraceFlags.NONE,
        isRemote: true,
      });
      expect('trace' in (await sent(true, start(), unsampled))).toBe(false);
      expect('trace' in (await sent(true, start()))).toBe(false);
    });
  });
}

describe('log lines inside a span', () => {
  it('carry trace_id and span_id: the engine’s own lines and the server logger’s mixin', () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (written.push(chunk), true)) as typeof process.stderr.write;
    let ids: { traceId: string; spanId: string };
    let mixed: Record<string, string>;
    try {
      tracing.tracer.startActiveSpan('work', (span) => {
        ids = span.spanContext();
        stderrLog.warn({ partition: 1 }, 'a command was set aside');
        mixed = traceLogFields();
        span.end();
      });
      stderrLog.warn({ partition: 1 }, 'outside any span');
    } finally {
      process.stderr.write = write;
    }
    const [inside, outside] = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inside).toMatchObject({ trace_id: ids!.traceId, span_id: ids!.spanId, partition: 1, msg: 'a command was set aside' });
    expect(mixed!).toEqual({ trace_id: ids!.traceId, span_id: ids!.spanId });
    expect(outside).not.toHaveProperty('trace_id');
    expect(traceLogFields()).toEqual({});
  });
});
