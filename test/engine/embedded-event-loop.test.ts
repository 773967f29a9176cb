// The embedded default (PGlite, in-process queues) does a batch's work
// without any I/O, so a leader that keeps getting commands must still let
// the event loop turn between batches: timers, sockets and HTTP requests of
// the same process are served while it is busy, not after. The same holds
// for commands whose expressions each run to FEEL's time limit: a batch
// stops taking commands after its time budget, so their sum never holds
// the loop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, engineConfig, type Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';

const ACCOUNT = 'acct-loop';
const LANES = 20;
const STARTS_PER_LANE = 10;
const SLOW = 8;
/** Each start evaluates a gateway condition that runs until FEEL's deadline stops it (an incident). */
const slowGate = processXml(
  'slow',
  start() +
    '<bpmn:exclusiveGateway id="gw"/>' +
    end('a') +
    end('b') +
    flow('f0', 'start', 'gw') +
    flow('f1', 'gw', 'a', '=some x in 1..999999 satisfies x < 0') +
    flow('f2', 'gw', 'b', '=true'),
);
const oneTask = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

let engine: Engine;

beforeAll(async () => {
  engine = await createEngine(engineConfig({ dataDir: 'memory://', partitions: 2 }));
  await engine.deploy(ACCOUNT, oneTask, 'one.bpmn');
  await engine.deploy(ACCOUNT, slowGate, 'slow.bpmn');
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

  it('lets a timer fire between commands whose expressions each run to the FEEL deadline', async () => {
    let answered = 0;
    let answeredWhenTimerFired: number | undefined;
    const starts = Array.from({ length: SLOW }, () => engine.startInstance(ACCOUNT, 'slow').then((s) => (answered++, s)));
    setTimeout(() => (answeredWhenTimerFired = answered), 0);
    const started = await Promise.all(starts);
    // Without the batch's time budget all of them ran in one batch, the timer only after the last answer.
    expect(answeredWhenTimerFired).toBeDefined();
    expect(answeredWhenTimerFired).toBeLessThan(SLOW);
    expect(started.map((s) => s.state)).toEqual(Array(SLOW).fill('INCIDENT'));
  }, 60_000);
});
