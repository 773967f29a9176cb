import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions, end, flow, processXml, service, start, timerCatch } from '../engine/runtime/testing.ts';

const bin = fileURLToPath(new URL('../bin/orca.js', import.meta.url));
/** Real models of other projects, kept in the repository (test/fixtures/README.md says where each comes from). */
const fixture = (path: string) => fileURLToPath(new URL(`../test/fixtures/${path}`, import.meta.url));

function orca(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let dir: string;
const order = processXml(
  'order',
  start() +
    service('reserve', 'reserve') +
    '<bpmn:exclusiveGateway id="paid" default="toCancel"/>' +
    service('ship', 'ship') +
    end('shipped') +
    end('cancelled') +
    flow('f1', 'start', 'reserve') +
    flow('f2', 'reserve', 'paid') +
    flow('toShip', 'paid', 'ship', '=total > 100') +
    flow('toCancel', 'paid', 'cancelled') +
    flow('f3', 'ship', 'shipped'),
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orca-cli-'));
  await writeFile(join(dir, 'order.bpmn'), order);
  await writeFile(
    join(dir, 'broken.bpmn'),
    order.replace(
      '<bpmn:serviceTask id="ship"><bpmn:extensionElements><zeebe:taskDefinition type="ship"/></bpmn:extensionElements></bpmn:serviceTask>',
      '<bpmn:serviceTask id="ship"/>',
    ),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('orca validate', () => {
  it('says ok for a valid model and exits 0', async () => {
    const r = await orca(['validate', join(dir, 'order.bpmn')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('order.bpmn: ok');
    expect(r.stdout).toContain('order');
  });

  it('prints the warnings of a valid model (elements that run differently from Camunda 8) with their codes, and exits 0', async () => {
    const feel =
      '<bpmn:scriptTask id="sum"><bpmn:extensionElements><zeebe:script expression="=1 + 1" resultVariable="two"/></bpmn:extensionElements></bpmn:scriptTask>';
    const file = join(dir, 'scripted.bpmn');
    await writeFile(file, processXml('scripted', start() + feel + end() + flow('f1', 'start', 'sum') + flow('f2', 'sum', 'end')));
    const r = await orca(['validate', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('scripted.bpmn: ok');
    expect(r.stdout).toMatch(/scripted\.bpmn: warning: \[sum\] SCRIPT_TASK_IS_JOB: Script task 'sum'/);
  });

  it('lists each problem with its element and exits non-zero', async () => {
    const r = await orca(['validate', join(dir, 'order.bpmn'), join(dir, 'broken.bpmn'), join(dir, 'missing.bpmn')]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/broken\.bpmn: error: \[ship\] /);
    expect(r.stdout).toMatch(/missing\.bpmn: error: cannot read/);
  });
});

describe('orca simulate', () => {
  it('completes each job with the given variables and prints the path, state and variables', async () => {
    const r = await orca([
      'simulate',
      join(dir, 'order.bpmn'),
      '--vars',
      '{"orderId":"A1"}',
      '--job',
      'reserve={"total":250}',
      '--job',
      'ship={"tracking":"T9"}',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.state).toBe('COMPLETED');
    expect(report.visited).toEqual(['start', 'reserve', 'paid', 'ship', 'shipped']);
    expect(report.variables).toEqual({ orderId: 'A1', total: 250, tracking: 'T9' });
    expect(report.incidents).toEqual([]);
  });

  it('reports an incident and exits 2', async () => {
    const r = await orca(['simulate', join(dir, 'order.bpmn'), '--job', 'reserve={"note":"no total"}']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.state).toBe('INCIDENT');
    expect(report.incidents[0]).toMatchObject({ type: 'CONDITION_ERROR', elementId: 'paid' });
  });

  it('rejects bad arguments with a clear message', async () => {
    const r = await orca(['simulate', join(dir, 'order.bpmn'), '--vars', '[1]']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--vars must be a JSON object');
  });
});

describe('--inline-scripts (zeebe:script run inline, as the deploy option does)', () => {
  const scripted = processXml(
    'scriptedInline',
    start() +
      '<bpmn:scriptTask id="sum"><bpmn:extensionElements><zeebe:script expression="=a + b" resultVariable="total"/></bpmn:extensionElements></bpmn:scriptTask>' +
      end() +
      flow('f1', 'start', 'sum') +
      flow('f2', 'sum', 'end'),
  );

  beforeAll(() => writeFile(join(dir, 'inline.bpmn'), scripted));

  it('simulate evaluates the script instead of completing a script: job', async () => {
    const r = await orca(['simulate', join(dir, 'inline.bpmn'), '--vars', '{"a":2,"b":3}', '--inline-scripts']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.variables).toEqual({ a: 2, b: 3, total: 5 });
    expect(report.jobs).toEqual([]);
    const plain = JSON.parse((await orca(['simulate', join(dir, 'inline.bpmn'), '--vars', '{"a":2,"b":3}'])).stdout);
    expect(plain.jobs).toEqual([{ type: 'script:sum', elementId: 'sum' }]);
    expect(plain.variables).toEqual({ a: 2, b: 3 });
  });

  it('validate drops the script-task warning the option makes moot', async () => {
    const withOption = await orca(['validate', join(dir, 'inline.bpmn'), '--inline-scripts']);
    expect(withOption.code).toBe(0);
    expect(withOption.stdout).toContain('inline.bpmn: ok');
    expect(withOption.stdout).not.toContain('SCRIPT_TASK_IS_JOB');
    expect((await orca(['validate', join(dir, 'inline.bpmn')])).stdout).toContain('[sum] SCRIPT_TASK_IS_JOB');
  });
});

describe('orca simulate --error (worker-thrown BPMN errors)', () => {
  const charging = definitions(
    '<bpmn:error id="Err_Card" errorCode="CARD_DECLINED"/>' +
      '<bpmn:process id="charging" isExecutable="true">' +
      start() +
      service('charge', 'charge') +
      end('charged') +
      '<bpmn:boundaryEvent id="declined" attachedToRef="charge"><bpmn:errorEventDefinition errorRef="Err_Card"/></bpmn:boundaryEvent>' +
      service('notify', 'notify') +
      end('refused') +
      flow('f1', 'start', 'charge') +
      flow('f2', 'charge', 'charged') +
      flow('f3', 'declined', 'notify') +
      flow('f4', 'notify', 'refused') +
      '</bpmn:process>',
  );

  beforeAll(() => writeFile(join(dir, 'charging.bpmn'), charging));

  it('has the job of TYPE throw CODE: caught by the matching boundary, the report names it', async () => {
    const r = await orca(['simulate', join(dir, 'charging.bpmn'), '--error', 'charge=CARD_DECLINED']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.visited).toEqual(['start', 'charge', 'declined', 'notify', 'refused']);
    expect(report.jobs).toEqual([
      { type: 'charge', elementId: 'charge', errorCode: 'CARD_DECLINED' },
      { type: 'notify', elementId: 'notify' },
    ]);
  });

  it('an error nothing catches is an incident (exit 2) naming the code', async () => {
    const r = await orca(['simulate', join(dir, 'charging.bpmn'), '--error', 'charge=OTHER']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.incidents[0]).toMatchObject({ type: 'UNHANDLED_ERROR_EVENT', elementId: 'charge' });
    expect(report.incidents[0].message).toContain('OTHER');
  });

  it('rejects a spec without a code, or a type also given to --job', async () => {
    const bare = await orca(['simulate', join(dir, 'charging.bpmn'), '--error', 'charge']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("--error 'charge' must look like TYPE=CODE");
    const both = await orca(['simulate', join(dir, 'charging.bpmn'), '--error', 'charge=X', '--job', 'charge={}']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('also given to --job');
  });
});

describe('orca with DMN files', () => {
  it('validates DMN files beside BPMN files, naming each problem', async () => {
    const r = await orca(['validate', fixture('dmn/chaos-fancy-decision.dmn'), fixture('dmn/modeler-baz-drd.dmn'), join(dir, 'order.bpmn')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('chaos-fancy-decision.dmn: ok (1 decision: fancyDecision)');
    expect(r.stdout).toMatch(/modeler-baz-drd\.dmn: error: \[BazDecision\] /);
    expect(r.stdout).toContain('order.bpmn: ok');
  });

  it('simulates a business-rule task against a DMN file given after the model', async () => {
    const r = await orca(['simulate', fixture('bpmn/chaos-multi-version-brt.bpmn'), fixture('dmn/chaos-fancy-decision.dmn')]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ state: 'COMPLETED', variables: { out: 'yolo' }, visited: ['start', 'task', 'end'] });
  });

  it('without the DMN file the decision is an incident and the exit code is 2', async () => {
    const r = await orca(['simulate', fixture('bpmn/chaos-multi-version-brt.bpmn')]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).incidents[0]).toMatchObject({ type: 'DECISION_EVALUATION_ERROR', elementId: 'task' });
  });
});

describe('orca simulate with timers and called processes', () => {
  it('moves a simulated clock to due timers and drives child instances', async () => {
    const xml = processXml(
      'waiting',
      start() +
        timerCatch('nap', 'timeDuration', 'P3D') +
        service('t', 'after') +
        end() +
        flow('f1', 'start', 'nap') +
        flow('f2', 'nap', 't') +
        flow('f3', 't', 'end'),
    );
    await writeFile(join(dir, 'waiting.bpmn'), xml);
    const r = await orca(['simulate', join(dir, 'waiting.bpmn'), '--job', 'after={"ok":1}']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'COMPLETED', timersFired: 1, visited: ['start', 'nap', 't', 'end'], variables: { ok: 1 } });
  });
});

describe('orca validate and simulate with CMMN cases', () => {
  it('validates a case, listing its warnings, and names each problem of a broken one', async () => {
    const ok = await orca(['validate', fixture('cmmn/camunda7-case-file-item-on-part.cmmn')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('ok (1 case: case)');
    expect(ok.stdout).toContain('warning: [Sentry_1] CMMN_CASE_FILE_ON_PART_IGNORED');
    const broken = join(dir, 'broken.cmmn');
    await writeFile(
      broken,
      '<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"><case id="c"><casePlanModel id="p">' +
        '<planItem id="A" definitionRef="h"><entryCriterion sentryRef="missing"/></planItem><humanTask id="h"/><planningTable id="pt"/></casePlanModel></case></definitions>',
    );
    const bad = await orca(['validate', broken]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('error: [pt] <planningTable>: planning tables (discretionary items) are not supported');
    expect(bad.stdout).toContain("error: [A] a criterion of 'A' refers to sentry 'missing', which does not exist");
  });

  it('simulates a case: jobs completed, listeners triggered by --occur, plan items printed in upper case', async () => {
    const file = join(dir, 'claim.cmmn');
    await writeFile(
      file,
      '<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"><case id="claim"><casePlanModel id="plan">' +
        '<planItem id="Review" definitionRef="h"/><planItem id="Escalate" definitionRef="ev"/>' +
        '<planItem id="Manager" definitionRef="h"><entryCriterion sentryRef="s"/></planItem>' +
        '<planItem id="Done" definitionRef="m"><entryCriterion sentryRef="d"/></planItem>' +
        '<sentry id="s"><planItemOnPart sourceRef="Escalate"><standardEvent>occur</standardEvent></planItemOnPart></sentry>' +
        '<sentry id="d"><planItemOnPart sourceRef="Manager"><standardEvent>complete</standardEvent></planItemOnPart><ifPart><condition>${approved == true}</condition></ifPart></sentry>' +
        '<humanTask id="h"/><userEventListener id="ev"/><milestone id="m"/></casePlanModel></case></definitions>',
    );
    const r = await orca(['simulate', file, '--occur', 'Escalate', '--job', 'userTask={"approved":true}']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { state: string; planItems: { id: string; definitionId: string; type: string; state: string }[]; variables: object };
    expect(report.state).toBe('COMPLETED');
    expect(report.planItems).toEqual([
      { id: 'plan', definitionId: 'plan', type: 'stage', state: 'COMPLETED' },
      { id: 'Review', definitionId: 'h', type: 'humanTask', state: 'COMPLETED' },
      { id: 'Escalate', definitionId: 'ev', type: 'userEventListener', state: 'COMPLETED' },
      { id: 'Manager', definitionId: 'h', type: 'humanTask', state: 'COMPLETED' },
      { id: 'Done', definitionId: 'm', type: 'milestone', state: 'COMPLETED' },
    ]);
    expect(report.variables).toEqual({ approved: true });
  });

  it('says so when a case waits on something nothing will do, and refuses an unknown --occur', async () => {
    const waiting = await orca(['simulate', fixture('cmmn/camunda7-sequence-if-part.cmmn'), '--job', 'userTask={"value":1}']);
    expect(waiting.code).toBe(2);
    expect(JSON.parse(waiting.stdout)).toMatchObject({
      state: 'ACTIVE',
      planItems: expect.arrayContaining([expect.objectContaining({ id: 'PI_HumanTask_2', state: 'AVAILABLE' })]),
    });
    const unknown = await orca(['simulate', fixture('cmmn/camunda7-sequence-if-part.cmmn'), '--occur', 'Nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--occur Nope: case 'case' has no plan item 'Nope'");
  });
});

describe('orca simulate --message (extension)', () => {
  const messages =
    '<bpmn:message id="Cancel" name="cancel"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>' +
    '<bpmn:message id="Placed" name="placed"/>';
  const cancellable = (startEvent: string) =>
    definitions(
      messages +
        '<bpmn:process id="cancellable" isExecutable="true">' +
        startEvent +
        service('work', 'work') +
        '<bpmn:boundaryEvent id="onCancel" attachedToRef="work"><bpmn:messageEventDefinition messageRef="Cancel"/></bpmn:boundaryEvent>' +
        end() +
        end('cancelled') +
        flow('f1', 'start', 'work') +
        flow('f2', 'work', 'end') +
        flow('f3', 'onCancel', 'cancelled') +
        '</bpmn:process>',
    );

  it('publishes the message with the correlation key the boundary expects, before the job is completed', async () => {
    await writeFile(join(dir, 'cancellable.bpmn'), cancellable(start()));
    const r = await orca(['simulate', join(dir, 'cancellable.bpmn'), '--vars', '{"orderId":"A-7"}', '--message', 'cancel={"reason":"late"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      state: 'COMPLETED',
      visited: ['start', 'work', 'onCancel', 'cancelled'],
      messages: [{ name: 'cancel', correlationKey: 'A-7' }],
      jobs: [],
      variables: { orderId: 'A-7', reason: 'late' },
    });
    // Without --message the boundary never fires and the job path runs, as documented.
    const plain = await orca(['simulate', join(dir, 'cancellable.bpmn'), '--vars', '{"orderId":"A-7"}']);
    expect(JSON.parse(plain.stdout)).toMatchObject({ state: 'COMPLETED', visited: ['start', 'work', 'end'], messages: [] });
  });

  it('starts a process that has only a message start by publishing its message; a bad --message is exit 1', async () => {
    await writeFile(join(dir, 'placed.bpmn'), cancellable('<bpmn:startEvent id="start"><bpmn:messageEventDefinition messageRef="Placed"/></bpmn:startEvent>'));
    const r = await orca(['simulate', join(dir, 'placed.bpmn'), '--message', 'placed={"orderId":"B-1"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'COMPLETED', messages: [{ name: 'placed', correlationKey: '' }], variables: { orderId: 'B-1' } });
    const bad = await orca(['simulate', join(dir, 'placed.bpmn'), '--message', 'placed=[1]']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--message placed must be a JSON object');
  });
});

describe('orca simulate --signal (extension)', () => {
  const recallable = (startEvent: string) =>
    definitions(
      '<bpmn:signal id="Recall" name="recall"/><bpmn:signal id="Open" name="open"/>' +
        '<bpmn:process id="recallable" isExecutable="true">' +
        startEvent +
        service('work', 'work') +
        '<bpmn:boundaryEvent id="onRecall" attachedToRef="work"><bpmn:signalEventDefinition signalRef="Recall"/></bpmn:boundaryEvent>' +
        end() +
        end('recalled') +
        flow('f1', 'start', 'work') +
        flow('f2', 'work', 'end') +
        flow('f3', 'onRecall', 'recalled') +
        '</bpmn:process>',
    );

  it('broadcasts the signal the boundary waits for before the job is completed; without it the job path runs', async () => {
    await writeFile(join(dir, 'recallable.bpmn'), recallable(start()));
    const r = await orca(['simulate', join(dir, 'recallable.bpmn'), '--signal', 'recall={"reason":"audit"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      state: 'COMPLETED',
      visited: ['start', 'work', 'onRecall', 'recalled'],
      signals: ['recall'],
      jobs: [],
      variables: { reason: 'audit' },
    });
    const plain = await orca(['simulate', join(dir, 'recallable.bpmn')]);
    expect(JSON.parse(plain.stdout)).toMatchObject({ state: 'COMPLETED', visited: ['start', 'work', 'end'], signals: [] });
  });

  it('starts a process that has only a signal start by broadcasting its signal; a bad --signal is exit 1', async () => {
    await writeFile(join(dir, 'opened.bpmn'), recallable('<bpmn:startEvent id="start"><bpmn:signalEventDefinition signalRef="Open"/></bpmn:startEvent>'));
    const r = await orca(['simulate', join(dir, 'opened.bpmn'), '--signal', 'open={"shop":"north"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'COMPLETED', signals: ['open'], variables: { shop: 'north' } });
    const bad = await orca(['simulate', join(dir, 'opened.bpmn'), '--signal', '=x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--signal '=x' must look like NAME or NAME=JSON");
  });
});

describe('orca simulate --job-result (ad-hoc subprocess jobs)', () => {
  const agent = processXml(
    'agent',
    start() +
      '<bpmn:adHocSubProcess id="tools"><bpmn:extensionElements><zeebe:taskDefinition type="agent"/>' +
      '<zeebe:adHoc outputCollection="results" outputElement="=answer"/></bpmn:extensionElements>' +
      service('lookup', 'lookup') +
      service('mail', 'mail') +
      '</bpmn:adHocSubProcess>' +
      end() +
      flow('f1', 'start', 'tools') +
      flow('f2', 'tools', 'end'),
  );

  beforeAll(() => writeFile(join(dir, 'agent.bpmn'), agent));

  it('completes the job of an ad-hoc subprocess with the given results in order, then with its condition fulfilled', async () => {
    const r = await orca([
      'simulate',
      join(dir, 'agent.bpmn'),
      '--job-result',
      'agent={"activateElements":[{"elementId":"lookup","variables":{"q":1}}]}',
      '--job',
      'lookup={"answer":"found"}',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.jobs.map((j: { type: string }) => j.type)).toEqual(['agent', 'lookup', 'agent']);
    expect(report.variables.results).toEqual(['found']);
  });
});
