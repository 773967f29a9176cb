// `bench:mcp`'s harness is sound, at a tiny scale and with no speed figure
// asserted: it parses its flags, and a brief run against a real server
// (child process; Postgres and Redis when set, else the embedded default)
// completes every instance through both doors, with the lean clients and
// with the SDK's, fills every figure and ends with the JSON line.
import { describe, expect, it } from 'vitest';
import { formatMcpReport, parseArgs, runMcpBenchmark } from './bench-mcp.ts';

describe('bench:mcp', () => {
  it('parses its flags and refuses unknown ones', () => {
    expect(parseArgs(['--instances=1_000', '--concurrency=4'])).toMatchObject({ instances: 1000, rounds: 2, concurrency: 4, partitions: 4 });
    expect(parseArgs(['--client=sdk'])).toMatchObject({ client: 'sdk' });
    expect(() => parseArgs(['--fast'])).toThrow(/unknown argument/);
    expect(() => parseArgs(['--client=k6'])).toThrow(/unknown argument/);
    expect(() => parseArgs(['--rounds=0'])).toThrow(/positive/);
  });

  it.each(['lean', 'sdk'] as const)(
    'runs both doors against a real server with %s clients and ends with the JSON line',
    async (client) => {
      const result = await runMcpBenchmark({ instances: 6, rounds: 2, concurrency: 2, partitions: 2, client });
      expect(result.client).toBe(client);
      for (const door of [result.rest, result.mcp]) {
        expect(door.instances).toBe(12);
        expect(door.perSecond).toBeGreaterThan(0);
        for (const call of Object.values(door.calls)) {
          expect(call.count).toBeGreaterThanOrEqual(12);
          expect(call.p99).toBeGreaterThanOrEqual(call.p50);
        }
      }
      expect(result.ratio).toBeGreaterThan(0);
      const last = JSON.parse(formatMcpReport(result).split('\n').at(-1)!);
      expect(last).toMatchObject({ bench: 'mcp', ratio: result.ratio, rest: { instances: 12 }, mcp: { instances: 12 } });
    },
    300_000,
  );
});
