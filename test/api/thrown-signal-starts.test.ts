// A signal thrown by an instance starts instances by signal start events
// (extension, docs/signals.md), charged like a broadcast's starts, with the
// service's credits on: 1 credit per start, taken by the throwing
// partition's leader after its batch committed; with no balance nothing
// starts, while the waiting instances still get the signal; a leader
// restarted before the signal's outbox row went delivers it again, and the
// home partition, answering that sending with the first one's result,
// starts nothing more and the second take is refunded.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOfKey } from '../../engine/partition/keys.ts';
import { definitions, end, flow, service, start } from '../../engine/runtime/testing.ts';
import { schema } from '../../engine/store/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, balanceOf, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';

const signals = '<bpmn:signal id="Open" name="open"/>';
const signal = (ref: string) => `<bpmn:signalEventDefinition signalRef="${ref}"/>`;

/** Started by `open`; its task's type tells the versions apart. */
const started = (type: string) =>
  definitions(
    signals +
      '<bpmn:process id="ts-started" isExecutable="true">' +
      `<bpmn:startEvent id="ss">${signal('Open')}</bpmn:startEvent>` +
      service('serve', type) +
      end() +
      flow('f1', 'ss', 'serve') +
      flow('f2', 'serve', 'end') +
      '</bpmn:process>',
  );

/** start → a signal catch (`open`) → end */
const waiter = definitions(
  signals +
    '<bpmn:process id="ts-waiter" isExecutable="true">' +
    start() +
    `<bpmn:intermediateCatchEvent id="wait">${signal('Open')}</bpmn:intermediateCatchEvent>` +
    end() +
    flow('f1', 'start', 'wait') +
    flow('f2', 'wait', 'end') +
    '</bpmn:process>',
);

/** start → a `ts-throw` job → a signal end event throwing `open`. */
const thrower = definitions(
  signals +
    '<bpmn:process id="ts-thrower" isExecutable="true">' +
    start() +
    service('work', 'ts-throw') +
    `<bpmn:endEvent id="end">${signal('Open')}</bpmn:endEvent>` +
    flow('f1', 'start', 'work') +
    flow('f2', 'work', 'end') +
    '</bpmn:process>',
);

let api: ApiFixture;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(() => api?.close());

/** A fresh account with the models deployed, a waiter waiting and a thrower at its job (its instance key and job key). */
async function ready(): Promise<{ apiKey: string; account: string; waiting: string; throwing: string; job: string }> {
  const { apiKey, account } = await api.newAccount();
  for (const xml of [started('ts-serve-v1'), started('ts-serve'), waiter, thrower]) await mustDeploy(api, apiKey, xml);
  const waiting = await startInstance(api, apiKey, 'ts-waiter');
  await instanceInState(api, apiKey, waiting, 'ACTIVE');
  const throwing = await startInstance(api, apiKey, 'ts-thrower', { from: 'thrower' });
  const job = await activateOne(api, apiKey, 'ts-throw');
  return { apiKey, account, waiting, throwing, job: job.key };
}

/** The thrown signal's outbox rows of the account (docs/signals.md): gone once its delivery and starts are settled. */
async function outboxRows(account: string) {
  return api.engine.store.db
    .select()
    .from(schema.bufferedMessages)
    .where(and(eq(schema.bufferedMessages.account, account), eq(schema.bufferedMessages.expiresAt, new Date(0))));
}

async function settled(account: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await outboxRows(account)).length > 0) {
    if (Date.now() > deadline) throw new Error('the outbox row stayed');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function startedInstances(apiKey: string): Promise<string[]> {
  const res = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.bpmnProcessId': 'ts-started' } });
  expect(res.status, res.text).toBe(200);
  return res.json.items.map((i: { processInstanceKey: string }) => i.processInstanceKey);
}

const complete = (apiKey: string, job: string) => api.call('POST', `/api/v1/jobs/${job}/complete`, { apiKey, json: {} });

describe('a signal thrown by an instance, with credits on (extension)', () => {
  it('starts an instance of the latest version of each process with a signal start of its name, for 1 credit', async () => {
    const { apiKey, account, waiting, job } = await ready();
    const before = await balanceOf(api, account);
    expect((await complete(apiKey, job)).status).toBe(204);
    expect((await instanceInState(api, apiKey, waiting, 'COMPLETED')).variables).toEqual({ from: 'thrower' });
    const serve = await activateOne(api, apiKey, 'ts-serve');
    expect(serve).toMatchObject({ bpmnProcessId: 'ts-started', processDefinitionVersion: 2, variables: { from: 'thrower' } });
    await settled(account);
    expect(await balanceOf(api, account)).toBe(before - 1);
    const none = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'ts-serve-v1', maxJobsToActivate: 5, worker: 'w' } });
    expect(none.json.jobs).toEqual([]);
  });

  it('with no balance starts nothing, and the waiting instances still get the signal', async () => {
    const { apiKey, account, waiting, job } = await ready();
    const balance = await balanceOf(api, account);
    expect(await api.engine.store.ledger.charge(account, balance, 'test: empty the wallet')).not.toBeNull();
    expect(await balanceOf(api, account)).toBe(0);
    expect((await complete(apiKey, job)).status).toBe(204);
    expect((await instanceInState(api, apiKey, waiting, 'COMPLETED')).variables).toEqual({ from: 'thrower' });
    await settled(account);
    expect(await startedInstances(apiKey)).toEqual([]);
    expect(await balanceOf(api, account)).toBe(0);
  });

  it('delivered again by the next leader (its outbox row still there), starts once and is charged once', async () => {
    const { apiKey, account, waiting, throwing, job } = await ready();
    const before = await balanceOf(api, account);
    expect((await complete(apiKey, job)).status).toBe(204);
    await instanceInState(api, apiKey, throwing, 'COMPLETED');
    await activateOne(api, apiKey, 'ts-serve');
    await settled(account);
    expect(await balanceOf(api, account)).toBe(before - 1);
    // The signal's key, as the waiter keeps it, names the row its batch wrote and its partition.
    const [signalKey] = (await api.engine.store.instances.getInstance(account, waiting))!.document.correlatedMessages!;
    await api.engine.store.db.insert(schema.bufferedMessages).values({
      partition: partitionOfKey(signalKey)!,
      key: signalKey,
      account,
      name: 'open',
      correlationKey: '0',
      variables: { from: 'thrower' },
      messageId: null,
      expiresAt: new Date(0),
    });
    await api.restart();
    await settled(account);
    expect(await startedInstances(apiKey)).toHaveLength(1);
    expect(await balanceOf(api, account)).toBe(before - 1);
    const ledger = await api.call('GET', '/api/v1/account/ledger', { apiKey, query: { limit: 10 } });
    const mine = ledger.json.items.filter((e: { reference?: string }) => e.reference === signalKey);
    expect(mine.map((e: { amount: number }) => e.amount).sort()).toEqual([-1, -1, 1]);
  });
});
