// Orca's side of the core benchmark: compiles a scenario's model once, then
// drives InMemoryEngine the way a worker fleet drives the real engine: start a
// batch of instances, then drain the job queues by type (activate up to 32,
// complete each) until every instance of the batch has ended. It owns the
// checks that the run did what it claims: every instance ended, each job type
// was completed exactly as often as the model says, nothing is left queued.
import { compileBpmn } from '../engine/model/index.ts';
import type { ProcessModel } from '../engine/model/types.ts';
import { InMemoryEngine } from '../engine/runtime/in-memory-engine.ts';
import { BenchmarkCheckFailed, checkJobCounts, pathKey, type EngineRun, type TimedRunOptions } from './bench-core-run.ts';
import { readModel, type Scenario } from './bench-scenarios.ts';

/** Instances started before the queues are drained, like a worker fleet facing a burst. */
const BATCH = 1000;
/** maxJobsToActivate, as a Camunda 8 worker asks by default. */
const ACTIVATE_MAX = 32;

export function compileScenario(scenario: Scenario): ProcessModel {
  const result = compileBpmn(readModel(scenario.orcaModel));
  if (!result.ok) {
    throw new BenchmarkCheckFailed(`${scenario.orcaModel} rejected: ${result.problems.map((p) => `${p.elementId ?? '-'}: ${p.message}`).join('; ')}`);
  }
  const process = result.model.processes.find((p) => p.id === scenario.processId);
  if (process === undefined) throw new BenchmarkCheckFailed(`${scenario.orcaModel} has no process '${scenario.processId}'.`);
  return process;
}

function newEngine(scenario: Scenario, model: ProcessModel, history: boolean): InMemoryEngine {
  // Benchmarks forget ended instances so memory stays flat; the checking pass keeps them to read their history.
  const engine = history ? new InMemoryEngine({ keepHistory: true }) : new InMemoryEngine({ forgetEnded: true });
  engine.deploy(model);
  scenario.deployOrca?.(engine);
  return engine;
}

/** Activates and completes jobs of every type until a full pass over the types finds none. */
function drain(engine: InMemoryEngine, scenario: Scenario, types: string[], jobs: Record<string, number>): void {
  for (;;) {
    let handled = 0;
    for (const type of types) {
      const worker = scenario.workers[type];
      for (let batch = engine.activate(type, ACTIVATE_MAX); batch.length > 0; batch = engine.activate(type, ACTIVATE_MAX)) {
        for (const job of batch) engine.completeJob(job.key, worker(job.variables));
        jobs[type] += batch.length;
        handled += batch.length;
      }
    }
    if (handled === 0) return;
  }
}

/** Starts `count` instances and drains; returns their keys. */
function runBatch(engine: InMemoryEngine, scenario: Scenario, count: number, types: string[], jobs: Record<string, number>): string[] {
  const keys = new Array<string>(count);
  for (let i = 0; i < count; i++) keys[i] = engine.start(scenario.processId, { ...scenario.startVariables });
  drain(engine, scenario, types, jobs);
  return keys;
}

function zeroCounts(types: string[]): Record<string, number> {
  return Object.fromEntries(types.map((t) => [t, 0]));
}

/** Runs for `seconds` of wall time, in whole batches, and checks the result. */
function timed(model: ProcessModel, scenario: Scenario, seconds: number): EngineRun {
  const engine = newEngine(scenario, model, false);
  const types = Object.keys(scenario.workers);
  const jobs = zeroCounts(types);
  let instances = 0;
  let completed = 0;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  do {
    const keys = runBatch(engine, scenario, BATCH, types, jobs);
    instances += keys.length;
    // With forgetEnded, an instance that is still known has not ended (waiting, or stuck on an incident).
    for (const key of keys) if (engine.instance(key) === undefined) completed++;
  } while (performance.now() < deadline);
  const elapsed = (performance.now() - startedAt) / 1000;

  if (completed !== instances) {
    throw new BenchmarkCheckFailed(`orca ${scenario.name}: ${instances - completed} of ${instances} instances did not end.`);
  }
  for (const type of types) {
    if (engine.queued(type) !== 0) throw new BenchmarkCheckFailed(`orca ${scenario.name}: ${engine.queued(type)} '${type}' jobs left queued.`);
  }
  checkJobCounts('orca', scenario, instances, jobs);
  return { instances, completed, seconds: elapsed, perSecond: instances / elapsed, jobs };
}

/**
 * Untimed: runs a few instances keeping their history and checks each one
 * COMPLETED (not terminated, not stuck) having completed exactly the
 * scenario's path, so the timed run's "ended" really means "took the path".
 */
export function checkOrcaPath(model: ProcessModel, scenario: Scenario, count = 10): void {
  const engine = newEngine(scenario, model, true);
  const types = Object.keys(scenario.workers);
  const keys = runBatch(engine, scenario, count, types, zeroCounts(types));
  const expected = pathKey(scenario.path);
  for (const key of keys) {
    const state = engine.instance(key)?.state;
    if (state !== 'COMPLETED') throw new BenchmarkCheckFailed(`orca ${scenario.name}: instance ${key} is ${state ?? 'missing'}, not COMPLETED.`);
    const visited = pathKey(
      engine
        .history(key)
        .filter((r) => r.type === 'ELEMENT_COMPLETED' && r.elementId !== undefined)
        .map((r) => r.elementId!),
    );
    if (visited !== expected) throw new BenchmarkCheckFailed(`orca ${scenario.name}: instance ${key} completed [${visited}], expected [${expected}].`);
  }
}

export function runOrca(scenario: Scenario, options: TimedRunOptions): EngineRun {
  const model = compileScenario(scenario);
  checkOrcaPath(model, scenario);
  timed(model, scenario, options.warmupSeconds);
  return timed(model, scenario, options.seconds);
}
