// Two operator replicas: one leads (holds the orca-operator Lease) and only
// it reconciles; both are ready once their caches are synced; on stop the
// leader releases the Lease and the other takes over and reconciles.
import { describe, expect, it } from 'vitest';
import { serviceProcess } from '../api/workflow-support.ts';
import { eventually, NS, operatorWorld, PD } from './operator-fixture.ts';

const world = operatorWorld();

describe('operator: leader election', () => {
  it('one leader, standbys ready; the leader stops → the standby takes over', async () => {
    const a = await world.operator({ identity: 'replica-a' });
    const b = await world.operator({ identity: 'replica-b' });
    const leader = await eventually(async () => (a.leading !== b.leading ? (a.leading ? a : b) : undefined), 'exactly one leader');
    const standby = leader === a ? b : a;
    const lease = () =>
      world.kube.get('coordination.k8s.io/v1', 'Lease', NS, 'orca-operator') as unknown as {
        spec: { holderIdentity?: string | null; leaseTransitions?: number };
      };
    expect(lease().spec.holderIdentity).toBe(leader === a ? 'replica-a' : 'replica-b');
    for (const replica of [a, b]) {
      await eventually(async () => ((await fetch(`http://127.0.0.1:${replica.port}/readyz`)).status === 200 ? true : undefined), 'ready');
      const metrics = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
      expect(metrics).toContain(`orca_operator_leader ${replica === leader ? 1 : 0}`);
    }

    world.kube.create(world.processDefinition('led', { bpmnXml: serviceProcess('led', 'x') }));
    await world.condition(PD, 'led', 'Ready', 'True');
    const reconciled = async (o: typeof a) => (await o.metrics.reconciles.get()).values.reduce((sum, v) => sum + v.value, 0);
    expect(await reconciled(standby)).toBe(0);

    await leader.stop();
    expect(lease().spec.holderIdentity ?? '').not.toBe(leader === a ? 'replica-a' : 'replica-b');
    await eventually(async () => (standby.leading ? true : undefined), 'the standby leads');
    expect(lease().spec.holderIdentity).toBe(standby === a ? 'replica-a' : 'replica-b');
    world.kube.create(world.processDefinition('after', { bpmnXml: serviceProcess('after', 'x') }));
    await world.condition(PD, 'after', 'Ready', 'True');
    expect(await reconciled(standby)).toBeGreaterThan(0);
  });
});
