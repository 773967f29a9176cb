// What the chart's workloads promise, rendered: the API's replicas belong to
// the HPA when it is on; engine shards are a Deployment (partitions are
// leased in PostgreSQL, not tied to pod ordinals) with a PDB of
// maxUnavailable 1 and time to release their leases on SIGTERM; every pod
// is probed on /healthz and /readyz at the port Orca listens on; and the
// environment is what cli/config.ts reads, Postgres and Redis from the
// existing Secrets, the operator's as the shared brief agreed.
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../cli/config.ts';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { envOf, workloads, type Workload } from './pod-specs.ts';
import { CI_VALUES, find, NAMESPACE, render, specOf } from './render.ts';

function component(values: string, name: string): Workload {
  const found = workloads(render(values)).find((w) => w.component === name);
  if (!found) throw new Error(`${values}: no ${name} workload`);
  return found;
}

describe.skipIf(!TOOLS)(`workloads ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it('the API: replicas without the HPA, none with it', () => {
    expect(specOf<{ replicas?: number }>(component('default', 'api').object).replicas).toBe(2);
    expect(find(render('default'), 'HorizontalPodAutoscaler')).toEqual([]);
    for (const values of ['hpa', 'everything-on']) {
      const api = component(values, 'api').object;
      expect(specOf<object>(api)).not.toHaveProperty('replicas');
      const [hpa] = find(render(values), 'HorizontalPodAutoscaler');
      expect(specOf<{ scaleTargetRef: object }>(hpa).scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: api.metadata.name });
    }
    expect(specOf<object>(find(render('hpa'), 'HorizontalPodAutoscaler')[0])).toMatchObject({
      minReplicas: 3,
      maxReplicas: 12,
    });
  });

  it.each(CI_VALUES)('%s: engine shards are a Deployment with a maxUnavailable 1 PDB and a grace period for their leases', (values) => {
    const objects = render(values);
    expect(find(objects, 'StatefulSet')).toEqual([]);
    const engine = component(values, 'engine');
    expect(engine.object.kind).toBe('Deployment');
    expect(envOf(engine.pod.containers[0]).get('ORCA_ROLE')?.value).toBe('engine');
    // Leaders finish their batch and release their leases on SIGTERM (cli/start.ts); a kill before that leaves partitions leaderless until the lease runs out.
    expect(engine.pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    const { selector } = specOf<{ selector: object }>(engine.object);
    const pdbs = find(objects, 'PodDisruptionBudget').map((pdb) => specOf<{ maxUnavailable?: number; selector: object }>(pdb));
    const pdb = pdbs.find((p) => JSON.stringify(p.selector) === JSON.stringify(selector));
    expect(pdb?.maxUnavailable).toBe(1);
  });

  it.each(CI_VALUES)('%s: every pod is probed on /healthz and /readyz at the port Orca listens on', (values) => {
    for (const { object, pod } of workloads(render(values))) {
      for (const container of pod.containers) {
        const where = `${object.metadata.name}/${container.name}`;
        const http = container.ports?.find((p) => p.name === 'http');
        expect(http?.containerPort, where).toBe(8080);
        expect(envOf(container).get('PORT')?.value, where).toBe(String(http?.containerPort));
        expect(container.livenessProbe?.httpGet, where).toEqual({ path: '/healthz', port: 'http' });
        expect(container.readinessProbe?.httpGet, where).toEqual({ path: '/readyz', port: 'http' });
      }
    }
  });

  it.each(CI_VALUES)('%s: the API and the shards read only variables cli/config.ts knows, Postgres and Redis from Secrets', (values) => {
    for (const name of ['api', 'engine']) {
      const env = envOf(component(values, name).pod.containers[0]);
      expect(env.get('ORCA_ROLE')?.value).toBe(name);
      expect(env.get('DATABASE_URL')?.valueFrom?.secretKeyRef).toBeDefined();
      expect(env.get('REDIS_URL')?.valueFrom?.secretKeyRef).toBeDefined();
      // extraEnv may add OTEL_* (read by api/tracing/settings.ts); everything else must be a variable of cli/config.ts.
      const unknown = [...env.keys()].filter((variable) => !(variable in ENVIRONMENT) && !variable.startsWith('OTEL_'));
      expect(unknown).toEqual([]);
    }
  });

  it('leaves Orca settings that are not set to Orca, and passes those that are', () => {
    const defaults = envOf(component('default', 'engine').pod.containers[0]);
    expect([...defaults.keys()].sort()).toEqual(['DATABASE_URL', 'ORCA_METRICS', 'ORCA_ROLE', 'PORT', 'REDIS_URL']);
    expect(defaults.get('DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'orca-postgresql', key: 'DATABASE_URL' });
    const everything = envOf(component('everything-on', 'engine').pod.containers[0]);
    expect(everything.get('ORCA_PARTITIONS')?.value).toBe('16');
    expect(everything.get('ORCA_COMMAND_RETENTION_MS')?.value).toBe('172800000');
    expect(everything.get('SMTP_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'orca-smtp', key: 'url' });
  });

  it('passes the webhook settings that are set: the sealing key from its Secret, the others as values', () => {
    const everything = envOf(component('everything-on', 'engine').pod.containers[0]);
    expect(everything.get('ORCA_WEBHOOK_SECRET_KEY')?.valueFrom?.secretKeyRef).toEqual({ name: 'orca-webhooks', key: 'secret-key' });
    expect(everything.get('ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS')?.value).toBe('on');
    expect(everything.get('ORCA_WEBHOOK_DISPATCHER')?.value).toBe('on');
    expect(everything.get('ORCA_WEBHOOK_TIMEOUT_MS')?.value).toBe('10000');
    expect(everything.get('ORCA_WEBHOOK_PER_ENDPOINT')?.value).toBe('32');
    expect(everything.get('ORCA_WEBHOOK_LOG_RETENTION_MS')?.value).toBe('604800000');
    // The API processes get the key too: they seal the secrets of the endpoints they create.
    expect(envOf(component('everything-on', 'api').pod.containers[0]).get('ORCA_WEBHOOK_SECRET_KEY')?.valueFrom?.secretKeyRef?.name).toBe('orca-webhooks');
    const defaults = envOf(component('default', 'engine').pod.containers[0]);
    expect([...defaults.keys()].filter((name) => name.startsWith('ORCA_WEBHOOK_'))).toEqual([]);
  });

  it('the operator: its command, the API Service as ORCA_URL, its namespace and pod name for the Lease', () => {
    const objects = render('default');
    const operator = component('default', 'operator');
    const container = operator.pod.containers[0];
    expect(container.args).toEqual(['operator']);
    const env = envOf(container);
    const [service] = find(objects, 'Service').filter((s) => s.metadata.labels?.['app.kubernetes.io/component'] === 'api');
    const [port] = specOf<{ ports: { port: number }[] }>(service).ports;
    expect(env.get('ORCA_URL')?.value).toBe(`http://${service.metadata.name}.${NAMESPACE}.svc:${port.port}`);
    expect(env.get('ORCA_OPERATOR_LEASE_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    expect(env.get('ORCA_OPERATOR_IDENTITY')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(env.has('ORCA_OPERATOR_WATCH_NAMESPACE')).toBe(false);
    expect(operator.pod.serviceAccountName).toBe('orca-operator');
    expect(envOf(component('watch-namespace', 'operator').pod.containers[0]).get('ORCA_OPERATOR_WATCH_NAMESPACE')?.value).toBe('workflows');
    expect(envOf(component('everything-on', 'operator').pod.containers[0]).get('ORCA_OPERATOR_RESYNC_SECONDS')?.value).toBe('600');
    expect(workloads(render('operator-off')).map((w) => w.component)).toEqual(['api', 'engine']);
  });

  it.each(CI_VALUES)('%s: each workload spreads its own pods over nodes, softly', (values) => {
    for (const { object, pod } of workloads(render(values))) {
      const { selector } = specOf<{ selector: object }>(object);
      const spread = (pod as { topologySpreadConstraints?: { labelSelector: object; whenUnsatisfiable: string; topologyKey: string }[] })
        .topologySpreadConstraints;
      expect(spread, object.metadata.name).toEqual([
        expect.objectContaining({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: selector }),
      ]);
    }
  });

  it('only the operator gets a service account token', () => {
    for (const { component: name, pod } of workloads(render('everything-on'))) expect(pod.automountServiceAccountToken).toBe(name === 'operator');
  });
});
