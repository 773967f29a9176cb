// `npm run bench:core`: Orca's in-process core (compiler + apply() behind
// InMemoryEngine) against bpmn-engine, in one Node process, on the same BPMN
// models; first, a CMMN case scenario on Orca alone (bench-core-case.ts),
// reported in cases/s. Prints a markdown table, then one JSON line per
// scenario with the headline scenario (one-task) last, so a script can read
// the final line.
// Flags: --scenario=NAME (repeatable or comma-separated), --seconds=N (timed
// duration per engine and scenario, default 4). Speed is reported, never
// asserted; the drivers' correctness checks throw, and the process exits 1.
import { pathToFileURL } from 'node:url';
import { runBpmnEngine } from './bench-core-bpmn-engine.ts';
import { CASE_SCENARIO, formatCaseReport, runCaseBench } from './bench-core-case.ts';
import { runOrca } from './bench-core-orca.ts';
import type { EngineRun } from './bench-core-run.ts';
import { HEADLINE_SCENARIO, SCENARIOS, findScenario, type Scenario } from './bench-scenarios.ts';

export interface BenchOptions {
  scenarios: Scenario[];
  /** Run the CMMN case scenario too (all scenarios, or --scenario=case-stage). */
  cases?: boolean;
  seconds: number;
  /** Defaults to a quarter of `seconds`, at most 1 s. */
  warmupSeconds?: number;
}

export interface ScenarioResult {
  scenario: string;
  orca: EngineRun;
  bpmnEngine: EngineRun;
  /** Decisions one instance evaluates (decision scenario). */
  decisionsPerInstance?: number;
}

/** The JSON line's shape; keys in this order. */
export interface ResultLine {
  scenario: string;
  orca_pi_per_s: number;
  bpmn_engine_pi_per_s: number;
  ratio: number;
  /** Decision scenarios: decisions Orca evaluated per second. */
  orca_decisions_per_s?: number;
}

export function parseArgs(argv: string[]): BenchOptions {
  const names: string[] = [];
  let seconds = 4;
  for (const arg of argv) {
    const [flag, value] = arg.split('=', 2);
    if (flag === '--scenario' && value) names.push(...value.split(',').filter((n) => n !== ''));
    else if (flag === '--seconds' && value && Number(value) > 0) seconds = Number(value);
    else throw new Error(`Unknown or malformed argument '${arg}'. Usage: bench-core [--scenario=NAME] [--seconds=N]`);
  }
  const cases = names.length === 0 || names.includes(CASE_SCENARIO);
  const bpmn = names.filter((n) => n !== CASE_SCENARIO);
  return { scenarios: names.length === 0 ? SCENARIOS : bpmn.map(findScenario), seconds, cases };
}

export async function runBenchmark(options: BenchOptions): Promise<ScenarioResult[]> {
  const warmupSeconds = options.warmupSeconds ?? Math.min(1, options.seconds / 4);
  const results: ScenarioResult[] = [];
  // The headline scenario runs (and prints) last; the others keep their list order.
  const ordered = [...options.scenarios].sort((a, b) => Number(a.name === HEADLINE_SCENARIO) - Number(b.name === HEADLINE_SCENARIO));
  for (const scenario of ordered) {
    const timing = { seconds: options.seconds, warmupSeconds };
    const orca = runOrca(scenario, timing);
    const bpmnEngine = await runBpmnEngine(scenario, timing);
    results.push({ scenario: scenario.name, orca, bpmnEngine, decisionsPerInstance: scenario.decisionsPerInstance });
  }
  return results;
}

export function resultLine(result: ScenarioResult): ResultLine {
  return {
    scenario: result.scenario,
    orca_pi_per_s: Math.round(result.orca.perSecond),
    bpmn_engine_pi_per_s: Math.round(result.bpmnEngine.perSecond),
    ratio: Math.round((result.orca.perSecond / result.bpmnEngine.perSecond) * 10) / 10,
    ...(result.decisionsPerInstance ? { orca_decisions_per_s: Math.round(result.orca.perSecond * result.decisionsPerInstance) } : {}),
  };
}

export function formatReport(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | Orca PI/s | bpmn-engine PI/s | ratio |',
    '|---|---:|---:|---:|',
    ...results.map((r) => {
      const l = resultLine(r);
      return `| ${l.scenario} | ${l.orca_pi_per_s} | ${l.bpmn_engine_pi_per_s} | ${l.ratio.toFixed(1)} |`;
    }),
    '',
    ...results.map(
      (r) =>
        `${r.scenario}: Orca ${r.orca.instances} instances in ${r.orca.seconds.toFixed(2)} s, ` +
        `bpmn-engine ${r.bpmnEngine.instances} in ${r.bpmnEngine.seconds.toFixed(2)} s; every instance ended on both.`,
    ),
    '',
    ...results.map((r) => JSON.stringify(resultLine(r))),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.cases) console.log(formatCaseReport(runCaseBench({ seconds: options.seconds, warmupSeconds: Math.min(1, options.seconds / 4) })) + '\n');
  if (options.scenarios.length > 0) console.log(formatReport(await runBenchmark(options)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
