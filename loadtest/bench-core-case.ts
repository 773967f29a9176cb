// bench:core's case scenario: CMMN cases through the in-process case runtime
// (compileCmmn + applyCase behind InMemoryCaseEngine), driven like the BPMN
// scenarios — start a batch of cases, then activate and complete their
// `userTask` jobs until every case has ended. There is no CMMN engine in the
// comparison, so it reports cases/s alone. It checks its own result: every
// case COMPLETED with every plan item done, two jobs per case, none left.
import { compileCmmn } from '../engine/cmmn/index.ts';
import { InMemoryCaseEngine } from '../engine/cmmn/runtime/in-memory-case-engine.ts';
import type { CaseModel } from '../engine/cmmn/types.ts';
import { BenchmarkCheckFailed, type EngineRun, type TimedRunOptions } from './bench-core-run.ts';
import { readModel } from './bench-scenarios.ts';

export const CASE_SCENARIO = 'case-stage';
const BATCH = 1000;
const ACTIVATE_MAX = 32;
const JOBS_PER_CASE = 2;

export interface CaseResultLine {
  scenario: string;
  orca_cases_per_s: number;
}

function compileCase(): CaseModel {
  const result = compileCmmn(readModel('case-stage.cmmn'));
  if (!result.ok) throw new BenchmarkCheckFailed(`case-stage.cmmn rejected: ${result.problems.map((p) => `${p.elementId ?? '-'}: ${p.message}`).join('; ')}`);
  return result.model.cases[0];
}

function runBatch(engine: InMemoryCaseEngine, model: CaseModel, count: number): { keys: string[]; jobs: number } {
  const keys = new Array<string>(count);
  for (let i = 0; i < count; i++) keys[i] = engine.startCase(model.id, { amount: i });
  let jobs = 0;
  for (let batch = engine.activate('userTask', ACTIVATE_MAX); batch.length > 0; batch = engine.activate('userTask', ACTIVATE_MAX)) {
    for (const job of batch) engine.completeJob(job.key, { done: true });
    jobs += batch.length;
  }
  return { keys, jobs };
}

/** Untimed: a few cases kept in memory, each COMPLETED with every plan item COMPLETED. */
export function checkCases(model: CaseModel, count = 10): void {
  const engine = new InMemoryCaseEngine();
  engine.deployCase(model);
  const { keys } = runBatch(engine, model, count);
  for (const key of keys) {
    const instance = engine.caseInstance(key);
    if (instance?.state !== 'COMPLETED')
      throw new BenchmarkCheckFailed(`orca ${CASE_SCENARIO}: case ${key} is ${instance?.state ?? 'missing'}, not COMPLETED.`);
    const items = Object.values(instance.planItems);
    const notDone = items.filter((p) => p.state !== 'COMPLETED').map((p) => `${p.id}=${p.state}`);
    if (items.length !== 5 || notDone.length > 0)
      throw new BenchmarkCheckFailed(`orca ${CASE_SCENARIO}: case ${key} plan items not all COMPLETED: ${notDone.join(', ')}`);
  }
}

function timed(model: CaseModel, seconds: number): EngineRun {
  const engine = new InMemoryCaseEngine({ forgetEnded: true });
  engine.deployCase(model);
  let instances = 0;
  let completed = 0;
  let jobs = 0;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  do {
    const batch = runBatch(engine, model, BATCH);
    instances += batch.keys.length;
    jobs += batch.jobs;
    // With forgetEnded, a case still known has not ended.
    for (const key of batch.keys) if (engine.caseInstance(key) === undefined) completed++;
  } while (performance.now() < deadline);
  const elapsed = (performance.now() - startedAt) / 1000;
  if (completed !== instances) throw new BenchmarkCheckFailed(`orca ${CASE_SCENARIO}: ${instances - completed} of ${instances} cases did not end.`);
  if (jobs !== instances * JOBS_PER_CASE)
    throw new BenchmarkCheckFailed(`orca ${CASE_SCENARIO}: ${jobs} jobs for ${instances} cases, expected ${instances * JOBS_PER_CASE}.`);
  return { instances, completed, seconds: elapsed, perSecond: instances / elapsed, jobs: { userTask: jobs } };
}

export function runCaseBench(options: TimedRunOptions): EngineRun {
  const model = compileCase();
  checkCases(model);
  timed(model, options.warmupSeconds);
  return timed(model, options.seconds);
}

export function formatCaseReport(run: EngineRun): string {
  const line: CaseResultLine = { scenario: CASE_SCENARIO, orca_cases_per_s: Math.round(run.perSecond) };
  return [
    `${CASE_SCENARIO} (CMMN: a stage, two human tasks, a milestone): Orca ${line.orca_cases_per_s} cases/s, ` +
      `${run.instances} cases in ${run.seconds.toFixed(2)} s, each COMPLETED after its two jobs.`,
    JSON.stringify(line),
  ].join('\n');
}
