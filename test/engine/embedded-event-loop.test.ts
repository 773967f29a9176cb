// The embedded default (PGlite, in-process queues) does a batch's work
// without any I/O, so a leader that keeps getting commands must still let
// the event loop turn between batches: timers, sockets and HTTP requests of
// the same process are served while it is busy, not after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';

const ACCOUNT = 'acct-loop';
const LANES = 20;
const STARTS_PER_LANE = 10;
const oneTask = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

let engine: Engine;

beforeAll(async () => {
  engine = await createEngine({ dataDir: 'memory://', partitions: 2 });
  await engine.deploy(ACCOUNT, oneTask, 'one.bpmn');
});
afterAll(() => engine.close());

describe('the embedded engine under a stream of commands', () => {
  it('lets a timer fire while the commands are still being applied', async () => {
    let lanesDone = 0;
    let lanesDoneWhenTimerFired: number | undefined;
    setTimeout(() => (lanesDoneWhenTimerFired = lanesDone), 0);
    // Each lane starts its next instance once the last one's start is answered: work never runs out until the end.
    await Promise.all(
      Array.from({ length: LANES }, async () => {
        for (let i = 0; i < STARTS_PER_LANE; i++) await engine.startInstance(ACCOUNT, 'one', { i });
        lanesDone++;
      }),
    );
    expect(lanesDoneWhenTimerFired).toBeDefined();
    expect(lanesDoneWhenTimerFired).toBeLessThan(LANES);
    const page = await engine.store.instances.listInstances(ACCOUNT, { limit: 1000 });
    expect(page.items).toHaveLength(LANES * STARTS_PER_LANE);
  });
});
