// Zeebe's rule for message start events in the in-memory engine
// (message-start-gate.ts): one active message-started instance per process
// and correlation key; a buffered message starts the next once it ends.
import { describe, expect, it } from 'vitest';
import { compileBpmn } from '../model/index.ts';
import { definitions, engineWith, eventStartedTask, fakeClock } from './testing.ts';

const model = (id = 'p', type = 'work') =>
  definitions('<bpmn:message id="M" name="order placed"/>' + eventStartedTask(id, 'ms', '<bpmn:messageEventDefinition messageRef="M"/>', 'work', type));

describe('message start events: one active instance per correlation key (extension)', () => {
  it('a second publish with the same key while the first instance is active starts nothing', () => {
    const engine = engineWith(model());
    const [first] = engine.publishMessage({ name: 'order placed', correlationKey: 'k-1' }).startedInstances;
    expect(engine.instance(first)!.startedByMessage).toMatchObject({ name: 'order placed', correlationKey: 'k-1' });
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'k-1' }).startedInstances).toEqual([]);
    // Not buffered (no TTL): once the first ends, nothing starts.
    engine.completeJob(engine.activate('work', 1)[0].key);
    expect(engine.instance(first)!.state).toBe('COMPLETED');
    expect(engine.activate('work', 10)).toEqual([]);
    // Free again: the next publish starts one.
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'k-1' }).startedInstances).toHaveLength(1);
  });

  it('a buffered message starts a new instance when the first completes, and when it is cancelled; each message once', () => {
    const clock = fakeClock();
    const engine = engineWith(model(), { now: clock.now });
    const [first] = engine.publishMessage({ name: 'order placed', correlationKey: 'k', timeToLive: 60_000, variables: { n: 1 } }).startedInstances;
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'k', timeToLive: 60_000, variables: { n: 2 } }).startedInstances).toEqual([]);
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'k', timeToLive: 60_000, variables: { n: 3 } }).startedInstances).toEqual([]);
    const [job1] = engine.activate('work', 10);
    expect(job1.variables).toEqual({ n: 1 });
    engine.completeJob(job1.key);
    expect(engine.instance(first)!.state).toBe('COMPLETED');
    // The second message starts the next; the first, buffered too, does not start again.
    const [job2] = engine.activate('work', 10);
    expect(job2.variables).toEqual({ n: 2 });
    engine.cancel(job2.processInstanceKey);
    const [job3] = engine.activate('work', 10);
    expect(job3.variables).toEqual({ n: 3 });
    engine.completeJob(job3.key);
    expect(engine.activate('work', 10)).toEqual([]);
  });

  it('an expired buffered message starts nothing', () => {
    const clock = fakeClock();
    const engine = engineWith(model(), { now: clock.now });
    engine.publishMessage({ name: 'order placed', correlationKey: 'k', timeToLive: 60_000 });
    engine.publishMessage({ name: 'order placed', correlationKey: 'k', timeToLive: 1_000 });
    clock.advance(1_000);
    engine.completeJob(engine.activate('work', 1)[0].key);
    expect(engine.activate('work', 10)).toEqual([]);
  });

  it('the empty key always starts; different keys start independently', () => {
    const engine = engineWith(model());
    expect(engine.publishMessage({ name: 'order placed' }).startedInstances).toHaveLength(1);
    expect(engine.publishMessage({ name: 'order placed' }).startedInstances).toHaveLength(1);
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'a' }).startedInstances).toHaveLength(1);
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'b' }).startedInstances).toHaveLength(1);
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'a' }).startedInstances).toEqual([]);
    expect(engine.activate('work', 10)).toHaveLength(4);
  });

  it('each process keeps its own rule; an active instance of version 1 blocks a start of version 2, which a buffered message starts', () => {
    const engine = engineWith(model());
    const other = compileBpmn(model('q', 'other'));
    if (!other.ok) throw new Error('model rejected');
    engine.deploy(other.model.processes[0]);
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'k' }).startedInstances).toHaveLength(2);
    const v2 = compileBpmn(model('p', 'work-v2'));
    if (!v2.ok) throw new Error('model rejected');
    expect(engine.deploy(v2.model.processes[0])).toBe(2);
    expect(engine.publishMessage({ name: 'order placed', correlationKey: 'k', timeToLive: 60_000 }).startedInstances).toEqual([]);
    engine.completeJob(engine.activate('work', 1)[0].key);
    const [next] = engine.activate('work-v2', 10);
    expect(engine.instance(next.processInstanceKey)!.version).toBe(2);
    // q's first instance still holds q's key: the buffered message did not start q.
    expect(engine.activate('other', 10)).toHaveLength(1);
  });
});
