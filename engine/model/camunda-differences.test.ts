// Deploy-time warnings (camunda-differences.ts): each element Orca runs
// differently from Camunda 8 is named with a code, and elements that run
// the same are not; the model compiles either way.
import { describe, expect, it } from 'vitest';
import { compileBpmn } from './index.ts';
import { definitions, end, flow, processXml, service, start } from '../runtime/testing.ts';

function warningsOf(xml: string) {
  const result = compileBpmn(xml);
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.model.warnings.map((w) => [w.elementId, w.code]);
}

const chain = (ids: string[]) =>
  ids
    .slice(1)
    .map((id, i) => flow(`f${i}`, ids[i], id))
    .join('');
const errors = '<bpmn:error id="Err" errorCode="E1"/>';
const errorBoundary = (id: string, host: string) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${host}"><bpmn:errorEventDefinition errorRef="Err"/></bpmn:boundaryEvent>`;

describe('Camunda 8 differences at deploy', () => {
  it('warns of script tasks that wait as jobs: a FEEL script, or a job worker type Orca replaces', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:scriptTask id="feel" name="Total"><bpmn:extensionElements><zeebe:script expression="=a + 1" resultVariable="b"/></bpmn:extensionElements></bpmn:scriptTask>' +
        '<bpmn:scriptTask id="worker"><bpmn:extensionElements><zeebe:taskDefinition type="groovy"/></bpmn:extensionElements></bpmn:scriptTask>' +
        end() +
        chain(['start', 'feel', 'worker', 'end']),
    );
    expect(warningsOf(xml)).toEqual([
      ['feel', 'SCRIPT_TASK_IS_JOB'],
      ['worker', 'SCRIPT_TASK_IS_JOB'],
    ]);
    const [feel, worker] = (compileBpmn(xml) as { ok: true; model: { warnings: { message: string }[] } }).model.warnings;
    expect(feel.message).toContain("'script:Total'");
    expect(worker.message).toContain("'groovy'");
  });

  it('warns of ignored assignment, forms and schedules on user tasks, not of a plain one', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:userTask id="review"><bpmn:extensionElements><zeebe:assignmentDefinition assignee="=owner" candidateGroups="sales"/>' +
        '<zeebe:formDefinition formKey="camunda-forms:bpmn:form1"/><zeebe:taskSchedule dueDate="=due"/></bpmn:extensionElements></bpmn:userTask>' +
        '<bpmn:userTask id="plain"/>' +
        end() +
        chain(['start', 'review', 'plain', 'end']),
    );
    expect(warningsOf(xml)).toEqual([
      ['review', 'ASSIGNMENT_IGNORED'],
      ['review', 'FORM_IGNORED'],
      ['review', 'TASK_SCHEDULE_IGNORED'],
    ]);
  });

  it('warns of message waits that are jobs: receive tasks and message catch events, after an event-based gateway too', () => {
    const xml = definitions(
      '<bpmn:message id="m" name="paid"/>' +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:receiveTask id="wait" messageRef="m"/>' +
        '<bpmn:eventBasedGateway id="gw"/>' +
        '<bpmn:intermediateCatchEvent id="catch"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>' +
        '<bpmn:intermediateCatchEvent id="later"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>' +
        end() +
        end('e2') +
        flow('f1', 'start', 'wait') +
        flow('f2', 'wait', 'gw') +
        flow('f3', 'gw', 'catch') +
        flow('f4', 'gw', 'later') +
        flow('f5', 'catch', 'end') +
        flow('f6', 'later', 'e2') +
        '</bpmn:process>',
    );
    expect(warningsOf(xml)).toEqual([
      ['wait', 'MESSAGE_WAIT_IS_JOB'],
      ['catch', 'MESSAGE_WAIT_IS_JOB'],
    ]);
  });

  it('warns that message starts, boundaries and event subprocess starts fire only through the messages extension', () => {
    const xml = definitions(
      '<bpmn:message id="m" name="paid"/>' +
        '<bpmn:process id="p" isExecutable="true">' +
        '<bpmn:startEvent id="ms"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent>' +
        service('t', 'work') +
        '<bpmn:boundaryEvent id="b" attachedToRef="t"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>' +
        end() +
        end('e2') +
        flow('f1', 'ms', 't') +
        flow('f2', 't', 'end') +
        flow('f3', 'b', 'e2') +
        '<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="es" isInterrupting="false"><bpmn:messageEventDefinition messageRef="m"/></bpmn:startEvent>' +
        end('ee') +
        flow('r1', 'es', 'ee') +
        '</bpmn:subProcess></bpmn:process>',
    );
    expect(warningsOf(xml)).toEqual([
      ['ms', 'MESSAGE_EVENT_NEEDS_EXTENSION'],
      ['b', 'MESSAGE_EVENT_NEEDS_EXTENSION'],
      ['es', 'MESSAGE_EVENT_NEEDS_EXTENSION'],
    ]);
  });

  it('warns of error catches only a worker-thrown error can reach, not of those an error end event or a call activity can', () => {
    const onTask = definitions(
      errors +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        service('t', 'work') +
        end() +
        errorBoundary('b', 't') +
        end('e2') +
        chain(['start', 't', 'end']) +
        flow('fb', 'b', 'e2') +
        '</bpmn:process>',
    );
    expect(warningsOf(onTask)).toEqual([['b', 'ERROR_CATCH_NEEDS_EXTENSION']]);

    const sub = (inside: string) =>
      definitions(
        errors +
          '<bpmn:process id="p" isExecutable="true">' +
          start() +
          `<bpmn:subProcess id="sub">${start('ss')}${inside}</bpmn:subProcess>` +
          errorBoundary('b', 'sub') +
          end() +
          end('e2') +
          chain(['start', 'sub', 'end']) +
          flow('fb', 'b', 'e2') +
          '</bpmn:process>',
      );
    expect(warningsOf(sub(service('t', 'work') + end('se') + flow('s1', 'ss', 't') + flow('s2', 't', 'se')))).toEqual([['b', 'ERROR_CATCH_NEEDS_EXTENSION']]);
    const thrower = '<bpmn:endEvent id="se"><bpmn:errorEventDefinition errorRef="Err"/></bpmn:endEvent>';
    expect(warningsOf(sub(thrower + flow('s1', 'ss', 'se')))).toEqual([]);

    const onCall = definitions(
      errors +
        '<bpmn:process id="p" isExecutable="true">' +
        start() +
        '<bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child"/></bpmn:extensionElements></bpmn:callActivity>' +
        errorBoundary('b', 'call') +
        end() +
        end('e2') +
        chain(['start', 'call', 'end']) +
        flow('fb', 'b', 'e2') +
        '</bpmn:process>',
    );
    expect(warningsOf(onCall)).toEqual([]);
  });

  it('warns of an error event subprocess that nothing in its scope but a job can reach', () => {
    const withEventSub = (main: string) =>
      definitions(
        errors +
          '<bpmn:process id="p" isExecutable="true">' +
          main +
          '<bpmn:subProcess id="onError" triggeredByEvent="true"><bpmn:startEvent id="es"><bpmn:errorEventDefinition errorRef="Err"/></bpmn:startEvent>' +
          end('ee') +
          flow('r1', 'es', 'ee') +
          '</bpmn:subProcess></bpmn:process>',
      );
    expect(warningsOf(withEventSub(start() + service('t', 'work') + end() + chain(['start', 't', 'end'])))).toEqual([['es', 'ERROR_CATCH_NEEDS_EXTENSION']]);
    const thrower = '<bpmn:endEvent id="end"><bpmn:errorEventDefinition errorRef="Err"/></bpmn:endEvent>';
    expect(warningsOf(withEventSub(start() + service('t', 'work') + thrower + chain(['start', 't', 'end'])))).toEqual([]);
  });

  it('says nothing about a model that runs as in Camunda 8', () => {
    expect(warningsOf(processXml('p', start() + service('t', 'work') + end() + chain(['start', 't', 'end'])))).toEqual([]);
  });
});
