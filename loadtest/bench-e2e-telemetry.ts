// `npm run bench:e2e -- --telemetry=metrics|traces`: what telemetry costs.
// The same run, alternately (off, on, off, on …, --rounds of each) in one
// invocation, so drift of the machine over time falls on both alike:
// - metrics: the server's metrics off (ORCA_METRICS=off) and on;
// - traces: metrics off in both, traces off and on — exported over OTLP/HTTP
//   at 10 % sampling (parentbased_traceidratio 0.1) to a loopback sink that
//   takes and discards them (bench-e2e-otlp-sink.ts), started for the
//   invocation.
// Prints each run's line, then the ratio of the medians of the closed
// model's maximum throughput (on ÷ off; the goal is at least 0.97
// for metrics, 0.93 for traces) and, as the LAST line,
// {"telemetry","rounds","off_pi_per_s","<metrics|traces>_pi_per_s","ratio"}.
// Nothing scrapes the server during the runs.
import type { E2eOptions, E2eResultLine, Telemetry } from './bench-e2e.ts';
import { startOtlpSink, type OtlpSink } from './bench-e2e-otlp-sink.ts';

/** The share of traces a traced run keeps. */
export const TRACE_SAMPLING = 0.1;
const GOAL = { metrics: 0.97, traces: 0.93 };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** `run` is one bench:e2e run (runE2eBenchmark's result line). */
export async function compareTelemetry(options: E2eOptions, run: (options: E2eOptions) => Promise<E2eResultLine>): Promise<string> {
  const kind = options.telemetry === 'traces' ? 'traces' : 'metrics';
  const sink: OtlpSink | undefined = kind === 'traces' ? await startOtlpSink() : undefined;
  try {
    const lines = ['| run | telemetry | max instances/s | p99 at the open rate | activation p99 | errors |', '|---:|---|---:|---:|---:|---:|'];
    const figures: Record<'off' | 'on', number[]> = { off: [], on: [] };
    for (let round = 1; round <= (options.rounds ?? 3); round++) {
      for (const side of ['off', 'on'] as const) {
        const telemetry: Telemetry = side === 'off' ? 'off' : kind === 'metrics' ? 'on' : 'traced';
        const line = await run({ ...options, telemetry, ...(telemetry === 'traced' ? { otlpUrl: sink!.url } : {}) });
        figures[side].push(line.max_pi_per_s);
        lines.push(
          `| ${round} | ${side === 'off' ? 'off' : kind} | ${line.max_pi_per_s} | ${line.p99_ms_at_200} ms | ${line.activation_p99_ms} ms | ${line.errors} |`,
        );
      }
    }
    const ratio = median(figures.on) / median(figures.off);
    const exported = sink === undefined ? '' : ` The sink took ${sink.received.requests} OTLP exports (${sink.received.bytes} bytes).`;
    const sampling = kind === 'traces' ? ` Traces sampled at ${TRACE_SAMPLING * 100} %, metrics off in both.` : '';
    lines.push(
      '',
      `Backend ${options.backend}, ${options.seconds} s per phase, ${options.rounds ?? 3} runs each, alternating.${sampling} ` +
        `Median maximum throughput: off ${median(figures.off)}, ${kind} ${median(figures.on)} instances/s; ratio ${ratio.toFixed(3)} (goal ≥ ${GOAL[kind]}).${exported}`,
      '',
      JSON.stringify({
        telemetry: kind,
        rounds: options.rounds ?? 3,
        off_pi_per_s: figures.off,
        [`${kind}_pi_per_s`]: figures.on,
        ratio: Math.round(ratio * 1000) / 1000,
      }),
    );
    return lines.join('\n');
  } finally {
    await sink?.close();
  }
}
