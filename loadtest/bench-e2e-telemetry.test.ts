import { describe, expect, it } from 'vitest';
import { parseArgs, serverTelemetry, type E2eOptions, type E2eResultLine } from './bench-e2e.ts';
import { compareTelemetry } from './bench-e2e-telemetry.ts';

const line = (max: number): E2eResultLine => ({ backend: 'embedded', max_pi_per_s: max, p99_ms_at_200: 5, activation_p99_ms: 2, errors: 0 });

describe('bench:e2e --telemetry=metrics', () => {
  it('alternates metrics off and on, one server each, and prints the ratio of the medians last', async () => {
    const order: (string | undefined)[] = [];
    const throughput = { off: [100, 300, 200], on: [90, 210, 180] };
    const run = async (options: E2eOptions): Promise<E2eResultLine> => {
      order.push(options.telemetry);
      const figures = throughput[options.telemetry as 'off' | 'on'];
      return line(figures[order.filter((t) => t === options.telemetry).length - 1]);
    };
    const report = await compareTelemetry(parseArgs(['--telemetry=metrics', '--rounds=3']), run);
    expect(order).toEqual(['off', 'on', 'off', 'on', 'off', 'on']);
    const last = JSON.parse(report.trim().split('\n').at(-1)!) as Record<string, unknown>;
    // Medians: off 200, metrics 180.
    expect(last).toEqual({ telemetry: 'metrics', rounds: 3, off_pi_per_s: [100, 300, 200], metrics_pi_per_s: [90, 210, 180], ratio: 0.9 });
    expect(report).toContain('ratio 0.900');
  });
});

describe('bench:e2e --telemetry=traces', () => {
  it('alternates traces off and on, the traced runs exporting to a loopback sink that takes OTLP, and prints the ratio last', async () => {
    const order: (string | undefined)[] = [];
    const urls = new Set<string>();
    const throughput = { off: [100, 200], traced: [95, 190] };
    const run = async (options: E2eOptions): Promise<E2eResultLine> => {
      order.push(options.telemetry);
      if (options.telemetry === 'traced') {
        urls.add(options.otlpUrl!);
        // What the server would do: one OTLP/HTTP export to the sink.
        const res = await fetch(options.otlpUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
        expect(res.status).toBe(200);
      }
      const figures = throughput[options.telemetry as 'off' | 'traced'];
      return line(figures[order.filter((t) => t === options.telemetry).length - 1]);
    };
    const report = await compareTelemetry(parseArgs(['--telemetry=traces', '--rounds=2']), run);
    expect(order).toEqual(['off', 'traced', 'off', 'traced']);
    expect(urls.size).toBe(1);
    expect(report).toContain('The sink took 2 OTLP exports (40 bytes).');
    const last = JSON.parse(report.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toEqual({ telemetry: 'traces', rounds: 2, off_pi_per_s: [100, 200], traces_pi_per_s: [95, 190], ratio: 0.95 });
    // The sink is closed with the comparison.
    await expect(fetch([...urls][0], { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('gives the traced server the OTEL_* variables of 10 % sampling to the sink, and the others none', () => {
    const options = parseArgs([]);
    expect(serverTelemetry({ ...options, telemetry: 'traced', otlpUrl: 'http://127.0.0.1:4318/v1/traces' })).toEqual({
      ORCA_METRICS: 'off',
      OTEL_SDK_DISABLED: 'false',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
    expect(serverTelemetry({ ...options, telemetry: 'off' })).toEqual({ ORCA_METRICS: 'off', OTEL_SDK_DISABLED: 'true' });
    expect(serverTelemetry(options)).toEqual({});
  });
});
