// A pod that leads a partition hands its own commands to the leader in
// memory (command-client.ts send, PartitionLeader.submit): nothing goes through the
// command stream, the answers and their idempotency are those of the stream
// path, and another pod (role api) still reaches the same leader over the
// stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-local';
const oneTask = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

let fixture: EngineFixture;
let engine: Engine;

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start({ partitions: 2 });
  await engine.deploy(ACCOUNT, oneTask, 'one.bpmn');
});
afterAll(() => fixture.cleanup());

/** Entries appended to the partitions' streams while `fn` runs (appends are counted at the source). */
async function appendsDuring(e: Engine, fn: () => Promise<void>): Promise<number> {
  const { commands } = e.queues;
  let appended = 0;
  const [append, appendIfBelow] = [commands.append.bind(commands), commands.appendIfBelow.bind(commands)];
  commands.append = (...args) => (appended++, append(...args));
  commands.appendIfBelow = (...args) => (appended++, appendIfBelow(...args));
  try {
    await fn();
  } finally {
    Object.assign(commands, { append, appendIfBelow });
  }
  return appended;
}

describe('commands of a pod that leads the partition', () => {
  it('start and completion go to the leader in memory, with the answers of the stream path', async () => {
    expect(engine.ownedPartitions()).toEqual([0, 1]);
    const appended = await appendsDuring(engine, async () => {
      const first = await engine.startInstance(ACCOUNT, 'one', { n: 1 }, { commandKey: 'local-1' });
      // Idempotent by key, as over the stream: the original result, applied once.
      expect(await engine.startInstance(ACCOUNT, 'one', { n: 1 }, { commandKey: 'local-1' })).toEqual(first);
      const job = await eventually(async () => (await engine.activateJobs(ACCOUNT, 'work', 1, 'w'))[0], 'the job');
      expect(job.processInstanceKey).toBe(first.processInstanceKey);
      await engine.completeJob(ACCOUNT, job.key, { done: true });
      await expect(engine.completeJob(ACCOUNT, job.key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const row = await engine.store.instances.getInstance(ACCOUNT, first.processInstanceKey);
      expect(row?.document.state).toBe('COMPLETED');
    });
    expect(appended).toBe(0);
    const instances = await engine.store.instances.listInstances(ACCOUNT, {});
    expect(instances.items).toHaveLength(1);
  });

  // A second pod needs shared services: the in-process queues and PGlite belong to one process.
  it.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)('a pod that leads nothing reaches the same leader over the stream', async () => {
    const api = await fixture.start({ role: 'api', partitions: 2 });
    let started: { processInstanceKey: string } | undefined;
    const appended = await appendsDuring(api, async () => {
      started = await api.startInstance(ACCOUNT, 'one', { n: 2 }, { commandKey: 'remote-1' });
    });
    expect(appended).toBe(1);
    // The same key through the leading pod's memory finds the stream command's result.
    expect(await engine.startInstance(ACCOUNT, 'one', { n: 2 }, { commandKey: 'remote-1' })).toEqual(started);
  });
});
