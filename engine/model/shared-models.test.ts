// Every real-world model in the shared collection beside the checkout (../shared/bpmn, see INDEX.tsv there), with the
// outcome written down by reading each file: accepted (with its executable
// process ids) or rejected (with the ids of the elements at fault). FEEL syntax
// problems are listed apart, because they depend on engine/feel's parser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { feelSyntaxError } from '../feel/index.ts';
import { compileBpmn } from './compile.ts';

type Expectation =
  { accepted: string[]; nonExecutable?: string[] } | { rejected: string[]; feel?: string[] } | { parseError: true } | { noExecutableProcess: true };

const EXPECTED: Record<string, Expectation> = {
  // Truncated on purpose upstream: the DI section never closes.
  'bad-truncated-zeebe-modeler-0.7.bpmn': { parseError: true },
  // Timer catch, then a parallel MI subprocess around a call activity (benchmark-subprocess); FEEL job type.
  'bench-complex-process.bpmn': { accepted: ['benchmark-complex'] },
  // DMN business rule task (zeebe:calledDecision), then a worker.
  'bench-complex-subprocess.bpmn': { accepted: ['benchmark-subprocess'] },
  // Message start, non-interrupting message start of the event subprocess, message boundary (messages
  // extension); the MI subprocess with its event-based gateway and message catches.
  'bench-msg-process.bpmn': { accepted: ['order_process'] },
  // DMN business rule task, FEEL script task (a job), default flow; the collaboration is descriptive.
  'bench-poc-random-script.bpmn': { accepted: ['eventHandling_random'] },
  // Timer catch on one branch; unknown:* extensions are ignored.
  'bpmnmodel-model-walker.bpmn': { accepted: ['process'] },
  // Default BPMN namespace; script task + none throw event as the last element.
  'bpmnmodel-script-listeners.bpmn': { accepted: ['process'] },
  // Both processes isExecutable="false".
  'c8nz-bpmnmodel-collaboration.bpmn': { noExecutableProcess: true },
  // default= names an incoming flow; `$.foo == true` is not FEEL.
  'c8nz-bpmnmodel-inclusive-default.bpmn': { rejected: ['inclusiveGateway'], feel: ['SequenceFlow_1hlr3xw'] },
  // Link throw and catch (LinkA) between two manual tasks.
  'c8nz-bpmnmodel-link-valid.bpmn': { accepted: ['Process_05x4y1u'] },
  // Timer start events inside an embedded subprocess, which starts with a none start event only.
  'c8nz-bpmnmodel-multi-timer-start-sub.bpmn': { rejected: ['StartEvent_0kw42np', 'StartEvent_0df2zym'] },
  // Link throw and catch; lanes and participant are descriptive.
  'c8nz-coverage-link-events.bpmn': { accepted: ['Testprocess'] },
  // Timer catch and timer boundary, both FEEL durations; FEEL job type.
  'chaos-action-runner.bpmn': { accepted: ['actionRunner'] },
  // Three sequential MI subprocesses with a call activity (actionRunner) and an error end each,
  // error and timer boundaries on the enclosing subprocess.
  'chaos-experiment.bpmn': { accepted: ['chaosExperiment'] },
  // DMN business rule task (fancyDecision).
  'chaos-multi-version-brt.bpmn': { accepted: ['multiVersion'] },
  // A call activity that calls its own process.
  'chaos-recursive-call.bpmn': { accepted: ['super'] },
  // Timer start with a FEEL date (now() + PT1M).
  'chaos-timer-start-date.bpmn': { accepted: ['chaosTimerStart'] },
  // MI subprocess, call activity, error end and error boundary; the input mapping reads
  // experiment.`steady-state-hypothesis`, a backtick name engine/feel supports.
  'chaos-toolkit.bpmn': { accepted: ['chaosToolkit'] },
  // Event-based gateway between a message catch and a signal catch (signals: extension).
  'coverage-ebg-signal.bpmn': { accepted: ['event_based_gateway'] },
  // Compensation boundaries, handlers (isForCompensation), compensation throw; the message boundary is fine.
  'gen-c7-compensation.bpmn': {
    rejected: ['BoundaryEvent_1ws10pz', 'Task_1mp1k42', 'BoundaryEvent_1w39i1q', 'Task_09xb1ko', 'IntermediateThrowEvent_01gs01z'],
  },
  // Camunda 7: camunda:expression service task, JUEL conditions; the call activity (calledElement attribute) is fine.
  'gen-c7-job-announcement.bpmn': { rejected: ['mail'], feel: ['Flow_1gfi885', 'Flow_0yjunvn'] },
  // Camunda 7 external tasks (camunda:topic), JUEL conditions, and an MI subprocess whose collection is
  // camunda:collection, so it has no zeebe inputCollection; the timer start is fine.
  'gen-c7-loan-granting.bpmn': {
    rejected: ['Task_1lvjtd4', 'Task_0v4gadf', 'Task_0j0sjlk', 'SubProcess_16kr5xn'],
    feel: ['SequenceFlow_17zmvol', 'SequenceFlow_0vpum3q'],
  },
  // Camunda 7 external tasks, conditional boundary; the timer start is fine.
  'gen-c7-order-handling.bpmn': { rejected: ['Task_06z99p1', 'Task_1yjkccw', 'BoundaryEvent_1y1bvad'] },
  // Receive task without message, activiti service task, JUEL conditions; the timer catch, the signal
  // catch and the MI subprocess are fine.
  'gen-c7-transaction-boundary.bpmn': {
    rejected: ['ReceiveTask_1', 'ServiceTask_1'],
    feel: ['SequenceFlow_9', 'SequenceFlow_10', 'SequenceFlow_15'],
  },
  // Error boundary, error end, timer boundary and terminate end; the JavaScript script task waits as a job.
  'gen-engine-bound-error-timer.bpmn': { accepted: ['boundErrorProcess'] },
  // JavaScript condition; the signal boundaries and throws are fine; the MI user task is fine but its loop expressions are JUEL.
  'gen-engine-issue-187.bpmn': {
    rejected: ['Flow_0zubkyw'],
    feel: ['task_approve'],
  },
  'gen-engine-js-conditional-boundary.bpmn': { rejected: ['cond'] },
  // Message catch without messageRef waits as event:message:intermediate; the listener pool is not executable.
  'gen-engine-lanes.bpmn': { accepted: ['mainProcess'], nonExecutable: ['participantProcess'] },
  // Send task without a task definition.
  'gen-engine-messaging.bpmn': { rejected: ['ping'] },
  // JavaScript condition, subprocess without start event, inclusive split without conditions; the timer boundary is fine.
  'gen-engine-mother-of-all.bpmn': { rejected: ['toLoop', 'subProcess1', 'manyDecisions'] },
  // Camunda 7 service task; the signal boundary is fine; the price-admin pool is not executable.
  'gen-engine-signals.bpmn': { rejected: ['getSpotPrice'] },
  // Timer cycle start (the only start event) and non-interrupting timer boundary are fine. The catch's
  // `${environment.variables.catchDate}` has no '=', so it is literal text, and no date.
  'gen-engine-timers.bpmn': { rejected: ['catch-date'] },
  // Two executable processes, each started by a message.
  'jssdk-bpmnparser2-collab.bpmn': { accepted: ['msg-start-process', 'emit-frame-process'] },
  'jssdk-conditional-pathway.bpmn': { accepted: ['condition-test'] },
  // Event-based gateway between a timer and a message catch.
  'jssdk-deploy-workflow-ebg.bpmn': { accepted: ['test-process'] },
  'jssdk-message-start.bpmn': { accepted: ['Process_1tbhm8x'] },
  // A signal start event (extension).
  'jssdk-signal-start.bpmn': { accepted: ['Signal'] },
  // Error boundary on a subprocess (no worker can throw it: SPEC.md Events).
  'jssdk-throw-error.bpmn': { accepted: ['throw-bpmn-error'] },
  'jssdk-zeebe-user-task.bpmn': { accepted: ['zeebe-user-task-test'] },
  // Parallel MI service task with loop expressions written without '='.
  'moddle-simple-mi.bpmn': { accepted: ['Process_17v88t0'] },
  // Call activity (foobarProcess, which no shared file defines) is fine; the business rule task calls
  // BazDecision without a resultVariable.
  'modeler-bar-call-brt.bpmn': { rejected: ['BusinessRuleTask_1'] },
  // Call activity (BarProcess).
  'modeler-foo-call.bpmn': { accepted: ['FooProcess'] },
  // Service task with an empty task definition, bare business rule task; the error boundaries, error end
  // and the error event subprocess are fine.
  'modeler-lint-errors.bpmn': { rejected: ['Activity_084s4zz', 'Activity_0h20swu'] },
  // The properties-panel element zoo: timers without a time, tasks without job types, a none boundary,
  // message throw and end, ad-hoc subprocesses without an activity, a conditional start, an escalation end and an error end
  // without a code, a call activity without a process id, multi-instance tasks without an input
  // collection, a link catch without a name.
  'ppanel-element-zoo.bpmn': {
    rejected: [
      'EscalationEvent',
      'ErrorEndEvent_1',
      'CallActivity_1',
      'ScriptTask_1',
      'ScriptTask_2',
      'ScriptTask_3',
      'BusinessRuleTask_1',
      'LinkEvent_1',
      'ServiceTask_1',
      'SendTask_1',
      'BusinessRuleTask_2',
      'TimerStartEvent_1',
      'BoundaryEvent_1',
      'InterruptingTimerBoundaryEvent_1',
      'TimerBoundaryEvent_1',
      'IntermediateTimerICatchEvent_1',
      'MessageThrow_1',
      'MessageEnd_1',
      'AdHocBPMN',
      'AdHocJobWorker',
      'ConditionalStartEvent_1',
    ],
  },
  // Timer end, timers without a time, compensation boundary, complex gateway, MI service tasks without types
  // or input collections, an error end without an error.
  'ppanel-execution-listeners.bpmn': {
    rejected: [
      'TimerEndEvent',
      'BoundaryEvent',
      'CompensationBoundaryEvent',
      'ComplexGateway',
      'MultiInstanceTask',
      'MultiInstanceTask_NoListeners',
      'ErrorEndEvent',
    ],
  },
  // No start event at all, service tasks without types, receive task without message, signal throw and end without a signal.
  'ppanel-input-props-signal.bpmn': {
    rejected: [
      'Process_1',
      'ServiceTask_1',
      'ReceiveTask_1',
      'ServiceTask_NoExtensionElements',
      'ServiceTask_2',
      'ServiceTask_NoIoMapping',
      'ServiceTask_Unsorted',
      'SignalIntermediateThrowEvent_1',
      'SignalEndEvent_1',
    ],
  },
  // Two message starts in the event subprocess, which may have only one start event; the other message
  // starts, receive tasks and message catches are fine.
  'ppanel-message-props.bpmn': { rejected: ['EventSubProcess_1'] },
  // No start event at all, MI service tasks without types (four of them also without an input collection).
  'ppanel-multi-instance-props.bpmn': {
    rejected: [
      'Process_1',
      'ServiceTask_1',
      'ServiceTask_noZeebeLoops',
      'ServiceTask_noExtensionElements',
      'ServiceTask_noCompletionCondition',
      'Activity_empty',
      'ServiceTask_noInputCollection',
    ],
  },
  'pyzeebe-test.bpmn': { accepted: ['test'] },
  'quarkus-simple-user-task.bpmn': { accepted: ['SimpleUserTask'] },
  // Camunda's AI Email Support Agent: an ad-hoc subprocess with a job worker (the AI agent), tools connected by
  // flows inside, an agent prompt that is a FEEL string spanning lines; a message start, an escalation event
  // subprocess, an escalation throw and an error boundary.
  'tut-ai-email-support-agent.bpmn': { accepted: ['Process_0j5qzil'] },
  // Message start, non-interrupting message start of an event subprocess, timer start, event-based gateway,
  // error event subprocess.
  'zp-play-demo.bpmn': { accepted: ['play-demo'] },
  // Non-interrupting message start of the event subprocess, MI decision task, event-based gateway, timers,
  // error boundary.
  'zp-solos-transport.bpmn': { accepted: ['solos-transport-process'] },
  'zpt-alternate-start-end.bpmn': { accepted: ['alternate-start-end'] },
  // Parallel MI subprocess over a literal list.
  'zpt-automated-tests.bpmn': { accepted: ['automatedTestsProcess'] },
  // Call activity (start-end).
  'zpt-call-activity.bpmn': { accepted: ['call-activity'] },
  'zpt-message-event.bpmn': { accepted: ['message-event'] },
  'zpt-message-start-event.bpmn': { accepted: ['message-start-event'] },
  // Two call activities in a row (call-activity, then alternate-start-end).
  'zpt-multiple-call-activity.bpmn': { accepted: ['multiple-call-activity'] },
  'zpt-multiple-tasks-parallel.bpmn': { accepted: ['multiple-tasks'] },
  // Message start, call activity, event-based gateway, timer catch.
  'zpt-pr-created.bpmn': { accepted: ['prCreatedProcess'] },
  'zpt-start-end.bpmn': { accepted: ['start-end'] },
  // Timer cycle start (R/P1D), the only start event.
  'zpt-timer-start-daily.bpmn': { accepted: ['timer-start-event-daily'] },
};

