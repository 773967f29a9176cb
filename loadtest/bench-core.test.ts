// The core benchmark's harness is correct: each scenario runs briefly on both
// engines with every instance ending and every job counted, the report ends in
// one JSON line per scenario (one-task last), and the checks really fail a run
// that does not match its model. No speed figure is asserted here, ever.
import { describe, expect, it } from 'vitest';
import { runBpmnEngine } from './bench-core-bpmn-engine.ts';
import { runOrca } from './bench-core-orca.ts';
import { BenchmarkCheckFailed } from './bench-core-run.ts';
import { formatCaseReport, runCaseBench } from './bench-core-case.ts';
import { formatReport, parseArgs, runBenchmark } from './bench-core.ts';
import { HEADLINE_SCENARIO, SCENARIOS, findScenario, readModel } from './bench-scenarios.ts';

const brief = { seconds: 0.2, warmupSeconds: 0.02 };

describe('bench:core harness', () => {
  it('runs every scenario on both engines with every instance ending and every job counted', async () => {
    const results = await runBenchmark({ scenarios: SCENARIOS, ...brief });
    expect(results.map((r) => r.scenario).sort()).toEqual(SCENARIOS.map((s) => s.name).sort());
    for (const result of results) {
      const scenario = findScenario(result.scenario);
      for (const run of [result.orca, result.bpmnEngine]) {
        expect(run.instances).toBeGreaterThan(0);
        expect(run.completed).toBe(run.instances);
        for (const [type, count] of Object.entries(run.jobs)) {
          expect(count).toBe(run.instances * (scenario.jobsPerInstance[type] ?? 0));
        }
      }
    }

    const lines = formatReport(results).split('\n');
    expect(lines[0]).toBe('| scenario | Orca PI/s | bpmn-engine PI/s | ratio |');
    const json = lines.slice(-results.length).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(json.map((j) => j.scenario)).toEqual(results.map((r) => r.scenario));
    expect(json.at(-1)!.scenario).toBe(HEADLINE_SCENARIO);
    for (const line of json) {
      const keys = ['scenario', 'orca_pi_per_s', 'bpmn_engine_pi_per_s', 'ratio'];
      // The decision scenario adds decisions/s (one decision per instance, so equal to Orca's rate).
      if (line.scenario === 'decision') keys.push('orca_decisions_per_s');
      expect(Object.keys(line)).toEqual(keys);
      if (line.scenario === 'decision') expect(line.orca_decisions_per_s).toBe(line.orca_pi_per_s);
      expect(Number.isInteger(line.orca_pi_per_s)).toBe(true);
      expect(Number.isInteger(line.bpmn_engine_pi_per_s)).toBe(true);
      expect(Math.round((line.ratio as number) * 10)).toBe((line.ratio as number) * 10);
    }
  });

  it('fails a run whose job counts or path do not match the model', async () => {
    const oneTask = findScenario('one-task');
    const wrongCounts = { ...oneTask, jobsPerInstance: { work: 2 } };
    const wrongPath = { ...oneTask, path: ['start', 'end'] };
    expect(() => runOrca(wrongCounts, brief)).toThrow(BenchmarkCheckFailed);
    expect(() => runOrca(wrongPath, brief)).toThrow(BenchmarkCheckFailed);
    await expect(runBpmnEngine(wrongCounts, brief)).rejects.toThrow(BenchmarkCheckFailed);
    await expect(runBpmnEngine(wrongPath, brief)).rejects.toThrow(BenchmarkCheckFailed);
  });

  it("keeps each engine's copy of a model identical except for condition expressions", () => {
    const body = (xml: string) =>
      xml.replace(/<!--[\s\S]*?-->/g, '').replace(/<bpmn:conditionExpression[^>]*>[\s\S]*?<\/bpmn:conditionExpression>/g, '<condition/>');
    for (const scenario of SCENARIOS) {
      expect(body(readModel(scenario.bpmnEngineModel))).toBe(body(readModel(scenario.orcaModel)));
    }
  });

  it('runs the CMMN case scenario with every case completed and two jobs per case', () => {
    const run = runCaseBench(brief);
    expect(run.instances).toBeGreaterThan(0);
    expect(run.completed).toBe(run.instances);
    expect(run.jobs).toEqual({ userTask: run.instances * 2 });
    const [, json] = formatCaseReport(run).split('\n');
    expect(Object.keys(JSON.parse(json) as object)).toEqual(['scenario', 'orca_cases_per_s']);
  });

  it('parses --scenario and --seconds, and rejects anything else', () => {
    expect(parseArgs([]).cases).toBe(true);
    expect(parseArgs(['--scenario=case-stage'])).toMatchObject({ scenarios: [], cases: true });
    expect(parseArgs(['--scenario=one-task']).cases).toBe(false);
    expect(parseArgs([]).scenarios).toEqual(SCENARIOS);
    const options = parseArgs(['--scenario=order-flow', '--seconds=1.5']);
    expect(options.scenarios.map((s) => s.name)).toEqual(['order-flow']);
    expect(options.seconds).toBe(1.5);
    expect(() => parseArgs(['--scenario=nope'])).toThrow(/Unknown scenario/);
    expect(() => parseArgs(['--seconds=0'])).toThrow(/malformed/);
    expect(() => parseArgs(['--fast'])).toThrow(/Unknown or malformed/);
  });
});
