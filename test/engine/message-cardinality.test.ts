// Zeebe's message cardinality through the partition leaders (extension,
// docs/messages.md): a message goes to at most one waiting instance of each
// process (BPMN process id), though the instances are spread over four
// partitions and the message is delivered to each — published with no time
// to live, buffered before the waits open, and across a restart (the claim
// is in Postgres, not only in a leader's memory). Claims of expired
// messages are pruned.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/index.ts';
import { partitionOfKey } from '../../engine/partition/keys.ts';
import { definitions, end, flow, service, start } from '../../engine/runtime/testing.ts';
import { rows } from '../../engine/store/db.ts';
import { engineFixture, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-message-cardinality';

/** Waits for `paid` (key =orderId), then a job of `after-<id>` shows that it got it. */
const waits = (id: string) =>
  `<bpmn:process id="${id}" isExecutable="true">` +
  start(`${id}-start`) +
  `<bpmn:intermediateCatchEvent id="${id}-w"><bpmn:messageEventDefinition messageRef="M"/></bpmn:intermediateCatchEvent>` +
  service(`${id}-after`, `after-${id}`) +
  end(`${id}-end`) +
  flow(`${id}-f1`, `${id}-start`, `${id}-w`) +
  flow(`${id}-f2`, `${id}-w`, `${id}-after`) +
  flow(`${id}-f3`, `${id}-after`, `${id}-end`) +
  '</bpmn:process>';
const MODEL = definitions(
  '<bpmn:message id="M" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>' +
    waits('p') +
    waits('q'),
);

let fixture: EngineFixture;
let engine: Engine;

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start();
  await engine.deploy(ACCOUNT, MODEL, 'waits.bpmn');
}, 60_000);
afterAll(() => fixture.cleanup(), 60_000);

async function publish(correlationKey: string, variables: Record<string, unknown> = {}, timeToLive = 0): Promise<string> {
  const outcome = await engine.publishMessage(ACCOUNT, { name: 'paid', correlationKey, variables, timeToLive }, 0);
  if (!outcome.published) throw new Error(`not published: ${outcome.reason}`);
  return outcome.messageKey;
}

async function startMany(bpmnProcessId: string, orderId: string, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) keys.push((await engine.startInstance(ACCOUNT, bpmnProcessId, { orderId })).processInstanceKey);
  return keys;
}

/** The instances that got a message since the last call: the jobs of after-<process> now offered (taken, then completed). */
async function reached(bpmnProcessId: string): Promise<string[]> {
  // A correlation is committed before the publish (or the start that opened the wait) is answered; the job is queued with it.
  const jobs = await engine.activateJobs(ACCOUNT, `after-${bpmnProcessId}`, 100, 'test', 300);
  for (const job of jobs) await engine.completeJob(ACCOUNT, job.key);
  return jobs.map((j) => j.processInstanceKey);
}

async function claimsOf(messageKey: string) {
  return rows<{ bpmn_process_id: string; instance_key: string }>(
    engine.store.db,
    sql`select bpmn_process_id, instance_key::text as instance_key from message_correlations where message_key = ${messageKey} order by bpmn_process_id`,
  );
}

describe("messages: Zeebe's cardinality over partitions", () => {
  it('a published message reaches one waiting instance of each process, wherever they are', async () => {
    const ps = await startMany('p', 'k1', 8);
    const [q] = await startMany('q', 'k1', 1);
    expect(new Set(ps.map(partitionOfKey)).size).toBeGreaterThan(1);
    const messageKey = await publish('k1', { n: 1 });
    const [first, ...none] = await reached('p');
    expect(none).toEqual([]);
    expect(ps).toContain(first);
    expect(await reached('q')).toEqual([q]);
    expect(await claimsOf(messageKey)).toEqual([
      { bpmn_process_id: 'p', instance_key: first },
      { bpmn_process_id: 'q', instance_key: q },
    ]);
    // Each further message reaches one more of p's.
    await publish('k1', { n: 2 });
    const [second, ...alsoNone] = await reached('p');
    expect(alsoNone).toEqual([]);
    expect(second).not.toBe(first);
    expect(await reached('q')).toEqual([]);
  });

  it('a buffered message goes to one instance of each process, however many open a wait on any partition later', async () => {
    const messageKey = await publish('k2', { early: true }, 60_000);
    const ps = await startMany('p', 'k2', 6);
    const [q] = await startMany('q', 'k2', 1);
    expect(new Set(ps.map(partitionOfKey)).size).toBeGreaterThan(1);
    expect(await reached('p')).toHaveLength(1);
    expect(await reached('q')).toEqual([q]);
    expect((await claimsOf(messageKey)).map((c) => c.bpmn_process_id)).toEqual(['p', 'q']);
  });

  it('messages published together each reach a different waiting instance: none is lost to a wait an earlier one of the same batch ended', async () => {
    const ps = await startMany('p', 'k4', 6);
    const messageKeys = await Promise.all(Array.from({ length: 6 }, (_, n) => publish('k4', { n })));
    const got = await reached('p');
    expect(got.sort()).toEqual([...ps].sort());
    const holders = (await Promise.all(messageKeys.map(claimsOf))).map((claims) => claims.map((c) => c.instance_key));
    expect(holders.every((h) => h.length === 1)).toBe(true);
    expect(new Set(holders.flat()).size).toBe(6);
  });

  it('holds across a restart: the claim is in Postgres, and the new leaders do not give the message to another instance', async () => {
    await publish('k3', {}, 60_000);
    const [p1] = await startMany('p', 'k3', 1);
    expect(await reached('p')).toEqual([p1]);
    await engine.close();
    engine = await fixture.start();
    const later = await startMany('p', 'k3', 4);
    expect(await reached('p')).toEqual([]);
    await publish('k3');
    const [got] = await reached('p');
    expect(later).toContain(got);
  });

  it("a leader prunes its partition's claims once their message expired (and a grace period passed)", async () => {
    const past = Date.now() - 1_000;
    await engine.store.messages.claimCorrelations([
      { messageKey: '900001', bpmnProcessId: 'p', instanceKey: '900002', partition: 3, expiresAt: past },
      { messageKey: '900003', bpmnProcessId: 'p', instanceKey: '900004', partition: 3, expiresAt: Date.now() + 60_000 },
    ]);
    expect(await engine.store.messages.pruneCorrelations(3, Date.now(), 100)).toBe(1);
    expect(await claimsOf('900001')).toEqual([]);
    expect(await claimsOf('900003')).toHaveLength(1);
    // A claim already held is not taken by another instance; its own instance claiming again still holds it.
    const again = await engine.store.messages.claimCorrelations([
      { messageKey: '900003', bpmnProcessId: 'p', instanceKey: '900009', partition: 2, expiresAt: Date.now() },
      { messageKey: '900003', bpmnProcessId: 'q', instanceKey: '900010', partition: 2, expiresAt: Date.now() },
    ]);
    expect(again.map((h) => [h.bpmnProcessId, h.instanceKey]).sort()).toEqual([
      ['p', '900004'],
      ['q', '900010'],
    ]);
  });
});
