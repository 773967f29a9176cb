// Zeebe's rule for message start events through the partition leaders
// (extension, docs/messages.md): while an instance a message with key K
// started is active, a message of that name and key starts no other
// instance of its process (any version); once it completes or is
// cancelled, the first message of that name and key buffered after the
// one that started it starts the next, each message once. The rule holds
// across a restart: the new leaders rebuild it from the active instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, PublishOutcome } from '../../engine/index.ts';
import type { EventStartCharges } from '../../engine/partition/event-start-charges.ts';
import { definitions, eventStartedTask } from '../../engine/runtime/testing.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-message-once';

const model = (type: string) =>
  definitions('<bpmn:message id="M" name="order placed"/>' + eventStartedTask('placed', 'ms', '<bpmn:messageEventDefinition messageRef="M"/>', 'work', type));

let fixture: EngineFixture;
let engine: Engine;

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start();
  await engine.deploy(ACCOUNT, model('work'), 'placed.bpmn');
}, 60_000);
afterAll(() => fixture.cleanup(), 60_000);

async function publish(correlationKey: string, n: number, timeToLive = 0): Promise<number> {
  const outcome: PublishOutcome = await engine.publishMessage(ACCOUNT, { name: 'order placed', correlationKey, variables: { n }, timeToLive }, 1);
  if (!outcome.published) throw new Error(`not published: ${outcome.reason}`);
  return outcome.started;
}

/** The next job of `type`, with its instance's message number. */
async function nextJob(type = 'work') {
  return eventually(async () => (await engine.activateJobs(ACCOUNT, type, 1, 'test', 500))[0], `a job of ${type}`);
}

/** No job of `type` comes within a moment (the buffered start, if any, had time to happen). */
async function noJob(type = 'work'): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  expect(await engine.activateJobs(ACCOUNT, type, 10, 'test', 200)).toEqual([]);
}

describe('message start events: one active instance per correlation key', () => {
  it('a second publish with the same key while the first instance is active starts nothing (TTL 0)', async () => {
    expect(await publish('a', 1)).toBe(1);
    expect(await publish('a', 2)).toBe(0);
    const job = await nextJob();
    expect(job.variables).toEqual({ n: 1 });
    await engine.completeJob(ACCOUNT, job.key);
    await noJob();
    expect(await publish('a', 3)).toBe(1);
    await engine.completeJob(ACCOUNT, (await nextJob()).key);
  });

  it('with a TTL, a buffered message starts a new instance when the first completes, and when it is cancelled; each once', async () => {
    expect(await publish('b', 1, 60_000)).toBe(1);
    expect(await publish('b', 2, 60_000)).toBe(0);
    expect(await publish('b', 3, 60_000)).toBe(0);
    const first = await nextJob();
    expect(first.variables).toEqual({ n: 1 });
    await engine.completeJob(ACCOUNT, first.key);
    const second = await nextJob();
    expect(second.variables).toEqual({ n: 2 });
    await engine.cancelInstance(ACCOUNT, second.processInstanceKey);
    const third = await nextJob();
    expect(third.variables).toEqual({ n: 3 });
    const doc = (await engine.store.instances.getInstance(ACCOUNT, third.processInstanceKey))!.document;
    expect(doc.startedByMessage).toMatchObject({ name: 'order placed', correlationKey: 'b' });
    await engine.completeJob(ACCOUNT, third.key);
    await noJob();
  });

  it('the empty key always starts; different keys start independently', async () => {
    expect(await publish('', 1)).toBe(1);
    expect(await publish('', 2)).toBe(1);
    expect(await publish('c-1', 3)).toBe(1);
    expect(await publish('c-2', 4)).toBe(1);
    expect(await publish('c-1', 5)).toBe(0);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const job = await nextJob();
      seen.push(job.variables.n as number);
      await engine.completeJob(ACCOUNT, job.key);
    }
    expect(seen.sort()).toEqual([1, 2, 3, 4]);
    await noJob();
  });

  it('an active instance of version 1 blocks a start of version 2; the buffered message starts version 2 once it ends', async () => {
    expect(await publish('d', 1, 60_000)).toBe(1);
    const v1 = await nextJob();
    await engine.deploy(ACCOUNT, model('work-v2'), 'placed.bpmn');
    await eventually(async () => ((await engine.eventStarts(ACCOUNT, 'message', 'order placed')) === 1 ? true : undefined), 'the new version');
    expect(await publish('d', 2, 60_000)).toBe(0);
    await engine.completeJob(ACCOUNT, v1.key);
    const v2 = await nextJob('work-v2');
    expect(v2).toMatchObject({ processDefinitionVersion: 2, variables: { n: 2 } });
    await engine.completeJob(ACCOUNT, v2.key);
  });

  it('survives a restart: the new leaders rebuild the rule from the active instances', async () => {
    expect(await publish('e', 1, 60_000)).toBe(1);
    await engine.close();
    engine = await fixture.start();
    expect(await publish('e', 2, 60_000)).toBe(0);
    const first = await nextJob('work-v2');
    expect(first.variables).toEqual({ n: 1 });
    await engine.completeJob(ACCOUNT, first.key);
    const second = await nextJob('work-v2');
    expect(second.variables).toEqual({ n: 2 });
    await engine.close();
    engine = await fixture.start();
    // The first message, still buffered, started its instance: it does not start another.
    await engine.completeJob(ACCOUNT, second.key);
    await noJob('work-v2');
    expect(await publish('e', 3)).toBe(1);
    await engine.completeJob(ACCOUNT, (await nextJob('work-v2')).key);
  });

  it('a buffered start whose leader stopped after the instance ended is made by the next leader, once', async () => {
    // The credit for the buffered start is never answered: the leader stops with the start on its way.
    const taking: string[] = [];
    const stalled: EventStartCharges = {
      take: (_account, _count, _reason, reference) => {
        taking.push(reference);
        return new Promise<never>(() => {});
      },
    };
    await engine.close();
    engine = await fixture.start(undefined, { charges: stalled });
    expect(await publish('f', 1, 60_000)).toBe(1);
    expect(await publish('f', 2, 60_000)).toBe(0);
    const first = await nextJob('work-v2');
    expect(first.variables).toEqual({ n: 1 });
    await engine.completeJob(ACCOUNT, first.key);
    await eventually(async () => taking.length > 0 || undefined, 'the buffered start asking for its credit');
    await engine.close();
    engine = await fixture.start();
    // The next leader takes the start up from its pending-start row: message 2 starts the next instance, once.
    const second = await nextJob('work-v2');
    expect(second.variables).toEqual({ n: 2 });
    await engine.completeJob(ACCOUNT, second.key);
    await noJob('work-v2');
    await engine.close();
    engine = await fixture.start();
    await noJob('work-v2');
  });
});
