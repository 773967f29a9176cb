// bench:operator's harness is correct on a small run: every resource turns
// Ready, each was deployed exactly once, resyncs deployed nothing, and the
// report ends with the JSON line in the agreed shape. No speed figure is
// asserted here.
import { describe, expect, it } from 'vitest';
import { formatOperatorReport, runOperatorBenchmark, type OperatorBenchOptions } from './bench-operator.ts';

describe('bench:operator harness', () => {
  it('applies, waits for Ready, counts deploys and resync deploys, reports JSON last', async () => {
    const options: OperatorBenchOptions = { resources: 5, resyncs: 3, resyncSeconds: 0.2, backend: 'embedded', partitions: 2, log: () => {} };
    const result = await runOperatorBenchmark(options);
    expect(result).toMatchObject({ resources: 5, deploys: 5, deploys_on_resync: 0 });
    expect(result.all_ready_s).toBeGreaterThan(0);
    expect(result.p99_apply_to_ready_ms).toBeGreaterThan(0);
    const lines = formatOperatorReport(result, options).split('\n');
    expect(Object.keys(JSON.parse(lines[lines.length - 1]))).toEqual(['resources', 'all_ready_s', 'p99_apply_to_ready_ms', 'deploys', 'deploys_on_resync']);
  }, 120_000);
});
