// Fault: messages (extension, docs/messages.md) across a Redis flush and a
// leader change. A buffered message lives in Postgres (buffered_messages,
// written by the batches), so after Redis lost everything and the engine
// that buffered it stopped, a new engine's leaders recover it and a wait
// opened later still gets it — one instance of the process, as Zeebe's
// cardinality says, though six open waits on several partitions. A publish caught by a flush is retried with
// its messageId: the retry either publishes or finds the first (a
// duplicate, delivered again), and the waiting instance gets the message
// exactly once.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine, PublishOutcome } from '../../engine/index.ts';
import { definitions, end, flow, start } from '../../engine/runtime/testing.ts';
import { rows } from '../../engine/store/index.ts';
import { engineFixture, type EngineFixture } from '../engine/engine-fixture.ts';
import { faultSuite, untilAnswered, waitFor } from './fault-support.ts';

const WAIT = definitions(
  '<bpmn:message id="M" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>' +
    '<bpmn:process id="wait" isExecutable="true">' +
    start() +
    '<bpmn:intermediateCatchEvent id="paid"><bpmn:messageEventDefinition messageRef="M"/></bpmn:intermediateCatchEvent>' +
    end() +
    flow('f1', 'start', 'paid') +
    flow('f2', 'paid', 'end') +
    '</bpmn:process>',
);

faultSuite('fault: messages across a Redis flush and a leader change', () => {
  let fixture: EngineFixture;
  let engine: Engine;
  const account = 'acct-messages';

  async function stateOf(key: string) {
    return (await engine.store.instances.getInstance(account, key))?.document;
  }

  beforeAll(async () => {
    fixture = await engineFixture();
    engine = await fixture.start({ replyTimeoutMs: 1_000 });
    await engine.deploy(account, WAIT, 'wait.bpmn');
  }, 60_000);
  afterAll(() => fixture?.cleanup(), 60_000);

  it('a buffered message survives a flush and a new engine, and correlates to a wait opened after', async () => {
    const outcome = await engine.publishMessage(account, { name: 'paid', correlationKey: 'K-1', variables: { paid: 1 }, timeToLive: 600_000 }, 0);
    expect(outcome.published).toBe(true);
    await fixture.flushRedis();
    await engine.close();
    engine = await fixture.start({ replyTimeoutMs: 1_000 });
    // Several instances, so some land on partitions other than the message's.
    const keys: string[] = [];
    for (let i = 0; i < 6; i++) keys.push((await untilAnswered(() => engine.startInstance(account, 'wait', { orderId: 'K-1' }))).processInstanceKey);
    const messageKey = (outcome as Extract<PublishOutcome, { published: true }>).messageKey;
    // One instance of the process gets it (Zeebe's cardinality), whichever opened its wait first; the others wait on.
    const done = await waitFor(async () => {
      const documents = await Promise.all(keys.map(stateOf));
      return documents.some((d) => d?.state === 'COMPLETED') ? documents : undefined;
    }, 'an instance completed by the buffered message');
    const completed = done.filter((d) => d?.state === 'COMPLETED');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.variables[completed[0]!.key]).toMatchObject({ orderId: 'K-1', paid: 1 });
    expect(completed[0]!.correlatedMessages).toEqual([messageKey]);
    for (const d of done.filter((d) => d !== completed[0])) expect(d).toMatchObject({ state: 'ACTIVE', subscriptions: expect.any(Object) });
    const claims = await rows<{ instance_key: string }>(
      engine.store.db,
      sql`select instance_key::text as instance_key from message_correlations where message_key = ${messageKey}`,
    );
    expect(claims).toEqual([{ instance_key: completed[0]!.key }]);
  }, 60_000);

  it('a publish retried across a flush with its messageId reaches the waiting instance once', async () => {
    const key = (await untilAnswered(() => engine.startInstance(account, 'wait', { orderId: 'K-2' }))).processInstanceKey;
    await waitFor(async () => ((await stateOf(key))?.subscriptions !== undefined ? true : undefined), 'the subscription');
    const publish = () => engine.publishMessage(account, { name: 'paid', correlationKey: 'K-2', variables: {}, timeToLive: 600_000, messageId: 'once' }, 0);
    const first = publish();
    await fixture.flushRedis();
    const outcomes: PublishOutcome[] = [await untilAnswered(() => first).catch(() => untilAnswered(publish))];
    outcomes.push(await untilAnswered(publish));
    // The second publish finds the first buffered: a duplicate with the same key.
    expect(outcomes[1]).toMatchObject({ published: false, reason: 'duplicate' });
    const done = await waitFor(async () => {
      const document = await stateOf(key);
      return document?.state === 'COMPLETED' ? document : undefined;
    }, 'the instance completed');
    const duplicate = outcomes[1] as Extract<PublishOutcome, { reason: 'duplicate' }>;
    expect(done.correlatedMessages).toEqual([duplicate.messageKey]);
  }, 60_000);
});
