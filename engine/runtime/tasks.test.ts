import { describe, expect, it } from 'vitest';
import { end, engineWith, flow, processXml, service, start, visited } from './testing.ts';

describe('tasks and job types (SPEC.md job type table)', () => {
  it('runs start → service task → end through one job', () => {
    const engine = engineWith(processXml('p', start() + service('task', 'payment') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end')));
    const key = engine.start('p', { amount: 5 });
    expect(engine.instance(key)!.state).toBe('ACTIVE');
    const [job] = engine.activate('payment', 10);
    expect(job).toMatchObject({ type: 'payment', retries: 3, elementId: 'task', processInstanceKey: key, bpmnProcessId: 'p' });
    expect(job.variables).toEqual({ amount: 5 });
    engine.completeJob(job.key, { paid: true });
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.variables[key]).toEqual({ amount: 5, paid: true });
    expect(visited(engine, key)).toEqual(['start', 'task', 'end']);
    expect(engine.history(key).map((r) => r.type)).toEqual([
      'PROCESS_INSTANCE_STARTED',
      'ELEMENT_ACTIVATED',
      'ELEMENT_COMPLETED',
      'SEQUENCE_FLOW_TAKEN',
      'ELEMENT_ACTIVATED',
      'JOB_CREATED',
      'JOB_COMPLETED',
      'ELEMENT_COMPLETED',
      'SEQUENCE_FLOW_TAKEN',
      'ELEMENT_ACTIVATED',
      'ELEMENT_COMPLETED',
      'PROCESS_INSTANCE_COMPLETED',
    ]);
  });

  it('names the jobs of waits as SPEC.md says', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:scriptTask id="s1" name="Compute total"><bpmn:extensionElements><zeebe:script expression="=a + 1" resultVariable="b"/></bpmn:extensionElements></bpmn:scriptTask>' +
        '<bpmn:scriptTask id="s2"/>' +
        '<bpmn:userTask id="u"/>' +
        '<bpmn:receiveTask id="r" messageRef="m"/>' +
        '<bpmn:intermediateCatchEvent id="c"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>' +
        '<bpmn:sendTask id="send"><bpmn:extensionElements><zeebe:taskDefinition type="mailer"/></bpmn:extensionElements></bpmn:sendTask>' +
        '<bpmn:businessRuleTask id="brt"><bpmn:extensionElements><zeebe:taskDefinition type="rules"/></bpmn:extensionElements></bpmn:businessRuleTask>' +
        end() +
        flow('f1', 'start', 's1') +
        flow('f2', 's1', 's2') +
        flow('f3', 's2', 'u') +
        flow('f4', 'u', 'r') +
        flow('f5', 'r', 'c') +
        flow('f6', 'c', 'send') +
        flow('f7', 'send', 'brt') +
        flow('f8', 'brt', 'end'),
    ).replace('<bpmn:process', '<bpmn:message id="m" name="order-paid"/><bpmn:process');
    const engine = engineWith(xml);
    const key = engine.start('p');
    const expected = ['script:Compute total', 'script:s2', 'userTask', 'message:order-paid', 'event:message:c', 'mailer', 'rules'];
    for (const type of expected) {
      const jobs = engine.activate(type, 5);
      expect(jobs, type).toHaveLength(1);
      engine.completeJob(jobs[0].key);
    }
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key)).toEqual(['start', 's1', 's2', 'u', 'r', 'c', 'send', 'brt', 'end']);
  });

  it('passes the script expression to the worker as custom headers', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:scriptTask id="s1"><bpmn:extensionElements><zeebe:script expression="=a + 1" resultVariable="b"/></bpmn:extensionElements></bpmn:scriptTask>' +
        end() +
        flow('f1', 'start', 's1') +
        flow('f2', 's1', 'end'),
    );
    const engine = engineWith(xml);
    engine.start('p', { a: 1 });
    const [job] = engine.activate('script:s1', 1);
    expect(Object.values(job.customHeaders)).toEqual(expect.arrayContaining(['a + 1', 'b']));
  });

  it('passes through plain tasks, manual tasks and none throw events', () => {
    const xml = processXml(
      'p',
      start() +
        '<bpmn:task id="t"/><bpmn:manualTask id="m"/><bpmn:intermediateThrowEvent id="milestone"/>' +
        end() +
        flow('f1', 'start', 't') +
        flow('f2', 't', 'm') +
        flow('f3', 'm', 'milestone') +
        flow('f4', 'milestone', 'end'),
    );
    const engine = engineWith(xml);
    const key = engine.start('p');
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(visited(engine, key)).toEqual(['start', 't', 'm', 'milestone', 'end']);
  });

  it('evaluates FEEL job types and retries against the instance variables', () => {
    const engine = engineWith(
      processXml('p', start() + service('task', '="pay-" + region', '', '=tries') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end')),
    );
    engine.start('p', { region: 'eu', tries: 7 });
    const [job] = engine.activate('pay-eu', 1);
    expect(job.retries).toBe(7);
  });

  it('raises an incident when a FEEL job type does not give a string', () => {
    const engine = engineWith(processXml('p', start() + service('task', '=missing') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end')));
    const key = engine.start('p');
    const instance = engine.instance(key)!;
    expect(instance.state).toBe('INCIDENT');
    const [incident] = Object.values(instance.incidents);
    expect(incident).toMatchObject({ type: 'EXTRACT_VALUE_ERROR', elementId: 'task' });
    expect(incident.message).toContain('job type');
  });

  it('ends a token at an activity without outgoing flows, completing the instance when it was the last', () => {
    const engine = engineWith(processXml('p', start() + service('task', 'a') + flow('f1', 'start', 'task')));
    const key = engine.start('p');
    engine.completeJob(engine.activate('a', 1)[0].key);
    expect(engine.instance(key)!.state).toBe('COMPLETED');
  });
});
