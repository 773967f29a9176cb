// The API-facing reads end to end, tenancy first (DESIGN §5: a key of
// account A can never see or change anything of account B). Account A owns
// one of everything; every read as B must come back empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import type { Database } from './database.ts';
import { createStore, type Store } from './index.ts';
import { historyWrite, incidentWrite, instanceDoc, jobWrite, keyOf, timerWrite } from './test-fixtures.ts';

const testDb = createTestDatabase();
let database: Database;
let store: Store;
const A = 'account-a';
const B = 'account-b';
const parent = keyOf(3, 1);
const child = keyOf(3, 2);
const job = keyOf(3, 10);
const incident = keyOf(3, 20);

beforeAll(async () => {
  database = await testDb.open();
  store = createStore(database.db);
  await store.accounts.createAccount(A, { creditBalance: 100 });
  await store.accounts.createAccount(B);
  await store.definitions.deployProcess(A, { bpmnProcessId: 'order', resourceName: 'order.bpmn', xml: '<a/>' });
  await store.decisions.deployDecision(A, { decisionId: 'discount', resourceName: 'd.dmn', xml: '<d/>' });
  const lease = await store.leases.acquireLease(3, 'shard', 60_000);
  await store.commitBatch({
    partition: 3,
    epoch: lease!.epoch,
    instances: [
      { account: A, document: instanceDoc(parent, { state: 'INCIDENT', variables: { orderId: 'A1' } }) },
      { account: A, document: instanceDoc(child), parentKey: parent },
    ],
    jobsUpsert: [jobWrite(A, job, parent)],
    timersUpsert: [timerWrite(A, keyOf(3, 30), parent, new Date())],
    incidentsInsert: [incidentWrite(A, incident, parent)],
    history: [historyWrite(A, parent, 'start')],
  });
});
afterAll(() => testDb.cleanup());

describe('tenancy', () => {
  it('account A sees its own rows (the fixture is real)', async () => {
    expect(await store.instances.getInstance(A, parent)).not.toBeNull();
    expect((await store.instances.listInstances(A)).items).toHaveLength(2);
    expect(await store.jobs.getJob(A, job)).not.toBeNull();
    expect(await store.incidents.getIncident(A, incident)).not.toBeNull();
    expect((await store.history.listHistory(A, parent)).items).toHaveLength(1);
    expect(await store.definitions.latestProcess(A, 'order')).not.toBeNull();
    expect(await store.decisions.latestDecision(A, 'discount')).not.toBeNull();
  });

  it('account B sees none of it through any read', async () => {
    expect(await store.instances.getInstance(B, parent)).toBeNull();
    expect((await store.instances.listInstances(B)).items).toEqual([]);
    expect((await store.instances.listInstances(B, { state: 'INCIDENT' })).items).toEqual([]);
    expect((await store.instances.listInstances(B, { bpmnProcessId: 'order' })).items).toEqual([]);
    expect((await store.instances.listInstances(B, { variable: { name: 'orderId', value: 'A1' } })).items).toEqual([]);
    expect(await store.instances.listChildren(B, parent)).toEqual([]);

    expect(await store.jobs.getJob(B, job)).toBeNull();
    expect(await store.jobs.listActivatableJobs(B, 'payment')).toEqual([]);

    expect(await store.incidents.getIncident(B, incident)).toBeNull();
    expect((await store.incidents.listIncidents(B)).items).toEqual([]);
    expect((await store.incidents.listIncidents(B, { instanceKey: parent })).items).toEqual([]);

    expect((await store.history.listHistory(B, parent)).items).toEqual([]);

    expect(await store.definitions.latestProcess(B, 'order')).toBeNull();
    expect(await store.definitions.getProcessVersion(B, 'order', 1)).toBeNull();
    expect(await store.definitions.listProcessVersions(B, 'order')).toEqual([]);
    expect((await store.definitions.listProcesses(B)).items).toEqual([]);

    expect(await store.decisions.latestDecision(B, 'discount')).toBeNull();
    expect(await store.decisions.getDecisionVersion(B, 'discount', 1)).toBeNull();
    expect((await store.decisions.listDecisions(B)).items).toEqual([]);
  });

  it("account B cannot resolve A's incident", async () => {
    expect(await store.incidents.resolveIncident(B, incident)).toBeNull();
    expect((await store.incidents.getIncident(A, incident))!.state).toBe('OPEN');
  });

  it("B's deploy of the same process id starts its own version line", async () => {
    expect(await store.definitions.deployProcess(B, { bpmnProcessId: 'order', resourceName: 'order.bpmn', xml: '<a/>' })).toMatchObject({
      version: 1,
      isNew: true,
    });
    expect((await store.definitions.latestProcess(A, 'order'))!.version).toBe(1);
  });

  it('refuses a query without an account', async () => {
    await expect(store.instances.listInstances('')).rejects.toThrow(TypeError);
  });
});

describe('incidents', () => {
  it('resolving closes the record only, once', async () => {
    const first = await store.incidents.resolveIncident(A, incident);
    expect(first).toMatchObject({ status: 'resolved', incident: { state: 'RESOLVED' } });
    expect(first!.incident.resolvedAt).toBeInstanceOf(Date);
    const second = await store.incidents.resolveIncident(A, incident);
    expect(second).toMatchObject({ status: 'already-resolved' });
    expect(second!.incident.resolvedAt!.getTime()).toBe(first!.incident.resolvedAt!.getTime());
    // The instance stays INCIDENT (SPEC.md).
    expect((await store.instances.getInstance(A, parent))!.state).toBe('INCIDENT');
    expect((await store.incidents.listIncidents(A, { state: 'OPEN' })).items).toEqual([]);
    expect((await store.incidents.listIncidents(A, { state: 'RESOLVED' })).items.map((i) => i.key)).toEqual([incident]);
  });

  it('a replayed batch does not reopen a resolved incident', async () => {
    const [lease] = (await store.leases.listLeases()).filter((l) => l.partition === 3);
    await store.commitBatch({ partition: 3, epoch: lease.epoch, incidentsInsert: [incidentWrite(A, incident, parent)] });
    expect((await store.incidents.getIncident(A, incident))!.state).toBe('RESOLVED');
  });
});

describe('jobs and timers for rebuilding', () => {
  it('loads a partition’s jobs and its due timers', async () => {
    expect((await store.jobs.loadPartitionJobs(3)).map((j) => j.key)).toEqual([job]);
    expect((await store.jobs.listActivatableJobs(A, 'payment')).map((j) => j.key)).toEqual([job]);
    expect((await store.timers.loadDueTimers(3, new Date(Date.now() + 1000))).map((t) => t.key)).toEqual([keyOf(3, 30)]);
    expect(await store.timers.loadDueTimers(3, new Date(0))).toEqual([]);
  });

  it('accounts: created once, balance from the caller', async () => {
    expect((await store.accounts.getAccount(A))!.creditBalance).toBe(100);
    expect(await store.accounts.createAccount(A, { creditBalance: 5 })).toMatchObject({ created: false, account: { creditBalance: 100 } });
  });
});
