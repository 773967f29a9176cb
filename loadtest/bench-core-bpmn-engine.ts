// bpmn-engine's side of the core benchmark, set up the fastest way its API
// documents: the XML is parsed and serialised ONCE (bpmn-moddle → moddle-
// context-serializer, the `addSource`/`sourceContext` route in its API.md) and
// each instance is a new Engine over that shared context; service tasks call
// the scenario's workers and call back at once; the logger is silent. It
// counts service calls and 'end' events so the run checks itself as Orca's does.
//
// bpmn-moddle, bpmn-elements and moddle-context-serializer are bpmn-engine's
// own dependencies (it uses exactly these to parse); they are imported directly
// because that is how its docs share one parsed source between engines.
import { EventEmitter } from 'node:events';
import * as elements from 'bpmn-elements';
import { Engine } from 'bpmn-engine';
import serializer, { TypeResolver, type SerializableContext } from 'moddle-context-serializer';
import { BenchmarkCheckFailed, checkJobCounts, pathKey, type EngineRun, type TimedRunOptions } from './bench-core-run.ts';
import { readModel, type Scenario } from './bench-scenarios.ts';

/**
 * Instances in flight at once. Measured here (3 s runs, two rounds): 1, 4 and
 * 16 land within run-to-run noise of each other, since a service that calls
 * back at once leaves nothing to overlap and the work is all CPU (smqp
 * messages). 4 came out marginally ahead on one-task, so it is used: where in
 * doubt, the peer gets the faster setting and the ratio errs low.
 */
const CONCURRENCY = 4;

const silent = { debug() {}, error() {}, warn() {} };
const silentLogger = () => silent;

type ServiceCallback = (err: Error | null, output?: unknown) => void;
interface ServiceScope {
  environment: { variables: Record<string, unknown> };
}

/** The one bpmn-moddle call used; the package ships no types (and @types/bpmn-moddle is not installed). */
interface ModdleParser {
  fromXML(xml: string): Promise<Parameters<typeof serializer>[0]>;
}

export async function parseOnce(xml: string): Promise<SerializableContext> {
  // A computed specifier keeps the untyped module out of the type checker without a project-wide ambient declaration.
  const { default: BpmnModdle } = (await import('bpmn-moddle' as string)) as { default: new () => ModdleParser };
  const moddleContext = await new BpmnModdle().fromXML(xml.trim());
  return serializer(moddleContext, TypeResolver(elements));
}

/** The workers as bpmn-engine services (counting their calls), plus the scenario's extra functions. */
function services(scenario: Scenario, calls: Record<string, number>): Record<string, CallableFunction> {
  const result: Record<string, CallableFunction> = { ...scenario.bpmnEngineServices };
  for (const [type, worker] of Object.entries(scenario.workers)) {
    result[type] = (scope: ServiceScope, callback: ServiceCallback) => {
      calls[type]++;
      callback(null, worker(scope.environment.variables));
    };
  }
  return result;
}

interface Runner {
  /** Runs one instance to its end; resolves once 'end' fired, rejects on 'error'. */
  runOne(listener?: EventEmitter): Promise<void>;
  calls: Record<string, number>;
}

async function runner(scenario: Scenario): Promise<Runner> {
  const sourceContext = await parseOnce(readModel(scenario.bpmnEngineModel));
  const calls = Object.fromEntries(Object.keys(scenario.workers).map((t) => [t, 0]));
  const fns = services(scenario, calls);
  return {
    calls,
    async runOne(listener) {
      const engine = new Engine({ name: scenario.name, sourceContext, services: fns, Logger: silentLogger });
      // Subscribe before executing: with services calling back at once the run can end before execute() resolves.
      const ended = engine.waitFor('end');
      await Promise.all([ended, engine.execute({ variables: { ...scenario.startVariables }, ...(listener ? { listener } : {}) })]);
    },
  };
}

/** Untimed: a few instances with a listener, each must end having completed exactly the scenario's path. */
async function checkPath(run: Runner, scenario: Scenario, count = 5): Promise<void> {
  const expected = pathKey(scenario.path);
  for (let i = 0; i < count; i++) {
    const completed: string[] = [];
    const listener = new EventEmitter();
    listener.on('activity.end', (api: { id: string }) => completed.push(api.id));
    await run.runOne(listener);
    const visited = pathKey(completed);
    if (visited !== expected) throw new BenchmarkCheckFailed(`bpmn-engine ${scenario.name}: completed [${visited}], expected [${expected}].`);
  }
}

async function timed(run: Runner, scenario: Scenario, seconds: number): Promise<EngineRun> {
  for (const type of Object.keys(run.calls)) run.calls[type] = 0;
  let instances = 0;
  let completed = 0;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  const lane = async () => {
    do {
      instances++;
      await run.runOne();
      completed++;
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const elapsed = (performance.now() - startedAt) / 1000;

  if (completed !== instances) {
    throw new BenchmarkCheckFailed(`bpmn-engine ${scenario.name}: ${instances - completed} of ${instances} instances did not end.`);
  }
  const jobs = { ...run.calls };
  checkJobCounts('bpmn-engine', scenario, instances, jobs);
  return { instances, completed, seconds: elapsed, perSecond: instances / elapsed, jobs };
}

export async function runBpmnEngine(scenario: Scenario, options: TimedRunOptions): Promise<EngineRun> {
  const run = await runner(scenario);
  await checkPath(run, scenario);
  await timed(run, scenario, options.warmupSeconds);
  return timed(run, scenario, options.seconds);
}
