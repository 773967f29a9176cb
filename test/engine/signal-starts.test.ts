// Signals thrown by instances start instances by signal start events
// (extension, docs/signals.md), on the durable engine with starts free (no
// credits): one of the latest version of each process with a signal start
// of that name, and a process started by the signal it throws stops at the
// generation bound instead of running away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { SIGNAL_START_GENERATIONS } from '../../engine/limits.ts';
import { definitions, end, eventStartedTask, flow, service, start } from '../../engine/runtime/testing.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-signal-starts';
const signals = '<bpmn:signal id="Go" name="go"/><bpmn:signal id="Tick" name="tick"/>';
const signal = (ref: string) => `<bpmn:signalEventDefinition signalRef="${ref}"/>`;

/** Started by `go`; its one task's type tells the versions apart. */
const started = (type: string) => definitions(signals + eventStartedTask('started', 'ss', signal('Go'), 'serve', type));

/** start → a signal end event throwing `go`. */
const thrower = definitions(
  signals +
    '<bpmn:process id="thrower" isExecutable="true">' +
    start() +
    `<bpmn:endEvent id="end">${signal('Go')}</bpmn:endEvent>` +
    flow('f1', 'start', 'end') +
    '</bpmn:process>',
);

/** Started by `tick`, throws `tick`, then waits at a `link` job. */
const chain = definitions(
  signals +
    '<bpmn:process id="chain" isExecutable="true">' +
    `<bpmn:startEvent id="ss">${signal('Tick')}</bpmn:startEvent>` +
    `<bpmn:intermediateThrowEvent id="throw">${signal('Tick')}</bpmn:intermediateThrowEvent>` +
    service('link', 'link') +
    end() +
    flow('f1', 'ss', 'throw') +
    flow('f2', 'throw', 'link') +
    flow('f3', 'link', 'end') +
    '</bpmn:process>',
);

let fixture: EngineFixture;
let engine: Engine;
beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start();
  await engine.deploy(ACCOUNT, started('serve-v1'), 'started.bpmn');
  await engine.deploy(ACCOUNT, started('serve-v2'), 'started.bpmn');
  await engine.deploy(ACCOUNT, thrower, 'thrower.bpmn');
  await engine.deploy(ACCOUNT, chain, 'chain.bpmn');
}, 60_000);
afterAll(() => fixture.cleanup());

describe('a signal thrown by an instance (extension)', () => {
  it('starts an instance of the latest version of a process with a signal start of its name', async () => {
    await engine.startInstance(ACCOUNT, 'thrower', { from: 'thrower' });
    const [job] = await eventually(async () => {
      const jobs = await engine.activateJobs(ACCOUNT, 'serve-v2', 5, 'w');
      return jobs.length > 0 ? jobs : undefined;
    }, 'the started instance’s job');
    expect(job).toMatchObject({ bpmnProcessId: 'started', processDefinitionVersion: 2, variables: { from: 'thrower' } });
    const instance = await engine.store.instances.getInstance(ACCOUNT, job.processInstanceKey);
    expect(instance?.document.signalGeneration).toBe(1);
    expect(await engine.activateJobs(ACCOUNT, 'serve-v1', 5, 'w')).toEqual([]);
  });

  it(`a process started by the signal it throws stops at generation ${SIGNAL_START_GENERATIONS}`, async () => {
    expect((await engine.broadcastSignal(ACCOUNT, { name: 'tick', variables: {} }, 1)).started).toBe(1);
    const jobs: { processInstanceKey: string }[] = [];
    await eventually(async () => {
      jobs.push(...(await engine.activateJobs(ACCOUNT, 'link', 100, 'w')));
      return jobs.length >= SIGNAL_START_GENERATIONS + 1 ? true : undefined;
    }, 'the chain to reach the bound');
    const generations: number[] = [];
    for (const job of jobs) generations.push((await engine.store.instances.getInstance(ACCOUNT, job.processInstanceKey))?.document.signalGeneration ?? 0);
    expect(generations.sort((a, b) => a - b)).toEqual(Array.from({ length: SIGNAL_START_GENERATIONS + 1 }, (_, i) => i));
    // The last generation's signal started nothing: no job comes after a while.
    await new Promise((r) => setTimeout(r, 500));
    expect(await engine.activateJobs(ACCOUNT, 'link', 100, 'w')).toEqual([]);
  });
});
