// The case runtime, one element kind and rule at a time, through the
// in-memory host (with BPMN children where a process task starts one).
import { describe, expect, it } from 'vitest';
import { CommandRejected } from './in-memory-case-engine.ts';
import { caseXml, runCase } from '../testing.ts';

const onPart = (source: string, event = 'complete') => `<planItemOnPart sourceRef="${source}"><standardEvent>${event}</standardEvent></planItemOnPart>`;
const sentry = (id: string, parts: string, ifPart?: string) =>
  `<sentry id="${id}">${parts}${ifPart === undefined ? '' : `<ifPart><condition>${ifPart}</condition></ifPart>`}</sentry>`;

const childProcess = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d">
  <bpmn:process id="child" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="child-work"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;

describe('human and generic tasks', () => {
  it('wait as userTask jobs carrying the case instance key, and complete with their job', () => {
    const run = runCase(caseXml('<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="t"/><humanTask id="h"/><task id="t"/>'));
    const jobs = run.engine.activate('userTask', 10);
    expect(jobs.map((j) => [j.elementId, j.processInstanceKey, j.bpmnProcessId])).toEqual([
      ['A', run.key, 'c'],
      ['B', run.key, 'c'],
    ]);
    run.engine.completeJob(jobs[0].key, { approved: true });
    expect(run.instance().variables).toEqual({ approved: true });
    run.engine.completeJob(jobs[1].key);
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('a non-blocking task completes as soon as it starts', () => {
    const run = runCase(caseXml('<planItem id="A" definitionRef="t"/><task id="t" isBlocking="false"/>'));
    expect(run.states().A).toEqual(['COMPLETED']);
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('a job failed with no retries left is an incident at its plan item', () => {
    const run = runCase(caseXml('<planItem id="A" definitionRef="h"/><humanTask id="h"/>'));
    run.engine.failJob(run.item('A').jobKey!, 0, 'no one there');
    expect(Object.values(run.instance().incidents).map((i) => [i.type, i.elementId, i.message])).toEqual([
      ['JOB_NO_RETRIES', 'A', 'No more retries left: no one there'],
    ]);
    expect(run.instance().state).toBe('INCIDENT');
  });
});

describe('manual activation', () => {
  const xml = caseXml(
    '<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="m"/><humanTask id="h"/>' +
      '<humanTask id="m"><defaultControl><manualActivationRule><condition>${needsReview}</condition></manualActivationRule></defaultControl></humanTask>',
  );

  it('an item whose rule holds is ENABLED until started; started, it is ACTIVE', () => {
    const run = runCase(xml, { variables: { needsReview: true } });
    expect(run.states().B).toEqual(['ENABLED']);
    expect(run.item('B').jobKey).toBeUndefined();
    run.engine.command(run.key, { type: 'startPlanItem', planItemKey: run.item('B').key });
    expect(run.states().B).toEqual(['ACTIVE']);
    expect(run.item('B').jobKey).toBeDefined();
  });

  it('an ENABLED item keeps a stage without autoComplete open; disabled, it no longer does', () => {
    const run = runCase(xml, { variables: { needsReview: true } });
    run.complete('A');
    expect(run.instance().state).toBe('ACTIVE');
    run.engine.command(run.key, { type: 'disablePlanItem', planItemKey: run.item('B').key });
    // The case completes, and a DISABLED item goes with it (parentTerminate, in CMMN 1.1's Stage and Task lifecycle).
    expect(run.instance().state).toBe('COMPLETED');
    expect(
      run.engine
        .history(run.key)
        .filter((r) => r.elementId === 'B')
        .map((r) => r.detail?.state),
    ).toEqual(['AVAILABLE', 'ENABLED', 'DISABLED', 'TERMINATED']);
  });

  it('a rule that does not hold starts the item at once', () => {
    const run = runCase(xml, { variables: { needsReview: false } });
    expect(run.states().B).toEqual(['ACTIVE']);
  });

  it('starting an item that is not ENABLED is refused and changes nothing', () => {
    const run = runCase(xml, { variables: { needsReview: false } });
    expect(() => run.engine.command(run.key, { type: 'startPlanItem', planItemKey: run.item('B').key })).toThrow(
      /is ACTIVE; it can be started only when ENABLED/,
    );
    expect(run.states().B).toEqual(['ACTIVE']);
  });
});

describe('stages', () => {
  const stage = (autoComplete: boolean) =>
    caseXml(
      `<planItem id="S" definitionRef="st"/><stage id="st" autoComplete="${autoComplete}">` +
        '<planItem id="R" definitionRef="h"><itemControl><requiredRule/></itemControl></planItem><planItem id="O" definitionRef="h"/>' +
        '<planItem id="Later" definitionRef="h"><entryCriterion sentryRef="never"/></planItem>' +
        sentry('never', onPart('O', 'terminate')) +
        '</stage><humanTask id="h"/>',
    );

  it('with autoComplete, completes once its required items are done, terminating the rest', () => {
    const run = runCase(stage(true));
    expect(run.states()).toMatchObject({ S: ['ACTIVE'], R: ['ACTIVE'], O: ['ACTIVE'], Later: ['AVAILABLE'] });
    run.complete('O');
    expect(run.states().S).toEqual(['ACTIVE']);
    run.complete('R');
    expect(run.states()).toMatchObject({ S: ['COMPLETED'], Later: ['TERMINATED'] });
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('with autoComplete, an ACTIVE item keeps it open even when the required ones are done', () => {
    const run = runCase(stage(true));
    run.complete('R');
    expect(run.states().S).toEqual(['ACTIVE']);
  });

  it('without autoComplete, an AVAILABLE item keeps it open', () => {
    const run = runCase(stage(false));
    run.complete('R');
    run.complete('O');
    expect(run.states()).toMatchObject({ S: ['ACTIVE'], Later: ['AVAILABLE'] });
    expect(run.instance().state).toBe('ACTIVE');
  });

  it('nest, and an exit criterion on a stage terminates it and everything inside, withdrawing the jobs', () => {
    const run = runCase(
      caseXml(
        '<planItem id="Outer" definitionRef="st1"><exitCriterion sentryRef="stop"/></planItem><planItem id="L" definitionRef="ev"/>' +
          sentry('stop', onPart('L', 'occur')) +
          '<stage id="st1"><planItem id="Inner" definitionRef="st2"/><stage id="st2"><planItem id="T" definitionRef="h"/></stage></stage>' +
          '<humanTask id="h"/><userEventListener id="ev"/>',
      ),
    );
    expect(run.states()).toMatchObject({ Outer: ['ACTIVE'], Inner: ['ACTIVE'], T: ['ACTIVE'] });
    run.engine.command(run.key, { type: 'occur', planItemKey: run.item('L').key });
    expect(run.states()).toMatchObject({ Outer: ['TERMINATED'], Inner: ['TERMINATED'], T: ['TERMINATED'], L: ['COMPLETED'] });
    expect(run.instance().jobs).toEqual({});
    expect(run.engine.activate('userTask', 10)).toEqual([]);
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('a stage with manual activation waits ENABLED and creates its children only when started', () => {
    const run = runCase(
      caseXml(
        '<planItem id="S" definitionRef="st"><itemControl><manualActivationRule/></itemControl></planItem><stage id="st"><planItem id="T" definitionRef="h"/></stage><humanTask id="h"/>',
      ),
    );
    expect(run.states()).toEqual({ plan: ['ACTIVE'], S: ['ENABLED'] });
    run.engine.command(run.key, { type: 'startPlanItem', planItemKey: run.item('S').key });
    expect(run.states().T).toEqual(['ACTIVE']);
  });
});

describe('sentries', () => {
  it('all on-parts of one sentry must happen (an and-join)', () => {
    const run = runCase(
      caseXml(
        '<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="h"/><planItem id="C" definitionRef="h"><entryCriterion sentryRef="both"/></planItem>' +
          sentry('both', onPart('A') + onPart('B')) +
          '<humanTask id="h"/>',
      ),
    );
    run.complete('A');
    expect(run.states().C).toEqual(['AVAILABLE']);
    run.complete('B');
    expect(run.states().C).toEqual(['ACTIVE']);
  });

  it('an if-part holds or not at the time of the on-part event, not later', () => {
    const run = runCase(
      caseXml(
        '<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="h"/><planItem id="C" definitionRef="h"><entryCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('A'), 'amount > 100') +
          '<humanTask id="h"/>',
      ),
      { variables: { amount: 50 } },
    );
    run.complete('A');
    run.engine.command(run.key, { type: 'setVariables', variables: { amount: 500 } });
    expect(run.states().C).toEqual(['AVAILABLE']);
  });

  it('an if-part alone fires when the case file makes it true', () => {
    const run = runCase(
      caseXml('<planItem id="C" definitionRef="h"><entryCriterion sentryRef="s"/></planItem>' + sentry('s', '', 'amount > 100') + '<humanTask id="h"/>'),
    );
    expect(run.states().C).toEqual(['AVAILABLE']);
    run.engine.command(run.key, { type: 'setVariables', variables: { amount: 500 } });
    expect(run.states().C).toEqual(['ACTIVE']);
  });

  it('an exit criterion terminates an item whatever its state, and its job is withdrawn', () => {
    const run = runCase(
      caseXml(
        '<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="h"><exitCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('A')) +
          '<humanTask id="h"/>',
      ),
    );
    const jobKey = run.item('B').jobKey!;
    run.complete('A');
    expect(run.states().B).toEqual(['TERMINATED']);
    expect(() => run.engine.completeJob(jobKey)).toThrow(CommandRejected);
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('an if-part that does not give true or false is an incident naming the sentry and the item', () => {
    const run = runCase(
      caseXml(
        '<planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="h"><entryCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('A'), '"yes"') +
          '<humanTask id="h"/>',
      ),
    );
    run.complete('A');
    const incidents = Object.values(run.instance().incidents);
    expect(incidents.map((i) => [i.type, i.elementId])).toEqual([['CONDITION_ERROR', 'B']]);
    expect(incidents[0].message).toContain("sentry 's'");
    expect(run.instance().state).toBe('INCIDENT');
  });

  it('sentries that fire each other forever end in an incident naming the element, not a hang', () => {
    const run = runCase(
      caseXml(
        '<planItem id="L" definitionRef="ev"/><planItem id="A" definitionRef="t"><entryCriterion sentryRef="go"/><entryCriterion sentryRef="again"/></planItem>' +
          sentry('go', onPart('L', 'occur')) +
          sentry('again', onPart('A')) +
          '<userEventListener id="ev"/><task id="t" isBlocking="false"><defaultControl><repetitionRule/></defaultControl></task>',
      ),
      { stepBudget: 200 },
    );
    run.engine.command(run.key, { type: 'occur', planItemKey: run.item('L').key });
    expect(Object.values(run.instance().incidents).map((i) => [i.type, i.elementId])).toEqual([['STEP_BUDGET_EXCEEDED', 'A']]);
    expect(run.instance().state).toBe('INCIDENT');
  });
});

describe('the step budget', () => {
  it('stops a command that would move more plan items than it allows, with one incident; cancel still ends the case', () => {
    const tasks = ['A', 'B', 'C', 'D', 'E', 'F'];
    const run = runCase(
      caseXml(
        `<planItem id="S" definitionRef="st"/><stage id="st">${tasks.map((t) => `<planItem id="${t}" definitionRef="h"/>`).join('')}</stage><humanTask id="h"/>`,
      ),
      {
        stepBudget: 4,
      },
    );
    expect(Object.values(run.instance().incidents).map((i) => [i.type, i.elementId])).toEqual([['STEP_BUDGET_EXCEEDED', 'C']]);
    expect(run.instance().state).toBe('INCIDENT');
    run.engine.cancelCase(run.key);
    expect(run.instance().state).toBe('TERMINATED');
    expect(new Set(Object.values(run.instance().planItems).map((p) => p.state))).toEqual(new Set(['TERMINATED']));
    expect(Object.keys(run.instance().incidents)).toHaveLength(1);
  });
});

describe('repetition', () => {
  it('an entry criterion firing again starts a new instance of a repeatable item', () => {
    const run = runCase(
      caseXml(
        '<planItem id="A" definitionRef="h"><itemControl><repetitionRule><condition>again</condition></repetitionRule></itemControl></planItem>' +
          '<planItem id="B" definitionRef="h"><itemControl><repetitionRule/></itemControl><entryCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('A')) +
          '<humanTask id="h"/>',
      ),
      { variables: { again: true } },
    );
    run.complete('A');
    expect(run.states()).toMatchObject({ A: ['COMPLETED', 'ACTIVE'], B: ['ACTIVE', 'AVAILABLE'] });
    run.complete('A', { again: false });
    expect(run.states()).toMatchObject({ A: ['COMPLETED', 'COMPLETED'], B: ['ACTIVE', 'ACTIVE', 'AVAILABLE'] });
  });
});

describe('milestones and event listeners', () => {
  it('a milestone without entry criteria occurs at once; one with them when they fire', () => {
    const run = runCase(
      caseXml(
        '<planItem id="M0" definitionRef="m"/><planItem id="A" definitionRef="h"/><planItem id="M1" definitionRef="m"><entryCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('A')) +
          '<milestone id="m"/><humanTask id="h"/>',
      ),
    );
    expect(run.states()).toMatchObject({ M0: ['COMPLETED'], M1: ['AVAILABLE'] });
    run.complete('A');
    expect(run.states().M1).toEqual(['COMPLETED']);
  });

  it('a user event listener occurs when triggered and does not keep the case open', () => {
    const run = runCase(
      caseXml(
        '<planItem id="L" definitionRef="ev"/><planItem id="A" definitionRef="h"/><planItem id="B" definitionRef="h"><entryCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('L', 'occur')) +
          '<userEventListener id="ev"/><humanTask id="h"/>',
        'autoComplete="true"',
      ),
    );
    expect(() => run.engine.command(run.key, { type: 'occur', planItemKey: run.item('A').key })).toThrow(/only a user event listener can be triggered/);
    run.engine.command(run.key, { type: 'occur', planItemKey: run.item('L').key });
    expect(run.states()).toMatchObject({ L: ['COMPLETED'], B: ['ACTIVE'] });
    run.complete('A');
    run.complete('B');
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('a timer event listener occurs when its duration has passed', () => {
    const run = runCase(
      caseXml(
        '<planItem id="T" definitionRef="tl"/><planItem id="A" definitionRef="h"><entryCriterion sentryRef="s"/></planItem>' +
          sentry('s', onPart('T', 'occur')) +
          '<timerEventListener id="tl"><timerExpression>PT1H</timerExpression></timerEventListener><humanTask id="h"/>',
      ),
    );
    expect(run.engine.nextTimerDue()).toBe(run.clock.now + 3_600_000);
    expect(run.engine.fireDueTimers()).toBe(0);
    run.clock.now += 3_600_000;
    expect(run.engine.fireDueTimers()).toBe(1);
    expect(run.states()).toMatchObject({ T: ['COMPLETED'], A: ['ACTIVE'] });
  });
});

describe('process tasks', () => {
  const xml = (blocking: boolean) => caseXml(`<planItem id="P" definitionRef="pt"/><processTask id="pt" processRef="child" isBlocking="${blocking}"/>`, '', '');

  it('start a BPMN child of the case and complete when it completes, taking its variables', () => {
    const run = runCase(xml(true), { bpmn: [childProcess], variables: { order: 7 } });
    const childKey = run.item('P').childInstanceKey!;
    const child = run.engine.processes.instance(childKey)!;
    expect(child.parent).toEqual({ instanceKey: run.key, elementInstanceKey: run.item('P').key });
    expect(child.variables[childKey]).toEqual({ order: 7 });
    const [job] = run.engine.processes.activate('child-work', 1);
    run.engine.completeJob(job.key, { shipped: true });
    expect(run.states().P).toEqual(['COMPLETED']);
    expect(run.instance().variables).toEqual({ order: 7, shipped: true });
    expect(run.instance().state).toBe('COMPLETED');
  });

  it('cancel their child when the case is cancelled', () => {
    const run = runCase(xml(true), { bpmn: [childProcess] });
    const childKey = run.item('P').childInstanceKey!;
    run.engine.cancelCase(run.key);
    expect(run.instance().state).toBe('TERMINATED');
    expect(run.engine.processes.instance(childKey)!.state).toBe('TERMINATED');
  });

  it('non-blocking, complete as soon as the child has started', () => {
    const run = runCase(xml(false), { bpmn: [childProcess] });
    expect(run.states().P).toEqual(['COMPLETED']);
    expect(run.engine.processes.children(run.key)).toHaveLength(1);
  });

  it('whose process is not deployed raise an incident naming the element', () => {
    const run = runCase(xml(true));
    expect(Object.values(run.instance().incidents).map((i) => [i.type, i.elementId, i.message])).toEqual([
      ['CALLED_ELEMENT_ERROR', 'P', "Process task 'P' starts process 'child', but no process with that id is deployed."],
    ]);
  });
});

describe('process task references', () => {
  it('may name a <process externalRef> of the document, as CMMN 1.1 writes it', () => {
    const run = runCase(
      caseXml('<planItem id="P" definitionRef="pt"/><processTask id="pt" processRef="proc"/>', '', '<process id="proc" externalRef="child"/>'),
      {
        bpmn: [childProcess],
      },
    );
    expect(run.engine.processes.instance(run.item('P').childInstanceKey!)!.bpmnProcessId).toBe('child');
  });
});

describe('case tasks', () => {
  it('whose case is not deployed raise an incident naming the element', () => {
    const run = runCase(caseXml('<planItem id="K" definitionRef="ct"/><caseTask id="ct" caseRef="nowhere"/>'));
    expect(Object.values(run.instance().incidents).map((i) => [i.type, i.elementId, i.message])).toEqual([
      ['CALLED_ELEMENT_ERROR', 'K', "Case task 'K' starts case 'nowhere', but no case with that id is deployed."],
    ]);
  });

  it('start a child case and complete when it completes', () => {
    const child = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" id="d2" targetNamespace="t"><case id="inner"><casePlanModel id="p2"><planItem id="X" definitionRef="h"/><humanTask id="h"/></casePlanModel></case></definitions>`;
    const run = runCase(caseXml('<planItem id="K" definitionRef="ct"/><caseTask id="ct" caseRef="inner"/>'), { others: [child] });
    const [inner] = run.engine.childCases(run.key);
    expect(inner.caseDefinitionId).toBe('inner');
    const [job] = run.engine.activate('userTask', 1);
    expect(job.processInstanceKey).toBe(inner.key);
    run.engine.completeJob(job.key, { done: 1 });
    expect(run.engine.caseInstance(inner.key)!.state).toBe('COMPLETED');
    expect(run.states().K).toEqual(['COMPLETED']);
    expect(run.instance().state).toBe('COMPLETED');
  });
});

describe('the case', () => {
  it('is a JSON document and keeps its plan items, ended ones included', () => {
    const run = runCase(caseXml('<planItem id="A" definitionRef="h"/><humanTask id="h"/>'));
    run.complete('A');
    const document = run.instance();
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
    expect(Object.values(document.planItems).map((p) => [p.id, p.state])).toEqual([
      ['plan', 'COMPLETED'],
      ['A', 'COMPLETED'],
    ]);
    expect(run.engine.history(run.key).map((r) => r.type)).toContain('CASE_INSTANCE_COMPLETED');
  });

  it('refuses commands once ended, and bad variables without changing anything', () => {
    const run = runCase(caseXml('<planItem id="A" definitionRef="h"/><humanTask id="h"/>'));
    expect(() => run.engine.command(run.key, { type: 'setVariables', variables: [] as unknown as Record<string, unknown> })).toThrow(
      /variables must be a JSON object/,
    );
    run.engine.cancelCase(run.key);
    expect(() => run.engine.cancelCase(run.key)).toThrow(/already terminated/);
  });
});
