// The API server misbehaving mid-watch must not make the operator miss an
// update: watches dropped, stalled (open but silent: the inactivity
// watchdog notices) and compacted (410 Expired → list again, deletions
// included), and the API server answering 500 and 429 for a while.
import { describe, expect, it } from 'vitest';
import { serviceProcess } from '../api/workflow-support.ts';
import { eventually, NS, operatorWorld, PD } from './operator-fixture.ts';

const world = operatorWorld();
const isPdWatch = (path: string) => path.includes('/processdefinitions');

/** Applies a new model to `name` and waits for the operator to have deployed it as `version`. */
async function changeAndSee(name: string, type: string, version: number) {
  world.kube.patch(PD.apiVersion, PD.kind, NS, name, { spec: { bpmnXml: serviceProcess(name, type) } });
  await eventually(async () => (world.get(PD, name).status?.version === version ? true : undefined), `${name} version ${version}`, 20_000);
}

describe('operator: watch faults', () => {
  it('misses no update when watches are dropped, stalled or compacted', async () => {
    // Resync far away: only the watch can deliver these updates in time.
    const operator = await world.operator({ resyncSeconds: 3600, watch: { inactivityMs: 1_500, backoffMs: [100, 1_000] } });
    world.kube.create(world.processDefinition('w', { bpmnXml: serviceProcess('w', 'v1') }));
    await world.condition(PD, 'w', 'Ready', 'True');
    const stats = () => operator.controller.informers[0].stats;

    // Dropped: the socket is destroyed mid-stream.
    await world.kube.whenWatching(1, 'processdefinitions');
    expect(world.kube.faults.dropWatches(isPdWatch)).toBeGreaterThan(0);
    await changeAndSee('w', 'v2', 2);

    // Stalled: the connection stays open but nothing comes, not even bookmarks.
    await world.kube.whenWatching(1, 'processdefinitions');
    const watchesBefore = stats().watches;
    expect(world.kube.faults.stallWatches(isPdWatch)).toBeGreaterThan(0);
    world.kube.patch(PD.apiVersion, PD.kind, NS, 'w', { spec: { bpmnXml: serviceProcess('w', 'v3') } });
    await eventually(async () => (world.get(PD, 'w').status?.version === 3 ? true : undefined), 'version 3 after the watchdog', 20_000);
    expect(stats().watches).toBeGreaterThan(watchesBefore);

    // Compacted while the watch is down: the next watch gets 410, the informer lists again.
    const relists = stats().relistsOnExpiry;
    world.kube.faults.failNext(3, 500, (path, method) => method === 'GET' && isPdWatch(path));
    world.kube.faults.dropWatches(isPdWatch);
    world.kube.patch(PD.apiVersion, PD.kind, NS, 'w', { spec: { bpmnXml: serviceProcess('w', 'v4') } });
    world.kube.create(world.processDefinition('w2', { bpmnXml: serviceProcess('w2', 'a') }));
    world.kube.compact();
    await eventually(async () => (world.get(PD, 'w').status?.version === 4 ? true : undefined), 'version 4 after the relist', 20_000);
    await world.condition(PD, 'w2', 'Ready', 'True');
    expect(stats().relistsOnExpiry + stats().lists).toBeGreaterThan(relists + 1);
    await operator.stop();
  });

  it('rides out 429s and 500s from the API server', async () => {
    const operator = await world.operator();
    world.kube.faults.throttleNext(3, 1, (path) => path.includes('/status'));
    world.kube.faults.failNext(3, 500, (path, method) => method === 'PATCH');
    world.kube.create(world.processDefinition('throttled', { bpmnXml: serviceProcess('throttled', 'x') }));
    await world.condition(PD, 'throttled', 'Ready', 'True');
    expect(world.kube.requests.some((r) => r.status === 429)).toBe(true);
    expect(world.kube.requests.some((r) => r.status === 500)).toBe(true);
    await operator.stop();
  });
});
