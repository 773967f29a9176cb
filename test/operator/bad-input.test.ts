// Bad input and faults end as conditions a platform engineer understands,
// never as a crash or a redeploy storm: an invalid model (Stalled with
// Orca's message, not sent again), both or neither source, an oversized
// inline model, a missing ConfigMap or Secret (Stalled, then Ready once it
// appears), a changed Secret (reconciled at once, before any retry is
// due), a Secret cache not yet filled (no reconcile), a key Orca refuses, a process id that does not match, and Orca
// down (Reconciling, retried with backoff, Ready once it is back).
import { describe, expect, it } from 'vitest';
import { OrcaClient } from '../../client/index.ts';
import { serviceProcess } from '../api/workflow-support.ts';
import { eventually, NS, operatorWorld, PD } from './operator-fixture.ts';

const world = operatorWorld();

async function successes(operator: { metrics: { reconciles: { get(): Promise<{ values: { labels: { result?: string | number }; value: number }[] }> } } }) {
  return (await operator.metrics.reconciles.get()).values.find((v) => v.labels.result === 'success')?.value ?? 0;
}

describe('operator: bad input and faults', () => {
  it('an invalid model: Stalled with Orca’s message and status.error; not deployed again on resync; fixed → Ready', async () => {
    const operator = await world.operator({ resyncSeconds: 0.1 });
    const before = world.deploys();
    const broken = serviceProcess('broken', 'x').replace('<bpmn:endEvent', '<bpmn:complexGateway id="cg"/><bpmn:endEvent');
    world.kube.create(world.processDefinition('broken', { bpmnXml: broken }));
    const stalled = await world.condition(PD, 'broken', 'Stalled', 'True', 'InvalidModel');
    expect(stalled.error?.code).toBe('INVALID_INPUT');
    expect(stalled.error?.message).toMatch(/cg|complex/i);
    expect(stalled.conditions!.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'InvalidModel' });
    const deploysAfterFirst = world.deploys();
    expect(deploysAfterFirst - before).toBe(1);
    const events = () => world.kube.list('v1', 'Event', NS).filter((e) => (e.involvedObject as { name: string }).name === 'broken');
    await eventually(async () => (events().length > 0 ? true : undefined), 'an Event');
    // Ten resyncs: the same refused model is not sent again.
    const reconciled = await successes(operator);
    await eventually(async () => ((await successes(operator)) >= reconciled + 10 ? true : undefined), 'ten resyncs');
    expect(world.deploys()).toBe(deploysAfterFirst);

    world.kube.patch(PD.apiVersion, PD.kind, NS, 'broken', { spec: { bpmnXml: serviceProcess('broken', 'x') } });
    const ready = await world.condition(PD, 'broken', 'Ready', 'True');
    expect(ready.error).toBeUndefined();
    expect(world.deploys()).toBe(deploysAfterFirst + 1);
    await operator.stop();
  });

  it('both sources, neither, oversized, wrong process id: Stalled with the reason, nothing deployed', async () => {
    const operator = await world.operator();
    const before = world.deploys();
    world.kube.create(world.processDefinition('both', { bpmnXml: serviceProcess('both', 'x'), configMapRef: { name: 'm', key: 'k' } }));
    world.kube.create(world.processDefinition('neither', {}));
    world.kube.create(
      world.processDefinition('huge', {
        bpmnXml: serviceProcess('huge', 'x').replace('</bpmn:definitions>', `<!-- ${'x'.repeat(210_000)} --></bpmn:definitions>`),
      }),
    );
    world.kube.create(world.processDefinition('wrong-id', { bpmnXml: serviceProcess('actual', 'x'), processId: 'expected' }));
    expect((await world.condition(PD, 'both', 'Stalled', 'True', 'InvalidSpec')).conditions![0].message).toMatch(/both set/);
    expect((await world.condition(PD, 'neither', 'Stalled', 'True', 'InvalidSpec')).conditions![0].message).toMatch(/Neither/);
    expect((await world.condition(PD, 'huge', 'Stalled', 'True', 'ModelTooLarge')).conditions![0].message).toMatch(/ConfigMap/);
    expect((await world.condition(PD, 'wrong-id', 'Stalled', 'True', 'IdMismatch')).conditions![0].message).toMatch(/'expected'.*'actual'/);
    expect(world.deploys()).toBe(before);
    await operator.stop();
  });

  it('a missing ConfigMap or Secret: Stalled with the reason, then Ready once it is created', async () => {
    const operator = await world.operator();
    world.kube.create(world.processDefinition('from-cm', { configMapRef: { name: 'later', key: 'model.bpmn' } }));
    world.kube.create(world.processDefinition('no-secret', { bpmnXml: serviceProcess('no-secret', 'x'), apiKeySecretRef: { name: 'missing' } }));
    expect((await world.condition(PD, 'from-cm', 'Stalled', 'True', 'ConfigMapNotFound')).conditions![0].message).toMatch(/later/);
    expect((await world.condition(PD, 'no-secret', 'Stalled', 'True', 'SecretNotFound')).conditions![0].message).toMatch(/missing/);
    world.kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later', namespace: NS }, data: { other: 'x' } });
    await world.condition(PD, 'from-cm', 'Stalled', 'True', 'ConfigMapKeyNotFound');
    world.kube.patch('v1', 'ConfigMap', NS, 'later', { data: { 'model.bpmn': serviceProcess('from-cm', 'x') } });
    await world.condition(PD, 'from-cm', 'Ready', 'True');
    world.kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'missing', namespace: NS }, stringData: { apiKey: world.apiKey } });
    await world.condition(PD, 'no-secret', 'Ready', 'True');
    await operator.stop();
  });

  it('a Secret changed: the resources that use it are reconciled at once — a fixed key → Ready, a key of another account → deployed there', async () => {
    // Retries and resyncs far beyond the test's patience: only the watch on Secrets can bring the change.
    const operator = await world.operator({ rateLimiter: { baseMs: 600_000, maxMs: 600_000 }, resyncSeconds: 3_600 });
    const secret = (apiKey: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'rotating', namespace: NS }, stringData: { apiKey } });
    world.kube.create(secret('orca_not_a_real_key'));
    world.kube.create(world.processDefinition('rotating', { bpmnXml: serviceProcess('rotating', 'x'), apiKeySecretRef: { name: 'rotating' } }));
    await world.condition(PD, 'rotating', 'Stalled', 'True', 'InvalidApiKey');
    world.kube.update(secret(world.apiKey));
    expect((await world.condition(PD, 'rotating', 'Ready', 'True')).version).toBe(1);

    const other = await world.orca.newAccount();
    world.kube.update(secret(other.apiKey));
    const theirs = new OrcaClient({ url: world.orca.baseUrl, apiKey: other.apiKey });
    const deployed = await eventually(
      async () => (await theirs.getProcessDefinition('rotating').catch(() => undefined)) ?? undefined,
      'the process in the other account',
    );
    expect(deployed.latestVersion).toBe(1);
    await operator.stop();
  });

  it('reconciles nothing before the Secret cache is filled: a resource whose Secret exists is never Stalled at start', async () => {
    world.kube.create(world.processDefinition('at-start', { bpmnXml: serviceProcess('at-start', 'x') }));
    // The operator's first lists of Secrets fail, so its cache of them fills a while after the others.
    world.kube.faults.failNext(3, 500, (path, method) => method === 'GET' && path.endsWith('/secrets'));
    const operator = await world.operator();
    await world.condition(PD, 'at-start', 'Ready', 'True');
    await operator.stop();
    const reasons = world.kube
      .list('v1', 'Event', NS)
      .filter((e) => (e.involvedObject as { name: string }).name === 'at-start')
      .map((e) => e.reason);
    expect(reasons).toEqual(['Deployed']);
  });

  it('a key Orca refuses: Stalled InvalidApiKey, retried with backoff, no storm', async () => {
    const operator = await world.operator();
    world.kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad-key', namespace: NS }, stringData: { apiKey: 'orca_not_a_real_key' } });
    world.kube.create(world.processDefinition('bad-key', { bpmnXml: serviceProcess('bad-key', 'x'), apiKeySecretRef: { name: 'bad-key' } }));
    const stalled = await world.condition(PD, 'bad-key', 'Stalled', 'True', 'InvalidApiKey');
    expect(stalled.conditions![0].message).toMatch(/Secret 'bad-key'/);
    expect(stalled.conditions![0].message).not.toContain('orca_not_a_real_key');
    // Backoff: failures of one key double their delay (20 ms base here), so a few seconds see only a handful of tries.
    const tries = () => world.calls.filter((c) => c.status === 401).length;
    const first = tries();
    await eventually(async () => (tries() >= first + 3 ? true : undefined), 'some retries');
    expect(tries()).toBeLessThan(first + 20);
    await operator.stop();
  });

  it('Orca down: Reconciling with the reason, retried with backoff, Ready once it answers again; the operator keeps running', async () => {
    const operator = await world.operator();
    world.orcaDown = true;
    try {
      world.kube.create(world.processDefinition('while-down', { bpmnXml: serviceProcess('while-down', 'x') }));
      const reconciling = await world.condition(PD, 'while-down', 'Reconciling', 'True', 'OrcaUnreachable');
      expect(reconciling.conditions!.find((c) => c.type === 'Ready')!.status).toBe('False');
      expect(reconciling.conditions!.find((c) => c.type === 'Stalled')!.status).toBe('False');
    } finally {
      world.orcaDown = false;
    }
    await world.condition(PD, 'while-down', 'Ready', 'True');
    const health = await fetch(`http://127.0.0.1:${operator.port}/healthz`);
    expect(health.status).toBe(200);
    await operator.stop();
  });

  it('Orca answering 503 with Retry-After, or 429: Reconciling, retried after the delay it asked for, then Ready', async () => {
    const operator = await world.operator();
    world.orcaAnswers = { status: 503, retryAfterSeconds: 1 };
    try {
      world.kube.create(world.processDefinition('busy-orca', { bpmnXml: serviceProcess('busy-orca', 'x') }));
      const reconciling = await world.condition(PD, 'busy-orca', 'Reconciling', 'True', 'OrcaUnavailable');
      expect(reconciling.conditions![0].message).toMatch(/503/);
      await eventually(
        async () => ((await operator.metrics.reconciles.get()).values.some((v) => v.labels.result === 'requeue' && v.value > 0) ? true : undefined),
        'a requeue',
      );
      world.orcaAnswers = { status: 429, retryAfterSeconds: 1 };
      await world.condition(PD, 'busy-orca', 'Reconciling', 'True', 'OrcaThrottled');
    } finally {
      world.orcaAnswers = undefined;
    }
    await world.condition(PD, 'busy-orca', 'Ready', 'True');
    await operator.stop();
  });

  it('Orca accepting and never answering: the request times out, Reconciling, then Ready; no worker is held', async () => {
    const operator = await world.operator({ orcaClient: { requestTimeoutMs: 300 } });
    world.orcaHangs = true;
    try {
      world.kube.create(world.processDefinition('hung', { bpmnXml: serviceProcess('hung', 'x') }));
      await world.condition(PD, 'hung', 'Reconciling', 'True', 'OrcaUnreachable');
    } finally {
      world.orcaHangs = false;
    }
    await world.condition(PD, 'hung', 'Ready', 'True');
    await operator.stop();
  });
});
