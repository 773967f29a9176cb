// Every model in ../shared/bpmn that the compiler accepts and that uses
// timers, boundary events, event subprocesses, call activities,
// multi-instance, error/escalation/link events, event-based gateways or
// decisions, simulated to its end: deployed with what it calls (sibling
// shared files, decisions from ../shared/dmn), started with variables chosen
// after reading the model, driven by completing jobs and firing timers on a
// fake clock, and checked against the path and end state read off the model.
// Where a called process or decision exists nowhere, the end is the incident
// that says so.
//
// The clock is the faked system time, so FEEL's now() and today() agree with
// the engine's clock.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compileDmn } from '../dmn/index.ts';
import { compileBpmn } from '../model/index.ts';
import { CommandRejected, InMemoryEngine, type ActivatedJob } from './in-memory-engine.ts';
import { visited } from './testing.ts';
import type { Incident, InstanceState, ProcessInstance, Variables } from './types.ts';

const shared = (path: string) => new URL(`../../../shared/${path}`, import.meta.url);
const present = existsSync(fileURLToPath(shared('bpmn/')));

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A Tuesday. */
const TUESDAY = Date.UTC(2026, 0, 6, 9);
const WEDNESDAY = Date.UTC(2026, 0, 7, 9);

/** An engine with every executable process of the shared BPMN files and every decision of the shared DMN files. */
function sharedEngine(bpmn: string[], dmn: string[] = []): InMemoryEngine {
  const engine = new InMemoryEngine({ now: () => Date.now(), keepHistory: true });
  for (const file of dmn) {
    const compiled = compileDmn(readFileSync(shared(`dmn/${file}`), 'utf8'));
    if (!compiled.ok) throw new Error(`${file} rejected: ${JSON.stringify(compiled.problems)}`);
    engine.deployDecisions(compiled.model);
  }
  for (const file of bpmn) {
    const result = compileBpmn(readFileSync(shared(`bpmn/${file}`), 'utf8'));
    if (!result.ok) throw new Error(`${file} rejected:\n${result.problems.map((p) => `${p.elementId ?? '-'}: ${p.message}`).join('\n')}`);
    for (const process of result.model.processes) engine.deploy(process);
  }
  return engine;
}

/** The problems of a shared file the compiler rejects. */
function rejection(file: string): { elementId?: string; message: string }[] {
  const result = compileBpmn(readFileSync(shared(`bpmn/${file}`), 'utf8'));
  if (result.ok) throw new Error(`${file} was accepted`);
  return result.problems;
}

function later(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
}

/** The one job of `type` waiting now. */
function only(engine: InMemoryEngine, type: string): ActivatedJob {
  const jobs = engine.activate(type, 10);
  expect(
    jobs.map((j) => j.type),
    `jobs of type '${type}'`,
  ).toEqual([type]);
  return jobs[0];
}

function complete(engine: InMemoryEngine, type: string, variables?: Variables): ActivatedJob {
  const job = only(engine, type);
  engine.completeJob(job.key, variables);
  return job;
}

function instance(engine: InMemoryEngine, key: string): ProcessInstance {
  const found = engine.instance(key);
  if (found === undefined) throw new Error(`no instance ${key}`);
  return found;
}

function state(engine: InMemoryEngine, key: string): InstanceState {
  return instance(engine, key).state;
}

function variables(engine: InMemoryEngine, key: string): Variables {
  return instance(engine, key).variables[key];
}

function incidents(engine: InMemoryEngine, key: string): Incident[] {
  return Object.values(instance(engine, key).incidents);
}

function terminated(engine: InMemoryEngine, key: string): string[] {
  return engine
    .history(key)
    .filter((r) => r.type === 'ELEMENT_TERMINATED')
    .map((r) => r.elementId!);
}

function onlyChild(engine: InMemoryEngine, key: string): ProcessInstance {
  const children = engine.children(key);
  expect(children).toHaveLength(1);
  return children[0];
}

/** Keys of the instances `engine.start` created from now on (timer start events included). */
function recordStarts(engine: InMemoryEngine): () => string[] {
  const spy = vi.spyOn(engine, 'start');
  return () => spy.mock.results.filter((r) => r.type === 'return').map((r) => r.value as string);
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(TUESDAY);
});

afterEach(() => {
  vi.useRealTimers();
});

if (!present) console.warn(`shared BPMN models not found at ${fileURLToPath(shared('bpmn/'))}; skipping their simulations`);