const folder = fileURLToPath(new URL('../../../shared/bpmn/', import.meta.url));
const present = existsSync(folder);
const files = present
  ? readdirSync(folder)
      .filter((f) => f.endsWith('.bpmn'))
      .sort()
  : [];
/** Whether engine/feel reports syntax errors; FEEL expectations are only checked when it does. */
const feelChecks = feelSyntaxError('a +') !== undefined;

if (!present) console.warn(`shared BPMN models not found at ${folder}; skipping the shared-models table`);

describe.skipIf(!present)('shared BPMN models', () => {
  it('has an expectation for every file in the folder', () => {
    expect(files.filter((f) => !(f in EXPECTED))).toEqual([]);
    expect(Object.keys(EXPECTED).filter((f) => !files.includes(f))).toEqual([]);
  });

  it.each(files.filter((f) => f in EXPECTED))('%s', (file) => {
    const expected = EXPECTED[file];
    const result = compileBpmn(readFileSync(folder + file, 'utf8'));
    if ('accepted' in expected) {
      if (!result.ok) throw new Error(result.problems.map((p) => `[${p.elementId}] ${p.message}`).join('\n'));
      expect(result.model.processes.map((p) => p.id)).toEqual(expected.accepted);
      expect(result.model.nonExecutableProcesses).toEqual(expected.nonExecutable ?? []);
      return;
    }
    if ('rejected' in expected && expected.rejected.length === 0 && !feelChecks) {
      // Rejected for FEEL syntax only, which this engine/feel does not check.
      expect(result.ok).toBe(true);
      return;
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    if ('parseError' in expected) {
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0].message).toMatch(/^The XML (is incomplete|is malformed)/);
      return;
    }
    if ('noExecutableProcess' in expected) {
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0].message).toContain('no executable process');
      return;
    }
    const actual = new Set(result.problems.map((p) => p.elementId ?? '(no id)'));
    const required = new Set([...expected.rejected, ...(feelChecks ? (expected.feel ?? []) : [])]);
    const allowed = new Set([...expected.rejected, ...(expected.feel ?? [])]);
    expect(
      [...required].filter((id) => !actual.has(id)),
      'expected problems that are missing',
    ).toEqual([]);
    expect(
      [...actual].filter((id) => !allowed.has(id)),
      'unexpected problems',
    ).toEqual([]);
  });
});
