// Every real-world model in /work/shared/bpmn (see INDEX.tsv there), with the
// outcome written down by reading each file: accepted (with its executable
// process ids) or rejected (with the ids of the elements at fault). FEEL syntax
// problems are listed apart, because they depend on engine/feel's parser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { feelSyntaxError } from '../feel/index.ts';
import { compileBpmn } from './compile.ts';

type Expectation =
  | { accepted: string[]; nonExecutable?: string[] }
  | { rejected: string[]; feel?: string[] }
  | { parseError: true }
  | { noExecutableProcess: true };

const EXPECTED: Record<string, Expectation> = {
  // Truncated on purpose upstream: the DI section never closes.
  'bad-truncated-zeebe-modeler-0.7.bpmn': { parseError: true },
  // MI subprocess, call activity inside it, timer catch.
  'bench-complex-process.bpmn': { rejected: ['Activity_1ab9tjw', 'Activity_0kgk5zd', 'Event_1orpd24'] },
  // DMN business rule task (zeebe:calledDecision).
  'bench-complex-subprocess.bpmn': { rejected: ['Activity_0ehlkav'] },
  // MI subprocess, event-based gateway, event subprocess + its message start, message boundary, message start.
  'bench-msg-process.bpmn': { rejected: ['orderItem', 'Gateway_0b7l9ri', 'Activity_03jfohc', 'Event_06wf1r6', 'Event_08gjnzs', 'StartEvent_Preadvice'] },
  // DMN business rule task; the FEEL script task and the collaboration are fine.
  'bench-poc-random-script.bpmn': { rejected: ['Activity_0k7yr3p'] },
  // Timer catch; unknown:* extensions are ignored.
  'bpmnmodel-model-walker.bpmn': { rejected: ['timer'] },
  // Default BPMN namespace; script task + none throw event as the last element.
  'bpmnmodel-script-listeners.bpmn': { accepted: ['process'] },
  // Both processes isExecutable="false".
  'c8nz-bpmnmodel-collaboration.bpmn': { noExecutableProcess: true },
  // default= names an incoming flow; `$.foo == true` is not FEEL.
  'c8nz-bpmnmodel-inclusive-default.bpmn': { rejected: ['inclusiveGateway'], feel: ['SequenceFlow_1hlr3xw'] },
  // Link throw and catch.
  'c8nz-bpmnmodel-link-valid.bpmn': { rejected: ['Event_1xpudal', 'Event_1l6b80w'] },
  // Timer start events inside an embedded subprocess.
  'c8nz-bpmnmodel-multi-timer-start-sub.bpmn': { rejected: ['StartEvent_0kw42np', 'StartEvent_0df2zym'] },
  // Link throw and catch; lanes and participant are descriptive.
  'c8nz-coverage-link-events.bpmn': { rejected: ['Event_ThrowLinkEvent', 'Event_03n57hz'] },
  // Timer catch and timer boundary.
  'chaos-action-runner.bpmn': { rejected: ['Event_0zo9lot', 'Event_0owkcly'] },
  // Three MI subprocesses with a call activity and an error end each, error and timer boundaries.
  'chaos-experiment.bpmn': {
    rejected: [
      'Activity_1cxs1dd',
      'Activity_08p87mg',
      'Event_0sw0eal',
      'Activity_0nqerfm',
      'Activity_1jg7jgx',
      'Event_1qfgzc8',
      'Activity_1elridj',
      'Activity_11qmcik',
      'Event_165b83s',
      'Event_06uq3eg',
      'Event_036qm76',
    ],
  },
  'chaos-multi-version-brt.bpmn': { rejected: ['task'] },
  'chaos-recursive-call.bpmn': { rejected: ['Activity_1m93e5c'] },
  'chaos-timer-start-date.bpmn': { rejected: ['StartEvent_1'] },
  // MI subprocess, call activity, error end, error boundary; feelin has no `backtick names`.
  'chaos-toolkit.bpmn': { rejected: ['Activity_1neh8m1', 'Activity_1a7lifm', 'Event_0206bt7', 'Event_15ycupq'], feel: ['Activity_1a7lifm'] },
  // Event-based gateway and a signal catch.
  'coverage-ebg-signal.bpmn': { rejected: ['EventBasedGateway', 'SignalEvent'] },
  // Compensation boundaries, handlers (isForCompensation), compensation throw, message boundary.
  'gen-c7-compensation.bpmn': {
    rejected: ['BoundaryEvent_1ws10pz', 'Task_1mp1k42', 'BoundaryEvent_1w39i1q', 'Task_09xb1ko', 'BoundaryEvent_1deukxx', 'IntermediateThrowEvent_01gs01z'],
  },
  // Camunda 7: camunda:expression service task, call activity, JUEL conditions.
  'gen-c7-job-announcement.bpmn': { rejected: ['mail', 'publication'], feel: ['Flow_1gfi885', 'Flow_0yjunvn'] },
  // Camunda 7 external tasks (camunda:topic), MI subprocess, timer start, JUEL conditions.
  'gen-c7-loan-granting.bpmn': {
    rejected: ['Task_1lvjtd4', 'Task_0v4gadf', 'Task_0j0sjlk', 'SubProcess_16kr5xn', 'StartEvent_1'],
    feel: ['SequenceFlow_17zmvol', 'SequenceFlow_0vpum3q'],
  },
  // Camunda 7 external tasks, timer start, conditional boundary.
  'gen-c7-order-handling.bpmn': { rejected: ['Task_06z99p1', 'Task_1yjkccw', 'StartEvent_1', 'BoundaryEvent_1y1bvad'] },
  // Receive task without message, activiti service task, timer, signal, MI subprocess, JUEL conditions.
  'gen-c7-transaction-boundary.bpmn': {
    rejected: ['ReceiveTask_1', 'ServiceTask_1', 'IntermediateCatchEvent_1', 'IntermediateCatchEvent_2', 'SubProcess_1'],
    feel: ['SequenceFlow_9', 'SequenceFlow_10', 'SequenceFlow_15'],
  },
  // Error boundary, error end, timer boundary; the terminate end is fine.
  'gen-engine-bound-error-timer.bpmn': { rejected: ['errorEvent', 'endInError', 'timerEvent'] },
  // JavaScript condition, MI user task (JUEL loop expressions), signal boundaries and throws.
  'gen-engine-issue-187.bpmn': {
    rejected: ['Flow_0zubkyw', 'task_approve', 'Event_catch_withdraw', 'Event_throw_withdraw', 'event_throw_approved', 'event_catch_approved', 'event_throw_approved_back'],
    feel: ['task_approve'],
  },
  'gen-engine-js-conditional-boundary.bpmn': { rejected: ['cond'] },
  // Message catch without messageRef waits as event:message:intermediate; the listener pool is not executable.
  'gen-engine-lanes.bpmn': { accepted: ['mainProcess'], nonExecutable: ['participantProcess'] },
  // Send task without a task definition.
  'gen-engine-messaging.bpmn': { rejected: ['ping'] },
  // JavaScript condition, subprocess without start event, inclusive split without conditions, timer boundary.
  'gen-engine-mother-of-all.bpmn': { rejected: ['toLoop', 'subProcess1', 'manyDecisions', 'subUserTaskTimer'] },
  // Camunda 7 service task, signal boundary; the price-admin pool is not executable.
  'gen-engine-signals.bpmn': { rejected: ['getSpotPrice', 'catchSpotUpdate'] },
  'gen-engine-timers.bpmn': { rejected: ['start-cycle', 'bound-duration', 'catch-date'] },
  // Two executable processes, each started by a message.
  'jssdk-bpmnparser2-collab.bpmn': { rejected: ['StartEvent_MSG-START', 'StartEvent_MSG-EMIT_FRAME'] },
  'jssdk-conditional-pathway.bpmn': { accepted: ['condition-test'] },
  'jssdk-deploy-workflow-ebg.bpmn': { rejected: ['ExclusiveGateway_0wne7eb', 'IntermediateCatchEvent_04zcf15'] },
  'jssdk-message-start.bpmn': { rejected: ['Event_0abanqm'] },
  'jssdk-signal-start.bpmn': { rejected: ['StartEvent_1'] },
  'jssdk-throw-error.bpmn': { rejected: ['IntermediateThrowEvent_0zfx5n9'] },
  'jssdk-zeebe-user-task.bpmn': { accepted: ['zeebe-user-task-test'] },
  'moddle-simple-mi.bpmn': { rejected: ['Activity_1naoqum'] },
  'modeler-bar-call-brt.bpmn': { rejected: ['CallActivity_1', 'BusinessRuleTask_1'] },
  'modeler-foo-call.bpmn': { rejected: ['CallActivity_1'] },
  // Error boundaries/end/start, event subprocess, service task with an empty task definition, bare business rule task.
  'modeler-lint-errors.bpmn': {
    rejected: ['Event_05j9v3i', 'Activity_084s4zz', 'Event_0ewdllh', 'Event_0azlwld', 'Activity_1e5gui8', 'Event_0jeboss', 'Activity_0h20swu'],
  },
  // The properties-panel element zoo: nearly every kind Orca does not run yet, tasks without job types.
  'ppanel-element-zoo.bpmn': {
    rejected: [
      'ServiceTask_1',
      'CallActivity_1',
      'SendTask_1',
      'ScriptTask_1',
      'ScriptTask_2',
      'ScriptTask_3',
      'BusinessRuleTask_1',
      'TimerStartEvent_1',
      'BoundaryEvent_1',
      'InterruptingTimerBoundaryEvent_1',
      'TimerBoundaryEvent_1',
      'IntermediateTimerICatchEvent_1',
      'LinkEvent_1',
      'MessageThrow_1',
      'MessageEnd_1',
      'BusinessRuleTask_2',
      'EscalationEvent',
      'ErrorEndEvent_1',
      'AdHocBPMN',
      'AdHocJobWorker',
      'ConditionalStartEvent_1',
    ],
  },
  'ppanel-execution-listeners.bpmn': {
    rejected: ['TimerEndEvent', 'BoundaryEvent', 'CompensationBoundaryEvent', 'ComplexGateway', 'ErrorEndEvent', 'MultiInstanceTask', 'MultiInstanceTask_NoListeners'],
  },
  // No start event at all, service tasks without types, receive task without message, signal throw and end.
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
  // Event subprocess with two message starts, message starts; receive tasks and message catches are fine.
  'ppanel-message-props.bpmn': { rejected: ['EventSubProcess_1', 'StartEvent_1', 'StartEvent_3', 'StartEvent_2', 'MessageEvent_empty'] },
  'ppanel-multi-instance-props.bpmn': {
    rejected: ['Process_1', 'ServiceTask_1', 'ServiceTask_noZeebeLoops', 'ServiceTask_noExtensionElements', 'ServiceTask_noCompletionCondition', 'Activity_empty', 'ServiceTask_noInputCollection'],
  },
  'pyzeebe-test.bpmn': { rejected: ['Event_0hg01mt'] },
  'quarkus-simple-user-task.bpmn': { accepted: ['SimpleUserTask'] },
  // Ad-hoc subprocess (with an error boundary and escalation throw inside), event subprocess with an
  // escalation start, escalation throw, error boundary, message start. The agent prompt is a FEEL string
  // with raw line breaks, which feelin does not parse.
  'tut-ai-email-support-agent.bpmn': {
    rejected: ['Activity_04glkkx', 'Event_0xzg3s4', 'Event_1wezv96', 'Activity_0sw5ued', 'Event_1daac7o', 'Event_1jfz6dk', 'Event_0fquesm', 'Event_WaitForEmail'],
    feel: ['Activity_04glkkx'],
  },
  'zp-play-demo.bpmn': {
    rejected: ['Event_0e1491j', 'Event_0f7kk8e', 'Gateway_0tjyp07', 'Event_0o5vjud', 'Activity_0idr7gg', 'Event_0g5f8ul', 'Activity_13ncqtb', 'Event_1so1ulj'],
  },
  'zp-solos-transport.bpmn': {
    rejected: ['Event_0qwk86e', 'Activity_05mc79l', 'Event_1i7h8b8', 'Event_0hkfaag', 'Event_0gkbmvf', 'Gateway_1u926i9', 'Activity_1yxzu88'],
  },
  'zpt-alternate-start-end.bpmn': { accepted: ['alternate-start-end'] },
  'zpt-automated-tests.bpmn': { rejected: ['Activity_1kq2g9a'] },
  'zpt-call-activity.bpmn': { rejected: ['callactivity'] },
  'zpt-message-event.bpmn': { accepted: ['message-event'] },
  'zpt-message-start-event.bpmn': { rejected: ['StartEvent_1'] },
  'zpt-multiple-call-activity.bpmn': { rejected: ['callactivityOne', 'callactivityTwo'] },
  'zpt-multiple-tasks-parallel.bpmn': { accepted: ['multiple-tasks'] },
  'zpt-pr-created.bpmn': { rejected: ['prCreated', 'triggerTests', 'Gateway_1wymgxc', 'remindReviewerTimer'] },
  'zpt-start-end.bpmn': { accepted: ['start-end'] },
  'zpt-timer-start-daily.bpmn': { rejected: ['timer'] },
};

const folder = fileURLToPath(new URL('../../../shared/bpmn/', import.meta.url));
const present = existsSync(folder);
const files = present ? readdirSync(folder).filter((f) => f.endsWith('.bpmn')).sort() : [];
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
    expect([...required].filter((id) => !actual.has(id)), 'expected problems that are missing').toEqual([]);
    expect([...actual].filter((id) => !allowed.has(id)), 'unexpected problems').toEqual([]);
  });
});
