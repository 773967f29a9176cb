// The engine's webhook events as the partition leaders write them, through
// a running engine (Postgres and Redis when set, PGlite and the in-process
// queues otherwise): each change an account's endpoint is subscribed to is
// in the outbox once it is committed, with the agreed payload and id —
// instance completed and canceled, incident created, the instance entering
// INCIDENT (once, however many incidents follow), user task created and
// completed, a CMMN case completed and terminated — and nothing for types
// or accounts nobody subscribed to.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseXml } from '../../engine/cmmn/testing.ts';
import type { Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { rows, schema, WEBHOOK_EVENT_TYPES, webhookEventId } from '../../engine/store/index.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';
import { OUTBOX_DELIVERIES } from '../../engine/store/testing/outbox-deliveries.ts';

const ONE_TASK = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));
const USER_TASK = processXml('human', start() + '<bpmn:userTask id="review"/>' + end() + flow('f1', 'start', 'review') + flow('f2', 'review', 'end'));
/** Two service tasks in parallel: each can raise an incident of its own. */
const TWO_BRANCHES = processXml(
  'two',
  start() +
    '<bpmn:parallelGateway id="fork"/><bpmn:parallelGateway id="join"/>' +
    service('a', 'branch-a') +
    service('b', 'branch-b') +
    end() +
    flow('f1', 'start', 'fork') +
    flow('f2', 'fork', 'a') +
    flow('f3', 'fork', 'b') +
    flow('f4', 'a', 'join') +
    flow('f5', 'b', 'join') +
    flow('f6', 'join', 'end'),
);
/** Its job type is an expression that gives no string: an incident without a job as soon as it starts. */
const BAD_TYPE = processXml('bad', start() + service('task', '=missing') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

const caseOf = (id: string, body: string) => caseXml(body).replace('<case id="c">', `<case id="${id}">`);
/** A non-blocking task: the case completes as it starts. */
const QUICK_CASE = caseOf('quick', '<planItem id="T" definitionRef="t"/><task id="t" isBlocking="false"/>');
/** A human task, and a listener whose occurrence exits the case plan model. */
const EXITED_CASE = caseOf(
  'exited',
  '<planItem id="H" definitionRef="h"/><planItem id="L" definitionRef="l"/>' +
    '<sentry id="s"><planItemOnPart sourceRef="L"><standardEvent>occur</standardEvent></planItemOnPart></sentry><exitCriterion sentryRef="s"/>' +
    '<humanTask id="h"/><userEventListener id="l"/>',
);

const ACCOUNT = 'acct-hooked';
/** Subscribed to completions only. */
const NARROW = 'acct-narrow';
/** No endpoint at all. */
const BARE = 'acct-bare';

let fixture: EngineFixture;
let engine: Engine;

interface Delivery {
  endpoint_id: string;
  event_id: string;
  type: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start({ partitions: 2 });
  await engine.store.db.insert(schema.webhookEndpoints).values([
    { id: 'ep_all', account: ACCOUNT, url: 'https://receiver.example/all', events: [...WEBHOOK_EVENT_TYPES], secret: 's1' },
    { id: 'ep_narrow', account: NARROW, url: 'https://receiver.example/narrow', events: ['process_instance.completed'], secret: 's2' },
  ]);
  for (const account of [ACCOUNT, NARROW, BARE]) {
    for (const [xml, name] of [
      [ONE_TASK, 'one.bpmn'],
      [USER_TASK, 'human.bpmn'],
      [TWO_BRANCHES, 'two.bpmn'],
      [BAD_TYPE, 'bad.bpmn'],
    ]) {
      await engine.deploy(account, xml, name);
    }
  }
  await engine.deployCases(ACCOUNT, QUICK_CASE, 'quick.cmmn');
  await engine.deployCases(ACCOUNT, EXITED_CASE, 'exited.cmmn');
}, 60_000);
afterAll(() => fixture.cleanup());

/** The account's deliveries about the instance, oldest first. */
async function deliveriesAbout(account: string, instanceKey: string): Promise<Delivery[]> {
  return rows<Delivery>(
    engine.store.db,
    sql`select endpoint_id, event_id, type, payload from ${sql.raw(OUTBOX_DELIVERIES)}
        where account = ${account} and payload->'data'->>'processInstanceKey' = ${instanceKey} order by id, endpoint_id`,
  );
}

async function activate(account: string, type: string, instanceKey: string) {
  return eventually(async () => (await engine.activateJobs(account, type, 10, 'w1')).find((j) => j.processInstanceKey === instanceKey), `a ${type} job`);
}

async function endedAt(account: string, instanceKey: string): Promise<string> {
  const row = await engine.store.instances.getInstance(account, instanceKey);
  return row!.endedAt!.toISOString();
}

