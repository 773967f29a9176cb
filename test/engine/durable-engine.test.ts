import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, type Engine } from '../../engine/partition/index.ts';
import { definitions, end, flow, processXml, service, start, timerBoundary } from '../../engine/runtime/testing.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-1';
const oneTask = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

let fixture: EngineFixture;
let engine: Engine;

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start();
  await engine.deploy(ACCOUNT, oneTask, 'one.bpmn');
});
afterAll(() => fixture.cleanup());

async function activateOne(e: Engine, type: string, account = ACCOUNT) {
  return eventually(async () => (await e.activateJobs(account, type, 1, 'w1'))[0], `a job of type ${type}`);
}

describe('durable engine', () => {
  it('runs start → job → complete and keeps the truth in the store', async () => {
    const started = await engine.startInstance(ACCOUNT, 'one', { orderId: 'A1' });
    expect(started).toMatchObject({ bpmnProcessId: 'one', version: 1, state: 'ACTIVE' });
    const job = await activateOne(engine, 'work');
    expect(job).toMatchObject({ processInstanceKey: started.processInstanceKey, variables: { orderId: 'A1' } });
    await engine.completeJob(ACCOUNT, job.key, { paid: true });
    const row = await engine.store.instances.getInstance(ACCOUNT, started.processInstanceKey);
    expect(row?.document.state).toBe('COMPLETED');
    expect(row?.document.variables[started.processInstanceKey]).toEqual({ orderId: 'A1', paid: true });
    await expect(engine.completeJob(ACCOUNT, job.key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('redeploying the same model keeps the version; a changed one gets the next', async () => {
    expect(await engine.deploy(ACCOUNT, oneTask, 'one.bpmn')).toEqual([{ bpmnProcessId: 'one', version: 1, isNew: false }]);
    const changed = oneTask.replace('type="work"', 'type="work2"');
    expect(await engine.deploy(ACCOUNT, changed, 'one.bpmn')).toEqual([{ bpmnProcessId: 'one', version: 2, isNew: true }]);
    await engine.deploy(ACCOUNT, oneTask.replace('type="work"', 'type="work"  '), 'one.bpmn');
  });

  it('answers a duplicate start with the same command key with the original result, applying it once', async () => {
    await engine.deploy('acct-dup', oneTask, 'one.bpmn');
    const first = await engine.startInstance('acct-dup', 'one', {}, { commandKey: 'dup-1' });
    const second = await engine.startInstance('acct-dup', 'one', {}, { commandKey: 'dup-1' });
    expect(second).toEqual(first);
    const page = await engine.store.instances.listInstances('acct-dup', {});
    expect(page.items.map((i) => i.key)).toEqual([first.processInstanceKey]);
    const other = await engine.startInstance('acct-dup', 'one', {}, { commandKey: 'dup-2' });
    expect(other.processInstanceKey).not.toBe(first.processInstanceKey);
  });

  it('a duplicate completion with the same command key is answered once and applied once', async () => {
    await engine.deploy('acct-dup2', oneTask, 'one.bpmn');
    const started = await engine.startInstance('acct-dup2', 'one');
    const job = await activateOne(engine, 'work', 'acct-dup2');
    await engine.completeJob('acct-dup2', job.key, { a: 1 }, { commandKey: 'c-1' });
    await engine.completeJob('acct-dup2', job.key, { a: 2 }, { commandKey: 'c-1' });
    const row = await engine.store.instances.getInstance('acct-dup2', started.processInstanceKey);
    expect(row?.document.variables[started.processInstanceKey]).toEqual({ a: 1 });
    await expect(engine.completeJob('acct-dup2', job.key, {}, { commandKey: 'c-2' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('fails a job to an incident and keeps the instance in INCIDENT', async () => {
    await engine.deploy('acct-fail', oneTask, 'one.bpmn');
    const started = await engine.startInstance('acct-fail', 'one');
    const job = await activateOne(engine, 'work', 'acct-fail');
    await engine.failJob('acct-fail', job.key, 2, 'flaky');
    const again = await activateOne(engine, 'work', 'acct-fail');
    expect(again).toMatchObject({ key: job.key, retries: 2 });
    await engine.failJob('acct-fail', job.key, 0, 'gave up');
    const row = await engine.store.instances.getInstance('acct-fail', started.processInstanceKey);
    expect(row?.state).toBe('INCIDENT');
    const incidents = await engine.store.incidents.listIncidents('acct-fail', {});
    expect(incidents.items).toHaveLength(1);
    expect(incidents.items[0]).toMatchObject({ type: 'JOB_NO_RETRIES', elementId: 'task' });
  });

  it("keeps accounts apart: another account can neither start nor complete the first one's work", async () => {
    await expect(engine.startInstance('acct-other', 'one')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.deploy('acct-a', oneTask, 'one.bpmn');
    await engine.startInstance('acct-a', 'one');
    const job = await activateOne(engine, 'work', 'acct-a');
    expect(await engine.activateJobs('acct-b', 'work', 10, 'w')).toEqual([]);
    await expect(engine.completeJob('acct-b', job.key)).rejects.toBeInstanceOf(EngineError);
    await engine.completeJob('acct-a', job.key);
  });

  it("fires a timer boundary event from the leader's timer wheel", async () => {
    const model = processXml(
      'deadline',
      start() +
        service('task', 'slow') +
        timerBoundary('late', 'task', 'timeDuration', 'PT0.2S') +
        service('chase', 'chase') +
        end() +
        end('e2') +
        flow('f1', 'start', 'task') +
        flow('f2', 'task', 'end') +
        flow('f3', 'late', 'chase') +
        flow('f4', 'chase', 'e2'),
    );
    await engine.deploy(ACCOUNT, model, 'deadline.bpmn');
    await engine.startInstance(ACCOUNT, 'deadline');
    const slow = await activateOne(engine, 'slow');
    const chase = await activateOne(engine, 'chase');
    expect(chase.elementId).toBe('chase');
    await expect(engine.completeJob(ACCOUNT, slow.key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('runs a call activity with the child on the same partition', async () => {
    const xml = definitions(
      '<bpmn:process id="parent" isExecutable="true">' +
        start() +
        '<bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="kid"/></bpmn:extensionElements></bpmn:callActivity>' +
        end() +
        flow('f1', 'start', 'call') +
        flow('f2', 'call', 'end') +
        '</bpmn:process>' +
        '<bpmn:process id="kid" isExecutable="true">' +
        start('ks') +
        service('kt', 'kidWork') +
        end('ke') +
        flow('k1', 'ks', 'kt') +
        flow('k2', 'kt', 'ke') +
        '</bpmn:process>',
    );
    await engine.deploy(ACCOUNT, xml, 'family.bpmn');
    const started = await engine.startInstance(ACCOUNT, 'parent', { x: 1 });
    const job = await activateOne(engine, 'kidWork');
    expect(job.processInstanceKey).not.toBe(started.processInstanceKey);
    await engine.completeJob(ACCOUNT, job.key, { y: 2 });
    const row = await eventually(async () => {
      const r = await engine.store.instances.getInstance(ACCOUNT, started.processInstanceKey);
      return r?.state === 'COMPLETED' ? r : undefined;
    }, 'the parent to complete');
    expect(row.document.variables[started.processInstanceKey]).toEqual({ x: 1, y: 2 });
  });
});

describe('recovery', () => {
  it('a new engine on the same data rebuilds the job queues, even after Redis lost them', async () => {
    const local = await engineFixture();
    try {
      const first = await local.start();
      await first.deploy(ACCOUNT, oneTask, 'one.bpmn');
      const started = await first.startInstance(ACCOUNT, 'one', { n: 1 });
      await first.close();
      await local.flushRedis();
      const second = await local.start();
      const job = await activateOne(second, 'work');
      expect(job.processInstanceKey).toBe(started.processInstanceKey);
      await second.completeJob(ACCOUNT, job.key);
      const row = await second.store.instances.getInstance(ACCOUNT, started.processInstanceKey);
      expect(row?.state).toBe('COMPLETED');
    } finally {
      await local.cleanup();
    }
  });
});

describe('timer start events', () => {
  it('start instances on their cycle, and a new version replaces the schedule', async () => {
    const ticking = (cycle: string, type: string) =>
      processXml(
        'ticker',
        `<bpmn:startEvent id="every"><bpmn:timerEventDefinition><bpmn:timeCycle>${cycle}</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>` +
          service('t', type) +
          end() +
          flow('f1', 'every', 't') +
          flow('f2', 't', 'end'),
      );
    await engine.deploy('acct-tick', ticking('R2/PT0.2S', 'tick'), 'ticker.bpmn');
    const first = await activateOne(engine, 'tick', 'acct-tick');
    const second = await activateOne(engine, 'tick', 'acct-tick');
    expect(first.processInstanceKey).not.toBe(second.processInstanceKey);
    // A new version with another cycle and job type: the old schedule is withdrawn.
    await engine.deploy('acct-tick', ticking('R1/PT0.2S', 'tock'), 'ticker.bpmn');
    const third = await activateOne(engine, 'tock', 'acct-tick');
    expect(third.processDefinitionVersion).toBe(2);
    const page = await engine.store.instances.listInstances('acct-tick', {});
    expect(page.items).toHaveLength(3);
  });
});

describe('variables at activation time', () => {
  it('a job waiting in one branch sees what the other branch wrote before it was activated', async () => {
    const xml = processXml(
      'branches',
      start() +
        '<bpmn:parallelGateway id="fork"/>' +
        service('a', 'first') +
        service('b', 'second') +
        end('ea') +
        end('eb') +
        flow('f0', 'start', 'fork') +
        flow('f1', 'fork', 'a') +
        flow('f2', 'fork', 'b') +
        flow('f3', 'a', 'ea') +
        flow('f4', 'b', 'eb'),
    );
    await engine.deploy('acct-vars', xml, 'branches.bpmn');
    await engine.startInstance('acct-vars', 'branches', { n: 1 });
    const first = await activateOne(engine, 'first', 'acct-vars');
    await engine.completeJob('acct-vars', first.key, { fromFirst: 'yes' });
    const second = await activateOne(engine, 'second', 'acct-vars');
    expect(second.variables).toEqual({ n: 1, fromFirst: 'yes' });
  });
});