describe.skipIf(!present)('shared models simulated to their end', () => {
  describe('bench-complex-process.bpmn + bench-complex-subprocess.bpmn', () => {
    it('waits 5 s, calls benchmark-subprocess once per list item, whose decision benchmark-decision is deployed nowhere', () => {
      // bench-complex-decision.dmn holds benchmark-decision-2x10, not benchmark-decision.
      const engine = sharedEngine(['bench-complex-process.bpmn', 'bench-complex-subprocess.bpmn'], ['bench-complex-decision.dmn']);
      const key = engine.start('benchmark-complex', { list: ['a', 'b'], benchmark_starter_id: 'sim' });
      expect(engine.nextTimerDue()).toBe(TUESDAY + 5 * SECOND);
      expect(engine.children(key)).toHaveLength(0);
      later(5 * SECOND);
      expect(engine.fireDueTimers()).toBe(1);

      const children = engine.children(key);
      expect(children.map((c) => c.bpmnProcessId)).toEqual(['benchmark-subprocess', 'benchmark-subprocess']);
      expect(children.map((c) => c.variables[c.key].listItem)).toEqual(['a', 'b']);
      for (const child of children) {
        expect(child.state).toBe('INCIDENT');
        const [incident] = Object.values(child.incidents);
        expect(incident).toMatchObject({ type: 'DECISION_EVALUATION_ERROR', elementId: 'Activity_0ehlkav' });
        expect(incident.message).toContain("Decision 'benchmark-decision'");
        expect(visited(engine, child.key)).toEqual(['StartEvent_1']);
      }
      // The parent waits in its call activities; the completion marker never gets a job.
      expect(state(engine, key)).toBe('ACTIVE');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Event_1orpd24', 'Event_02rgkje', 'Event_02rgkje']);
      expect(engine.activate('benchmark-task-sim-completed', 1)).toHaveLength(0);
    });
  });

  describe('bench-poc-random-script.bpmn + bench-event-classification.dmn', () => {
    const start = (engine: InMemoryEngine, metric: string, severity: string) =>
      engine.start('eventHandling_random', { metric_value: metric, severity_ordinal: severity });

    it('the decision classifies, the script job re-rolls the priority to "Further verification": AI classification and manual screening', () => {
      const engine = sharedEngine(['bench-poc-random-script.bpmn'], ['bench-event-classification.dmn']);
      const key = start(engine, 'High priority', '95');
      const script = complete(engine, 'script:Randomize event type', { evaluatedPriority: 'Further verification' });
      expect(script.variables).toMatchObject({ evaluatedPriority: 'High priority', randomInputMetric: 1 });
      expect(script.customHeaders['script.resultVariable']).toBe('evaluatedPriority');
      complete(engine, 'benchmark-task-3');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual([
        'StartEvent_1',
        'Activity_0k7yr3p',
        'Activity_0w0p4ab',
        'Gateway_1voyc8i',
        'Activity_0o7n1t3',
        'Activity_1l2g9z5',
        'Event_13lj5yu',
      ]);
    });

    it('a priority the worker keeps: "High priority" takes the default flow to Kafka, "Low priority" goes to S3', () => {
      const engine = sharedEngine(['bench-poc-random-script.bpmn'], ['bench-event-classification.dmn']);
      const high = start(engine, 'Low priority', '30');
      complete(engine, 'script:Randomize event type');
      complete(engine, 'benchmark-task-1');
      expect(state(engine, high)).toBe('COMPLETED');
      expect(variables(engine, high).evaluatedPriority).toBe('High priority');
      expect(visited(engine, high)).toEqual(['StartEvent_1', 'Activity_0k7yr3p', 'Activity_0w0p4ab', 'Gateway_1voyc8i', 'Activity_1bx59ys', 'Event_084tl11']);

      const low = start(engine, 'Low priority', '10');
      complete(engine, 'script:Randomize event type');
      complete(engine, 'benchmark-task-2');
      expect(state(engine, low)).toBe('COMPLETED');
      expect(visited(engine, low)).toEqual(['StartEvent_1', 'Activity_0k7yr3p', 'Activity_0w0p4ab', 'Gateway_1voyc8i', 'Activity_00iksgk', 'Event_1yvez7u']);
    });

    it('"Ignore" ends at once without any further job', () => {
      const engine = sharedEngine(['bench-poc-random-script.bpmn'], ['bench-event-classification.dmn']);
      const key = start(engine, 'Ignore', '0');
      complete(engine, 'script:Randomize event type');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Activity_0k7yr3p', 'Activity_0w0p4ab', 'Gateway_1voyc8i', 'Event_00kw4eu']);
    });
  });

  describe('bpmnmodel-model-walker.bpmn', () => {
    it('on a Tuesday the token waits 15 s on the timer branch', () => {
      const engine = sharedEngine(['bpmnmodel-model-walker.bpmn']);
      const key = engine.start('process');
      expect(engine.activate('task', 1)).toHaveLength(0);
      later(15 * SECOND);
      expect(engine.fireDueTimers()).toBe(1);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['start', 'fork', 'timer', 'join', 'end']);
    });

    it('on any other day it takes the default flow through the service task', () => {
      vi.setSystemTime(WEDNESDAY);
      const engine = sharedEngine(['bpmnmodel-model-walker.bpmn']);
      const key = engine.start('process');
      expect(engine.nextTimerDue()).toBeUndefined();
      complete(engine, 'task');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['start', 'fork', 'task', 'join', 'end']);
    });
  });

  describe('link events', () => {
    it('c8nz-bpmnmodel-link-valid.bpmn: M1, the LinkA throw jumps to its catch, M2', () => {
      const engine = sharedEngine(['c8nz-bpmnmodel-link-valid.bpmn']);
      const key = engine.start('Process_05x4y1u');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Activity_1k5srs3', 'Event_1xpudal', 'Event_1l6b80w', 'Activity_0khevjp', 'Event_18wuva8']);
    });

    it('c8nz-coverage-link-events.bpmn: the throw in one lane continues at the catch in the other', () => {
      const engine = sharedEngine(['c8nz-coverage-link-events.bpmn']);
      const key = engine.start('Testprocess');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Event_ThrowLinkEvent', 'Event_03n57hz', 'Event_0rssftv']);
    });
  });

  // actionRunner reads `is defined(action.provider.timeout)` (start output) and `is defined(action.pauses)`
  // (the gateway after the action): Camunda's `is defined`, which engine/feel adds to feelin.
  describe('chaos-action-runner.bpmn', () => {
    const action = (provider: Variables, extra: Variables = {}) => ({
      action: { name: 'kill-broker', provider: { path: 'chaos-kill', ...provider }, ...extra },
      testReport: { failureMessages: [] },
    });

    it('runs the action as a job of the type the action names and succeeds; the timeout boundary is disarmed', () => {
      const engine = sharedEngine(['chaos-action-runner.bpmn']);
      const key = engine.start('actionRunner', action({ timeout: 30 }));
      expect(engine.nextTimerDue()).toBe(TUESDAY + 30 * SECOND);
      const job = complete(engine, 'chaos-kill');
      expect(job.variables).toMatchObject({ provider: { path: 'chaos-kill', timeout: 30 }, timeout: 'PT30S', successfulRun: true });
      expect(engine.nextTimerDue()).toBeUndefined();
      expect(state(engine, key)).toBe('COMPLETED');
      expect(variables(engine, key).successfulRun).toBe(true);
      expect(visited(engine, key)).toEqual(['Event_1hncl4g', 'Activity_1xzr6io', 'Gateway_1d8stud', 'Gateway_0gybtdt', 'Event_13pyqn2']);
    });

    it('pauses after the action for action.pauses.after seconds', () => {
      const engine = sharedEngine(['chaos-action-runner.bpmn']);
      const key = engine.start('actionRunner', action({}, { pauses: { after: 20 } }));
      complete(engine, 'chaos-kill');
      expect(engine.nextTimerDue()).toBe(TUESDAY + 20 * SECOND);
      later(20 * SECOND);
      expect(engine.fireDueTimers()).toBe(1);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['Event_1hncl4g', 'Activity_1xzr6io', 'Gateway_1d8stud', 'Event_0zo9lot', 'Gateway_0gybtdt', 'Event_13pyqn2']);
    });

    it('times out after the default hour: the job is withdrawn, the failure is recorded, the run ends as failed', () => {
      const engine = sharedEngine(['chaos-action-runner.bpmn']);
      const key = engine.start('actionRunner', action({}));
      const job = only(engine, 'chaos-kill');
      expect(job.variables.timeout).toBe('PT1H');
      later(HOUR - 1);
      expect(engine.fireDueTimers()).toBe(0);
      later(1);
      expect(engine.fireDueTimers()).toBe(1);
      expect(() => engine.completeJob(job.key)).toThrow(CommandRejected);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(variables(engine, key)).toMatchObject({
        successfulRun: false,
        testReport: { failureMessages: [" Action with name: 'kill-broker' timed out after PT1H."] },
      });
      expect(visited(engine, key)).toEqual(['Event_1hncl4g', 'Event_0owkcly', 'Event_1quq7fu']);
      expect(terminated(engine, key)).toEqual(['Activity_1xzr6io']);
    });
  });

  describe('chaos-experiment.bpmn + chaos-action-runner.bpmn', () => {
    /** Each step's provider.timeout (seconds) overrides actionRunner's default of an hour. */
    const experiment = (timeout?: number) => {
      const step = (path: string) => ({ name: path, provider: timeout === undefined ? { path } : { path, timeout } });
      return {
        experiment: { title: 'Kill a broker' },
        steadyState: { probes: [step('probe')] },
        method: [step('chaos')],
        testReport: { failureMessages: [] },
      };
    };
    const VERIFY_1 = ['Event_1acs4yl', 'Activity_08p87mg', 'Gateway_03n7r1p', 'Event_1rgucvf', 'Activity_1cxs1dd', 'Activity_1cxs1dd'];
    const CHAOS = ['Event_00iakpz', 'Activity_1jg7jgx', 'Gateway_0i6jab9', 'Event_1r630xy', 'Activity_0nqerfm', 'Activity_0nqerfm'];
    const VERIFY_2 = ['Event_0j24lps', 'Activity_11qmcik', 'Gateway_0jwe1c7', 'Event_1ypntjj', 'Activity_1elridj', 'Activity_1elridj'];

    it('steady state, chaos, steady state again, each through an actionRunner child: the experiment succeeds', () => {
      const engine = sharedEngine(['chaos-experiment.bpmn', 'chaos-action-runner.bpmn']);
      const key = engine.start('chaosExperiment', experiment(30));
      for (const type of ['probe', 'chaos', 'probe']) {
        const job = complete(engine, type);
        expect(job.bpmnProcessId).toBe('actionRunner');
        expect(job.variables).toMatchObject({ action: { name: type }, experiment: { title: 'Kill a broker' } });
      }
      expect(engine.children(key).map((c) => [c.bpmnProcessId, c.state])).toEqual([
        ['actionRunner', 'COMPLETED'],
        ['actionRunner', 'COMPLETED'],
        ['actionRunner', 'COMPLETED'],
      ]);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(variables(engine, key)).toMatchObject({ successfulExperiment: true, successfulRun: true, testReport: { failureMessages: [] } });
      expect(visited(engine, key)).toEqual([
        'StartEvent_1',
        'Event_1u9f9sk',
        ...VERIFY_1,
        ...CHAOS,
        ...VERIFY_2,
        'Event_0ulf3ce',
        'Activity_11tzpu9',
        'Event_0cqap4f',
      ]);
      expect(engine.nextTimerDue()).toBeUndefined();
    });

    it('a probe that times out in the child (after the default hour) fails the run: the error end is caught by the boundary on the experiment', () => {
      const engine = sharedEngine(['chaos-experiment.bpmn', 'chaos-action-runner.bpmn']);
      const key = engine.start('chaosExperiment', experiment());
      const child = onlyChild(engine, key);
      only(engine, 'probe');
      expect(engine.nextTimerDue()).toBe(TUESDAY + HOUR);
      later(HOUR);
      expect(engine.fireDueTimers()).toBe(1);
      expect(state(engine, child.key)).toBe('COMPLETED');
      expect(visited(engine, child.key)).toEqual(['Event_1hncl4g', 'Event_0owkcly', 'Event_1quq7fu']);

      expect(engine.history(key).filter((r) => r.type === 'ERROR_THROWN')).toMatchObject([
        { elementId: 'Event_0sw0eal', detail: { errorCode: 'failedAction' } },
      ]);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual([
        'StartEvent_1',
        'Event_1u9f9sk',
        'Event_1acs4yl',
        'Activity_08p87mg',
        'Gateway_03n7r1p',
        'Event_06uq3eg',
        'Gateway_1ty24uf',
        'Event_0i9wjj1',
      ]);
      expect(terminated(engine, key)).toContain('Activity_11tzpu9');
      expect(variables(engine, key)).toMatchObject({
        successfulExperiment: false,
        testReport: { failureMessages: [" Action with name: 'probe' timed out after PT1H.", " Chaos experiment 'Kill a broker' failed."] },
      });
      expect(engine.activate('chaos', 1)).toHaveLength(0);
      expect(engine.nextTimerDue()).toBeUndefined();
    });

    it('an experiment still running after 3 hours is cut off by the timer boundary, which cancels the running child', () => {
      const engine = sharedEngine(['chaos-experiment.bpmn', 'chaos-action-runner.bpmn']);
      // The action's own timeout (10 hours) is later than the experiment's.
      const key = engine.start('chaosExperiment', experiment(36_000));
      complete(engine, 'probe');
      const chaos = only(engine, 'chaos');
      expect(engine.nextTimerDue()).toBe(TUESDAY + 3 * HOUR);
      later(3 * HOUR);
      expect(engine.fireDueTimers()).toBe(1);

      const [first, second] = engine.children(key);
      expect([first.state, second.state]).toEqual(['COMPLETED', 'TERMINATED']);
      expect(() => engine.completeJob(chaos.key)).toThrow(CommandRejected);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual([
        'StartEvent_1',
        'Event_1u9f9sk',
        ...VERIFY_1,
        'Event_00iakpz',
        'Event_036qm76',
        'Gateway_1ty24uf',
        'Event_0i9wjj1',
      ]);
      expect(terminated(engine, key)).toEqual(['Activity_1jg7jgx', 'Activity_0nqerfm', 'Activity_0nqerfm', 'Activity_11tzpu9']);
      expect(variables(engine, key)).toMatchObject({
        successfulExperiment: false,
        testReport: { failureMessages: [' Chaos experiment Kill a broker failed.'] },
      });
      expect(engine.nextTimerDue()).toBeUndefined();
    });
  });

  describe('chaos-toolkit.bpmn + chaos-experiment.bpmn + chaos-action-runner.bpmn', () => {
    // chaosToolkit reads the experiments (a job), then runs chaosExperiment once per experiment (a sequential
    // multi-instance subprocess around a call activity), mapping experiment.`steady-state-hypothesis` to
    // steadyState: a backtick name, which engine/feel rewrites for feelin.
    const step = (path: string) => ({ name: path, provider: { path, timeout: 30 } });
    const experiment = (title: string) => ({
      title,
      description: `${title} described`,
      'steady-state-hypothesis': { title: 'all brokers up', probes: [step('probe')] },
      method: [step('chaos')],
    });
    const cluster = { clusterPlan: 'small', clusterName: 'c1', clusterId: 'id-1' };
    const start = (engine: InMemoryEngine) => {
      const key = engine.start('chaosToolkit', cluster);
      complete(engine, 'readExperiments', { experiments: [experiment('one'), experiment('two')] });
      return key;
    };
    const RUN = ['Event_0c2kswe', 'Activity_1a7lifm', 'Gateway_0k7901b', 'Event_1riaxno', 'Activity_1neh8m1'];
    const EXPERIMENT = [
      ...['StartEvent_1', 'Event_1u9f9sk'],
      ...['Event_1acs4yl', 'Activity_08p87mg', 'Gateway_03n7r1p', 'Event_1rgucvf', 'Activity_1cxs1dd', 'Activity_1cxs1dd'],
      ...['Event_00iakpz', 'Activity_1jg7jgx', 'Gateway_0i6jab9', 'Event_1r630xy', 'Activity_0nqerfm', 'Activity_0nqerfm'],
      ...['Event_0j24lps', 'Activity_11qmcik', 'Gateway_0jwe1c7', 'Event_1ypntjj', 'Activity_1elridj', 'Activity_1elridj'],
      ...['Event_0ulf3ce', 'Activity_11tzpu9', 'Event_0cqap4f'],
    ];
    const FILES = ['chaos-toolkit.bpmn', 'chaos-experiment.bpmn', 'chaos-action-runner.bpmn'];

    it('runs each experiment in turn, its steady state read through the backtick name; all pass', () => {
      const engine = sharedEngine(FILES);
      const key = start(engine);
      for (const type of ['probe', 'chaos', 'probe', 'probe', 'chaos', 'probe']) complete(engine, type);
      const children = engine.children(key);
      expect(children.map((c) => [c.bpmnProcessId, c.state])).toEqual([
        ['chaosExperiment', 'COMPLETED'],
        ['chaosExperiment', 'COMPLETED'],
      ]);
      for (const [i, child] of children.entries()) {
        const title = ['one', 'two'][i];
        expect(child.variables[child.key]).toMatchObject({
          title,
          description: `${title} described`,
          steadyState: { title: 'all brokers up', probes: [step('probe')] },
          method: [step('chaos')],
        });
        expect(visited(engine, child.key)).toEqual(EXPERIMENT);
      }
      expect(state(engine, key)).toBe('COMPLETED');
      expect(variables(engine, key)).toMatchObject({ successfulExperiment: true, testReport: { testResult: 'PASSED', failureMessages: [] } });
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Activity_0a7hels', ...RUN, ...RUN, 'Activity_1neh8m1', 'Event_152ucof']);
    });

    it('a failed chaos action fails its experiment, which throws experimentFailed: the boundary on the loop ends the run', () => {
      const engine = sharedEngine(FILES);
      const key = start(engine);
      complete(engine, 'probe');
      complete(engine, 'chaos', { successfulRun: false });
      const [child] = engine.children(key);
      expect(engine.children(key)).toHaveLength(1);
      expect(child.state).toBe('COMPLETED');
      expect(visited(engine, child.key)).toEqual([...EXPERIMENT.slice(0, 11), 'Event_06uq3eg', 'Gateway_1ty24uf', 'Event_0i9wjj1']);
      expect(engine.history(key).filter((r) => r.type === 'ERROR_THROWN')).toMatchObject([
        { elementId: 'Event_0206bt7', detail: { errorCode: 'experimentFailed' } },
      ]);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Activity_0a7hels', ...RUN.slice(0, 3), 'Event_15ycupq', 'Event_0fhnwbl']);
      expect(terminated(engine, key)).toContain('Activity_1neh8m1');
      expect(variables(engine, key)).toMatchObject({ successfulExperiment: false, testReport: { testResult: 'FAILED', failureCount: 1 } });
      expect((variables(engine, key).testReport as { failureMessages: unknown[] }).failureMessages.at(-1)).toBe(
        " Experiment failed for cluster plan: 'small' against cluster 'c1' (id-1).",
      );
      // The second experiment never starts.
      expect(engine.activate('probe', 1)).toHaveLength(0);
    });

    // A call activity with input mappings inside the loop builds the child's variables through the enclosing scopes.
    it("the experiment sees the toolkit loop's `experiment`, so its failure message names it", () => {
      const engine = sharedEngine(FILES);
      const key = start(engine);
      complete(engine, 'probe');
      complete(engine, 'chaos', { successfulRun: false });
      expect((variables(engine, key).testReport as { failureMessages: unknown[] }).failureMessages).toEqual([
        " Chaos experiment 'one' failed.",
        " Experiment failed for cluster plan: 'small' against cluster 'c1' (id-1).",
      ]);
    });

    // Known FEEL gap: feelin divides a duration by a duration to NaN, where Camunda gives a number, so
    // startTime and endTime ((now() - date and time("1970-01-01T00:00Z")) / duration("PT1S")) * 1000 are no number.
    it.fails('records start and end time in epoch milliseconds', () => {
      const engine = sharedEngine(FILES);
      const key = start(engine);
      for (const type of ['probe', 'chaos', 'probe', 'probe', 'chaos', 'probe']) complete(engine, type);
      expect(variables(engine, key).testReport).toMatchObject({ startTime: TUESDAY, endTime: TUESDAY });
    });
  });

  describe('chaos-multi-version-brt.bpmn', () => {
    it('evaluates fancyDecision from chaos-fancy-decision.dmn into out', () => {
      const engine = sharedEngine(['chaos-multi-version-brt.bpmn'], ['chaos-fancy-decision.dmn']);
      const key = engine.start('multiVersion');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(variables(engine, key)).toEqual({ out: 'yolo' });
      expect(visited(engine, key)).toEqual(['start', 'task', 'end']);
    });

    it('without the decision deployed: an incident that names it', () => {
      const engine = sharedEngine(['chaos-multi-version-brt.bpmn']);
      const key = engine.start('multiVersion');
      expect(state(engine, key)).toBe('INCIDENT');
      expect(incidents(engine, key)).toMatchObject([
        { type: 'DECISION_EVALUATION_ERROR', elementId: 'task', message: expect.stringContaining("'fancyDecision'") },
      ]);
    });
  });

  describe('chaos-recursive-call.bpmn', () => {
    it('a process that calls itself nests 1,000 instances deep, then the deepest call activity raises an incident', () => {
      const engine = sharedEngine(['chaos-recursive-call.bpmn']);
      const root = engine.start('super');
      const chain = [instance(engine, root)];
      for (let kids = engine.children(root); kids.length > 0; kids = engine.children(chain[chain.length - 1].key)) {
        expect(kids).toHaveLength(1);
        chain.push(kids[0]);
      }
      expect(chain).toHaveLength(1000);
      const deepest = chain[chain.length - 1];
      expect(chain.slice(0, -1).every((i) => i.state === 'ACTIVE')).toBe(true);
      expect(deepest.state).toBe('INCIDENT');
      expect(Object.values(deepest.incidents)).toMatchObject([
        { type: 'CALLED_ELEMENT_ERROR', elementId: 'Activity_1m93e5c', message: expect.stringContaining('1001 process instances') },
      ]);
      expect(visited(engine, root)).toEqual(['StartEvent_1']);

      // Cancelling the root takes the whole chain down.
      engine.cancel(root);
      expect(new Set(chain.map((i) => state(engine, i.key)))).toEqual(new Set(['TERMINATED']));
    });
  });

  describe('chaos-timer-start-date.bpmn', () => {
    it('the FEEL date now() + PT1M is evaluated at deploy: one instance a minute later, then no more', () => {
      const engine = sharedEngine(['chaos-timer-start-date.bpmn']);
      const started = recordStarts(engine);
      expect(engine.nextTimerDue()).toBe(TUESDAY + MINUTE);
      later(MINUTE - 1);
      expect(engine.fireDueTimers()).toBe(0);
      later(1);
      expect(engine.fireDueTimers()).toBe(1);
      const [key] = started();
      expect(started()).toHaveLength(1);
      expect(engine.nextTimerDue()).toBeUndefined();
      const job = complete(engine, 'chaos');
      expect(job.processInstanceKey).toBe(key);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'Activity_1f5udmi', 'Event_048h7b0']);
    });
  });

  describe('gen-engine-bound-error-timer.bpmn', () => {
    it('the script job done within 50 ms: the normal end', () => {
      const engine = sharedEngine(['gen-engine-bound-error-timer.bpmn']);
      const key = engine.start('boundErrorProcess', { input: 1 });
      complete(engine, 'script:Check input');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['start', 'scriptTask', 'end']);
      expect(engine.nextTimerDue()).toBeUndefined();
    });

    it('after 50 ms the timer boundary interrupts the task and the terminate end completes the instance', () => {
      const engine = sharedEngine(['gen-engine-bound-error-timer.bpmn']);
      const key = engine.start('boundErrorProcess');
      const job = only(engine, 'script:Check input');
      later(50);
      expect(engine.fireDueTimers()).toBe(1);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['start', 'timerEvent', 'timedEndEvent']);
      expect(terminated(engine, key)).toEqual(['scriptTask']);
      expect(() => engine.completeJob(job.key)).toThrow(CommandRejected);
    });

    it('the error boundary cannot fire: a worker has no way to throw a BPMN error, a failing one leaves an incident (SPEC.md Events)', () => {
      const engine = sharedEngine(['gen-engine-bound-error-timer.bpmn']);
      const key = engine.start('boundErrorProcess');
      engine.failJob(only(engine, 'script:Check input').key, 0, 'Input is missing');
      expect(state(engine, key)).toBe('INCIDENT');
      expect(incidents(engine, key)).toMatchObject([{ type: 'JOB_NO_RETRIES', elementId: 'scriptTask', message: expect.stringContaining('Input is missing') }]);
      expect(visited(engine, key)).toEqual(['start']);
      expect(engine.history(key).some((r) => r.type === 'ERROR_THROWN')).toBe(false);
    });
  });

  describe('gen-engine-timers.bpmn', () => {
    it('is rejected at deploy: the catch date `${environment.variables.catchDate}` has no =, so it is literal text and no date', () => {
      expect(rejection('gen-engine-timers.bpmn')).toEqual([
        {
          elementId: 'catch-date',
          message: expect.stringMatching(
            /^Intermediate catch event 'catch-date' has a timer date Orca cannot schedule: '\$\{environment\.variables\.catchDate\}' is not a valid ISO 8601 date-time/,
          ),
        },
      ]);
    });
  });

  describe('coverage-ebg-signal.bpmn (signals: extension)', () => {
    it('a broadcast signal wins the event-based gateway; the message branch is withdrawn', () => {
      const engine = sharedEngine(['coverage-ebg-signal.bpmn']);
      const key = engine.start('event_based_gateway');
      engine.broadcastSignal('Signal_1', { via: 'signal' });
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'EventBasedGateway', 'SignalEvent', 'Event_1am3z52']);
      expect(engine.activate('event:message:MessageEvent', 10)).toEqual([]);
    });
  });

  describe('jssdk-signal-start.bpmn (signals: extension)', () => {
    it('a broadcast of test-signal starts the process, whose service task then runs', () => {
      const engine = sharedEngine(['jssdk-signal-start.bpmn']);
      const [key] = engine.broadcastSignal('test-signal', { n: 1 }).startedInstances;
      complete(engine, 'signal-service-task');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(engine.instance(key)!.variables[key]).toEqual({ n: 1 });
    });
  });

  describe('jssdk-deploy-workflow-ebg.bpmn', () => {
    it('the message wins the event-based gateway: its job is completed before 5 s, the timer is withdrawn', () => {
      const engine = sharedEngine(['jssdk-deploy-workflow-ebg.bpmn']);
      const key = engine.start('test-process', { uniqueId: 'u-1' });
      complete(engine, 'demo-service');
      expect(engine.nextTimerDue()).toBe(TUESDAY + 5 * SECOND);
      complete(engine, 'event:message:IntermediateCatchEvent_169ouyw');
      expect(engine.nextTimerDue()).toBeUndefined();
      complete(engine, 'process-message');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual([
        'StartEvent_1',
        'ServiceTask_0xdwuw7',
        'ExclusiveGateway_0wne7eb',
        'IntermediateCatchEvent_169ouyw',
        'ServiceTask_1ng04rq',
        'EndEvent_1mns3uj',
      ]);
    });

    it('the timer wins after 5 s: the message job is withdrawn', () => {
      const engine = sharedEngine(['jssdk-deploy-workflow-ebg.bpmn']);
      const key = engine.start('test-process', { uniqueId: 'u-2' });
      complete(engine, 'demo-service');
      const message = only(engine, 'event:message:IntermediateCatchEvent_169ouyw');
      later(5 * SECOND);
      expect(engine.fireDueTimers()).toBe(1);
      expect(() => engine.completeJob(message.key)).toThrow(CommandRejected);
      complete(engine, 'time-out');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual([
        'StartEvent_1',
        'ServiceTask_0xdwuw7',
        'ExclusiveGateway_0wne7eb',
        'IntermediateCatchEvent_04zcf15',
        'ServiceTask_1rszkg1',
        'EndEvent_1mns3uj',
      ]);
    });
  });

  describe('jssdk-throw-error.bpmn', () => {
    it('the task completes: the subprocess ends normally and the error boundary is never taken', () => {
      const engine = sharedEngine(['jssdk-throw-error.bpmn']);
      const key = engine.start('throw-bpmn-error');
      complete(engine, 'throw-bpmn-error-task');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual([
        'StartEvent_1q9lovr',
        'StartEvent_0mp9dxc',
        'Task_0bki2a1',
        'EndEvent_1hj6q7z',
        'SubProcess_0kmfk49',
        'EndEvent_1cl3tk3',
      ]);
    });

    it('a worker cannot throw BUSINESS_ERROR (SPEC.md Events): failing the job is an incident, not the sad flow', () => {
      const engine = sharedEngine(['jssdk-throw-error.bpmn']);
      const key = engine.start('throw-bpmn-error');
      engine.failJob(only(engine, 'throw-bpmn-error-task').key, 0, 'BUSINESS_ERROR');
      expect(state(engine, key)).toBe('INCIDENT');
      expect(incidents(engine, key)).toMatchObject([{ type: 'JOB_NO_RETRIES', elementId: 'Task_0bki2a1' }]);
      expect(engine.activate('sad-flow', 1)).toHaveLength(0);
    });
  });

  describe('moddle-simple-mi.bpmn', () => {
    it('one job per input, in parallel; each output lands at its index of outputs', () => {
      const engine = sharedEngine(['moddle-simple-mi.bpmn']);
      const key = engine.start('Process_17v88t0', { inputs: [1, 2, 3] });
      const jobs = engine.activate('task', 10);
      expect(jobs.map((j) => [j.variables.input, j.variables.loopCounter, j.variables.targetValue])).toEqual([
        [1, 1, 'sourceValue'],
        [2, 2, 'sourceValue'],
        [3, 3, 'sourceValue'],
      ]);
      expect(jobs.map((j) => [j.retries, j.customHeaders])).toEqual(Array(3).fill([2, { key: 'value' }]));
      // Completed out of order: the output collection keeps the input order.
      for (const job of [jobs[2], jobs[0], jobs[1]]) engine.completeJob(job.key, { output: (job.variables.input as number) * 10 });
      expect(state(engine, key)).toBe('COMPLETED');
      expect(variables(engine, key)).toMatchObject({ outputs: [10, 20, 30], targetValue: 'sourceValue' });
      expect(visited(engine, key)).toEqual(['Event_0zr10ns', 'Activity_1naoqum', 'Activity_1naoqum', 'Activity_1naoqum', 'Activity_1naoqum', 'Event_0atgf9u']);
    });
  });

  describe('modeler-foo-call.bpmn + modeler-bar-call-brt.bpmn', () => {
    it('BarProcess is rejected at deploy: its business rule task calls BazDecision without a resultVariable', () => {
      expect(rejection('modeler-bar-call-brt.bpmn')).toEqual([
        { elementId: 'BusinessRuleTask_1', message: expect.stringContaining("Business rule task 'BusinessRuleTask_1' has no result variable") },
      ]);
    });

    it('FooProcess alone: its call activity finds no BarProcess', () => {
      const engine = sharedEngine(['modeler-foo-call.bpmn']);
      const key = engine.start('FooProcess');
      expect(incidents(engine, key)).toMatchObject([
        { type: 'CALLED_ELEMENT_ERROR', elementId: 'CallActivity_1', message: expect.stringContaining("'BarProcess'") },
      ]);
    });
  });

  describe('zpt-automated-tests.bpmn', () => {
    it('runs the tests once per operating system, in parallel', () => {
      const engine = sharedEngine(['zpt-automated-tests.bpmn']);
      const key = engine.start('automatedTestsProcess');
      const jobs = engine.activate('runTests', 10);
      expect(jobs.map((j) => j.variables.operatingSystem)).toEqual(['ubuntu', 'windows', 'macos']);
      for (const job of jobs) engine.completeJob(job.key, { passed: true });
      expect(state(engine, key)).toBe('COMPLETED');
      const inner = ['Event_1i6p8uy', 'runTests', 'Event_1xtvw54', 'Activity_1kq2g9a'];
      // The three starts run first, then each branch finishes as its job completes.
      expect(visited(engine, key)).toEqual([
        'automatedTestsTriggered',
        'Event_1i6p8uy',
        'Event_1i6p8uy',
        'Event_1i6p8uy',
        ...inner.slice(1),
        ...inner.slice(1),
        ...inner.slice(1),
        'Activity_1kq2g9a',
        'Event_0mdz5cy',
      ]);
    });
  });

  describe('call activities of zeebe-process-test', () => {
    it('zpt-call-activity.bpmn calls start-end (zpt-start-end.bpmn)', () => {
      const engine = sharedEngine(['zpt-call-activity.bpmn', 'zpt-start-end.bpmn']);
      const key = engine.start('call-activity');
      const child = onlyChild(engine, key);
      expect([child.bpmnProcessId, child.state]).toEqual(['start-end', 'COMPLETED']);
      expect(visited(engine, child.key)).toEqual(['StartEvent_1', 'Event_0ahcnkn']);
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'callactivity', 'Event_1w612bd']);
    });

    it('zpt-multiple-call-activity.bpmn calls call-activity (which calls start-end), then alternate-start-end', () => {
      const engine = sharedEngine(['zpt-multiple-call-activity.bpmn', 'zpt-call-activity.bpmn', 'zpt-start-end.bpmn', 'zpt-alternate-start-end.bpmn']);
      const key = engine.start('multiple-call-activity');
      const children = engine.children(key);
      expect(children.map((c) => [c.bpmnProcessId, c.state])).toEqual([
        ['call-activity', 'COMPLETED'],
        ['alternate-start-end', 'COMPLETED'],
      ]);
      expect(onlyChild(engine, children[0].key).bpmnProcessId).toBe('start-end');
      expect(state(engine, key)).toBe('COMPLETED');
      expect(visited(engine, key)).toEqual(['StartEvent_1', 'callactivityTwo', 'callactivityOne', 'Event_1w612bd']);
    });

    it('zpt-multiple-call-activity.bpmn without its siblings: an incident at the first call activity', () => {
      const engine = sharedEngine(['zpt-multiple-call-activity.bpmn']);
      const key = engine.start('multiple-call-activity');
      expect(incidents(engine, key)).toMatchObject([
        { type: 'CALLED_ELEMENT_ERROR', elementId: 'callactivityTwo', message: expect.stringContaining("'call-activity'") },
      ]);
    });
  });

  describe('zpt-timer-start-daily.bpmn', () => {
    it('R/P1D starts an instance every day, without end', () => {
      const engine = sharedEngine(['zpt-timer-start-daily.bpmn']);
      const started = recordStarts(engine);
      expect(engine.nextTimerDue()).toBe(TUESDAY + DAY);
      later(DAY);
      expect(engine.fireDueTimers()).toBe(1);
      later(DAY);
      expect(engine.fireDueTimers()).toBe(1);
      expect(engine.nextTimerDue()).toBe(TUESDAY + 3 * DAY);
      const keys = started();
      expect(keys).toHaveLength(2);
      for (const key of keys) {
        expect(state(engine, key)).toBe('COMPLETED');
        expect(visited(engine, key)).toEqual(['timer', 'endevent']);
      }
    });
  });
});
