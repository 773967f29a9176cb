// The operator against the fake Kubernetes API server and a real Orca:
// apply → Ready with the engine's version; a changed model is deployed once;
// resyncs that change nothing deploy nothing; a definition deleted behind
// the operator's back is deployed again; the redeploy annotation forces one
// deploy; a ConfigMap source and its changes; DMN; deletionPolicy Delete.
import { describe, expect, it } from 'vitest';
import { OrcaClient } from '../../client/index.ts';
import { approvalDmn, serviceProcess } from '../api/workflow-support.ts';
import { DD, eventually, NS, operatorWorld, PD } from './operator-fixture.ts';

const world = operatorWorld();

function client() {
  return new OrcaClient({ url: world.orca.baseUrl, apiKey: world.apiKey });
}

async function successes(operator: { metrics: { reconciles: { get(): Promise<{ values: { labels: { result?: string | number }; value: number }[] }> } } }) {
  return (await operator.metrics.reconciles.get()).values.find((v) => v.labels.result === 'success')?.value ?? 0;
}

describe('operator: deploys what the resources say, once', () => {
  it('applies → Ready with the engine version; a changed model → one deploy; ten resyncs → none; drift → repaired', async () => {
    const operator = await world.operator({ resyncSeconds: 0.1 });
    const before = world.deploys();
    world.kube.create(world.processDefinition('order', { bpmnXml: serviceProcess('order', 'ship') }));
    const ready = await world.condition(PD, 'order', 'Ready', 'True');
    expect(ready).toMatchObject({ processId: 'order', version: 1, observedGeneration: 1 });
    expect(ready.deployedChecksum).toBe(ready.sourceChecksum);
    expect(ready.error).toBeUndefined();
    expect(ready.conditions!.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['Reconciling', 'False'],
      ['Stalled', 'False'],
    ]);
    expect((await client().getProcessDefinition('order')).latestVersion).toBe(1);
    expect(world.deploys() - before).toBe(1);

    // A new model: deployed once, as version 2.
    world.kube.patch(PD.apiVersion, PD.kind, NS, 'order', { spec: { bpmnXml: serviceProcess('order', 'ship-express') } });
    const changed = await eventually(async () => {
      const s = world.get(PD, 'order').status;
      return s?.version === 2 && s.observedGeneration === 2 ? s : undefined;
    }, 'version 2');
    expect(changed.conditions!.find((c) => c.type === 'Ready')!.status).toBe('True');
    expect(world.deploys() - before).toBe(2);

    // Ten resyncs (at least) with nothing changed: no deploy, no status write.
    const statusWrites = () => world.kube.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/order/status')).length;
    const writesBefore = statusWrites();
    const reconciled = await successes(operator);
    await eventually(async () => ((await successes(operator)) >= reconciled + 10 ? true : undefined), 'ten resyncs');
    expect(world.deploys() - before).toBe(2);
    expect(statusWrites()).toBe(writesBefore);

    // Deleted in Orca behind the operator's back: the next resync deploys it again.
    await client().deleteProcessDefinition('order');
    const repaired = await eventually(async () => {
      const s = world.get(PD, 'order').status;
      return s?.deployedAt !== changed.deployedAt ? s : undefined;
    }, 'drift repaired');
    expect(repaired).toMatchObject({ processId: 'order', version: 1 });
    expect((await client().getProcessDefinition('order')).deployments).toHaveLength(1);
    expect(world.deploys() - before).toBe(3);
    await operator.stop();
  });

  it('redeploys once when the orca.dev/redeploy annotation changes, and records the token', async () => {
    const operator = await world.operator({ resyncSeconds: 0.1 });
    world.kube.create(world.processDefinition('pay', { bpmnXml: serviceProcess('pay', 'charge') }));
    await world.condition(PD, 'pay', 'Ready', 'True');
    const before = world.deploys();
    world.kube.patch(PD.apiVersion, PD.kind, NS, 'pay', { metadata: { annotations: { 'orca.dev/redeploy': 'r1' } } });
    await eventually(async () => (world.get(PD, 'pay').status?.redeployToken === 'r1' ? true : undefined), 'token recorded');
    const reconciled = await successes(operator);
    await eventually(async () => ((await successes(operator)) >= reconciled + 5 ? true : undefined), 'resyncs');
    expect(world.deploys() - before).toBe(1);
    await operator.stop();
  });

  it('deploys a model from a ConfigMap key and again when the ConfigMap changes', async () => {
    const operator = await world.operator();
    world.kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'models', namespace: NS }, data: { 'ship.bpmn': serviceProcess('ship', 'a') } });
    world.kube.create(world.processDefinition('ship', { configMapRef: { name: 'models', key: 'ship.bpmn' }, processId: 'ship' }));
    expect(await world.condition(PD, 'ship', 'Ready', 'True')).toMatchObject({ processId: 'ship', version: 1 });
    world.kube.patch('v1', 'ConfigMap', NS, 'models', { data: { 'ship.bpmn': serviceProcess('ship', 'b') } });
    await eventually(async () => (world.get(PD, 'ship').status?.version === 2 ? true : undefined), 'version 2 from the changed ConfigMap');
    await operator.stop();
  });

  it('deploys a DecisionDefinition and lists its decision ids', async () => {
    const operator = await world.operator();
    world.kube.create({
      ...DD,
      metadata: { name: 'approval', namespace: NS },
      spec: { dmnXml: approvalDmn('approval'), apiKeySecretRef: { name: 'orca-key' } },
    });
    expect(await world.condition(DD, 'approval', 'Ready', 'True')).toMatchObject({ decisionIds: ['approval'], version: 1 });
    expect((await client().evaluateDecision('approval', { amount: 5 })).result).toBe('auto');
    await operator.stop();
  });

  it('with deletionPolicy Delete: holds the finalizer, removes the definition from Orca on delete, then the finalizer', async () => {
    const operator = await world.operator({ resyncSeconds: 0.1 });
    const before = world.deploys();
    world.kube.create(world.processDefinition('temp', { bpmnXml: serviceProcess('temp', 't'), deletionPolicy: 'Delete' }));
    await world.condition(PD, 'temp', 'Ready', 'True');
    expect(world.get(PD, 'temp').metadata.finalizers).toEqual(['orca.dev/cleanup']);
    // The finalizer's own update event and resyncs deploy nothing more.
    const reconciled = await successes(operator);
    await eventually(async () => ((await successes(operator)) >= reconciled + 5 ? true : undefined), 'resyncs');
    expect(world.deploys() - before).toBe(1);
    world.kube.delete(PD.apiVersion, PD.kind, NS, 'temp');
    await eventually(async () => (world.kube.get(PD.apiVersion, PD.kind, NS, 'temp') === undefined ? true : undefined), 'the resource gone');
    await expect(client().getProcessDefinition('temp')).rejects.toMatchObject({ status: 404 });

    // Switching Delete → Retain drops the finalizer; deleting then leaves the definition in Orca.
    world.kube.create(world.processDefinition('kept', { bpmnXml: serviceProcess('kept', 'k'), deletionPolicy: 'Delete' }));
    await eventually(async () => ((world.get(PD, 'kept').metadata.finalizers as string[] | undefined)?.length === 1 ? true : undefined), 'finalizer added');
    world.kube.patch(PD.apiVersion, PD.kind, NS, 'kept', { spec: { deletionPolicy: 'Retain' } });
    await eventually(
      async () => (((world.get(PD, 'kept').metadata.finalizers as string[] | undefined) ?? []).length === 0 ? true : undefined),
      'finalizer removed',
    );
    world.kube.delete(PD.apiVersion, PD.kind, NS, 'kept');
    expect((await client().getProcessDefinition('kept')).latestVersion).toBe(1);
    await operator.stop();
  });

  it('with deletionPolicy Delete and an active instance: Stalled DeleteBlocked, removed once the instance is gone', async () => {
    const operator = await world.operator();
    world.kube.create(world.processDefinition('busy', { bpmnXml: serviceProcess('busy', 'b'), deletionPolicy: 'Delete' }));
    await world.condition(PD, 'busy', 'Ready', 'True');
    const { processInstanceKey } = await client().startInstance({ bpmnProcessId: 'busy' });
    world.kube.delete(PD.apiVersion, PD.kind, NS, 'busy');
    const blocked = await eventually(async () => {
      const stalled = world.get(PD, 'busy').status?.conditions?.find((c) => c.type === 'Stalled');
      return stalled?.status === 'True' && stalled.reason === 'DeleteBlocked' ? stalled : undefined;
    }, 'DeleteBlocked');
    expect(blocked.message).toMatch(/active instances/);
    expect((await client().getProcessDefinition('busy')).latestVersion).toBe(1);
    await client().cancelInstance(processInstanceKey);
    await eventually(async () => (world.kube.get(PD.apiVersion, PD.kind, NS, 'busy') === undefined ? true : undefined), 'the resource gone');
    await expect(client().getProcessDefinition('busy')).rejects.toMatchObject({ status: 404 });
    await operator.stop();
  });
});