/** The deliveries about a case: its own events name it as caseInstanceKey, its tasks' as processInstanceKey. */
async function deliveriesAboutCase(caseKey: string): Promise<Delivery[]> {
  return rows<Delivery>(
    engine.store.db,
    sql`select endpoint_id, event_id, type, payload from ${sql.raw(OUTBOX_DELIVERIES)} where account = ${ACCOUNT}
        and ${caseKey} in (payload->'data'->>'caseInstanceKey', payload->'data'->>'processInstanceKey') order by id, endpoint_id`,
  );
}

async function caseEndedAt(caseKey: string): Promise<string> {
  const row = await engine.store.caseInstances.getCaseInstance(ACCOUNT, caseKey);
  return row!.endedAt!.toISOString();
}

describe('engine webhook events', () => {
  it('process_instance.completed once an instance completes, in the batch that completed it', async () => {
    const { processInstanceKey: key } = await engine.startInstance(ACCOUNT, 'one');
    expect(await deliveriesAbout(ACCOUNT, key)).toEqual([]);
    const job = await activate(ACCOUNT, 'work', key);
    // The command is answered after its batch committed: the delivery is there by then.
    await engine.completeJob(ACCOUNT, job.key, {});
    expect(await deliveriesAbout(ACCOUNT, key)).toEqual([
      {
        endpoint_id: 'ep_all',
        event_id: webhookEventId('process_instance.completed', key),
        type: 'process_instance.completed',
        payload: {
          type: 'process_instance.completed',
          timestamp: await endedAt(ACCOUNT, key),
          data: { processInstanceKey: key, bpmnProcessId: 'one', version: 1 },
        },
      },
    ]);
  });

  it('user_task.created when a user task waits and user_task.completed when it is done, keyed by the task id', async () => {
    const { processInstanceKey: key } = await engine.startInstance(ACCOUNT, 'human');
    const task = await activate(ACCOUNT, 'userTask', key);
    const created = await deliveriesAbout(ACCOUNT, key);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      event_id: webhookEventId('user_task.created', task.key),
      type: 'user_task.created',
      payload: { type: 'user_task.created', data: { taskId: task.key, processInstanceKey: key, bpmnProcessId: 'human', elementId: 'review' } },
    });
    expect(Date.parse(created[0].payload.timestamp)).not.toBeNaN();

    await engine.completeJob(ACCOUNT, task.key, { approved: true });
    const all = await deliveriesAbout(ACCOUNT, key);
    expect(all.map((d) => d.type)).toEqual(['user_task.created', 'user_task.completed', 'process_instance.completed']);
    expect(all[1]).toMatchObject({
      event_id: webhookEventId('user_task.completed', task.key),
      payload: { data: { taskId: task.key, processInstanceKey: key, bpmnProcessId: 'human', elementId: 'review' } },
    });
  });

  it('process_instance.canceled when the API cancels an instance, and no completion', async () => {
    const { processInstanceKey: key } = await engine.startInstance(ACCOUNT, 'human');
    const task = await activate(ACCOUNT, 'userTask', key);
    await engine.cancelInstance(ACCOUNT, key);
    const all = await deliveriesAbout(ACCOUNT, key);
    expect(all.map((d) => d.event_id)).toEqual([webhookEventId('user_task.created', task.key), webhookEventId('process_instance.canceled', key)]);
    expect(all[1].payload).toEqual({
      type: 'process_instance.canceled',
      timestamp: await endedAt(ACCOUNT, key),
      data: { processInstanceKey: key, bpmnProcessId: 'human', version: 1 },
    });
  });

  it('incident.created for every incident, process_instance.incident only for the one that put the instance in INCIDENT', async () => {
    const { processInstanceKey: key } = await engine.startInstance(ACCOUNT, 'two');
    const a = await activate(ACCOUNT, 'branch-a', key);
    const b = await activate(ACCOUNT, 'branch-b', key);
    await engine.failJob(ACCOUNT, a.key, 0, 'card declined');
    const [first] = (await engine.store.incidents.listIncidents(ACCOUNT, { instanceKey: key })).items;
    expect(first).toMatchObject({ jobKey: a.key });
    let all = await deliveriesAbout(ACCOUNT, key);
    expect(all.map((d) => d.event_id)).toEqual([webhookEventId('incident.created', first.key), webhookEventId('process_instance.incident', first.key)]);
    expect(all[0].payload).toEqual({
      type: 'incident.created',
      timestamp: first.createdAt.toISOString(),
      data: {
        incidentKey: first.key,
        processInstanceKey: key,
        bpmnProcessId: 'two',
        elementId: 'a',
        type: 'JOB_NO_RETRIES',
        message: 'No more retries left: card declined',
        jobKey: a.key,
      },
    });
    expect(all[1].payload).toEqual({
      type: 'process_instance.incident',
      timestamp: first.createdAt.toISOString(),
      data: { processInstanceKey: key, bpmnProcessId: 'two', version: 1, incidentKey: first.key },
    });

    // Closing the record (incident.closed) leaves the instance in INCIDENT (SPEC.md): a second incident does not enter it again.
    await engine.store.incidents.resolveIncident(ACCOUNT, first.key);
    await engine.failJob(ACCOUNT, b.key, 0);
    const second = (await engine.store.incidents.listIncidents(ACCOUNT, { instanceKey: key })).items.find((i) => i.key !== first.key)!;
    all = await deliveriesAbout(ACCOUNT, key);
    expect(all.map((d) => d.event_id)).toEqual([
      webhookEventId('incident.created', first.key),
      webhookEventId('process_instance.incident', first.key),
      webhookEventId('incident.closed', first.key),
      webhookEventId('incident.created', second.key),
    ]);
    expect(all[3].payload.data).toMatchObject({ incidentKey: second.key, elementId: 'b', jobKey: b.key });

    // An instance in INCIDENT can still be canceled.
    await engine.cancelInstance(ACCOUNT, key);
    expect((await deliveriesAbout(ACCOUNT, key)).map((d) => d.type).at(-1)).toBe('process_instance.canceled');
  });

  it('an incident raised while the instance starts, without a job: incident.created with jobKey null, and the instance entered INCIDENT', async () => {
    const { processInstanceKey: key } = await engine.startInstance(ACCOUNT, 'bad');
    const [incident] = (await engine.store.incidents.listIncidents(ACCOUNT, { instanceKey: key })).items;
    const all = await deliveriesAbout(ACCOUNT, key);
    expect(all.map((d) => d.type)).toEqual(['incident.created', 'process_instance.incident']);
    expect(all[0].payload.data).toMatchObject({ incidentKey: incident.key, type: 'EXTRACT_VALUE_ERROR', elementId: 'task', jobKey: null });
    expect(all[1].payload.data).toEqual({ processInstanceKey: key, bpmnProcessId: 'bad', version: 1, incidentKey: incident.key });
  });

  it('case_instance.completed when a case completes, case_instance.terminated when it is canceled or its plan model exits', async () => {
    const quick = await engine.startCase(ACCOUNT, 'quick');
    expect(quick.state).toBe('COMPLETED');
    expect(await deliveriesAboutCase(quick.caseInstanceKey)).toEqual([
      {
        endpoint_id: 'ep_all',
        event_id: webhookEventId('case_instance.completed', quick.caseInstanceKey),
        type: 'case_instance.completed',
        payload: {
          type: 'case_instance.completed',
          timestamp: await caseEndedAt(quick.caseInstanceKey),
          data: { caseInstanceKey: quick.caseInstanceKey, caseDefinitionId: 'quick', version: 1 },
        },
      },
    ]);

    // Canceled (the REST cancel's command): terminated, its waiting task withdrawn.
    const { caseInstanceKey: canceled } = await engine.startCase(ACCOUNT, 'exited');
    await engine.caseCommand(ACCOUNT, canceled, 'cancel');
    let all = await deliveriesAboutCase(canceled);
    expect(all.map((d) => d.type)).toEqual(['user_task.created', 'case_instance.terminated']);
    expect(all[1]).toMatchObject({
      event_id: webhookEventId('case_instance.terminated', canceled),
      payload: { timestamp: await caseEndedAt(canceled), data: { caseInstanceKey: canceled, caseDefinitionId: 'exited', version: 1 } },
    });

    // The plan model's exit criterion: terminated too, once.
    const { caseInstanceKey: exited } = await engine.startCase(ACCOUNT, 'exited');
    const items = Object.values((await engine.store.caseInstances.getCaseInstance(ACCOUNT, exited))!.document.planItems);
    await engine.caseCommand(ACCOUNT, exited, 'occur', items.find((p) => p.id === 'L')!.key);
    all = await deliveriesAboutCase(exited);
    expect(all.map((d) => d.event_id)).toEqual([expect.any(String), webhookEventId('case_instance.terminated', exited)]);
    expect((await engine.store.caseInstances.getCaseInstance(ACCOUNT, exited))!.state).toBe('TERMINATED');
  });

  it('writes only the types an endpoint is subscribed to, and nothing for an account without endpoints', async () => {
    const narrow = await engine.startInstance(NARROW, 'human');
    const bare = await engine.startInstance(BARE, 'human');
    for (const [account, key] of [
      [NARROW, narrow.processInstanceKey],
      [BARE, bare.processInstanceKey],
    ]) {
      const task = await activate(account, 'userTask', key);
      await engine.completeJob(account, task.key, {});
    }
    const failing = await engine.startInstance(NARROW, 'bad');
    expect((await deliveriesAbout(NARROW, narrow.processInstanceKey)).map((d) => [d.endpoint_id, d.type])).toEqual([
      ['ep_narrow', 'process_instance.completed'],
    ]);
    expect(await deliveriesAbout(NARROW, failing.processInstanceKey)).toEqual([]);
    expect(await deliveriesAbout(BARE, bare.processInstanceKey)).toEqual([]);
    const [{ n }] = await rows<{ n: number }>(engine.store.db, sql`select count(*)::int as n from ${sql.raw(OUTBOX_DELIVERIES)} where account = ${BARE}`);
    expect(n).toBe(0);
  });
});
