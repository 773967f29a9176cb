// The chart's monitoring objects, each behind its own value: the
// PrometheusRule carries exactly the groups of deploy/observability/
// orca-alerts.yml (read through the chart's files/ symlink, never copied),
// which promtool checks and unit-tests as rendered; the dashboard ConfigMap
// carries the dashboard file byte for byte; the ServiceMonitor finds the
// API, the shards and the operator; NetworkPolicies come with them.
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ROOT } from '../crds/crd-documents.ts';
import { HAS_PROMTOOL, PROMETHEUS_SKIP, promtool } from '../observability/promtool.ts';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { CI_VALUES, find, render, type K8sObject } from './render.ts';

const OBSERVABILITY = join(ROOT, 'deploy/observability');
const OPTIONAL = ['ServiceMonitor', 'PrometheusRule', 'NetworkPolicy'];
const temp: string[] = [];
afterAll(async () => {
  for (const dir of temp) await rm(dir, { recursive: true, force: true });
});

type RuleGroups = { groups: { name: string; rules: object[] }[] };

function renderedRules(): RuleGroups {
  const [rule] = find(render('everything-on'), 'PrometheusRule') as (K8sObject & { spec: RuleGroups })[];
  return rule.spec;
}

describe.skipIf(!TOOLS)(`monitoring objects ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it('none of them unless asked for', () => {
    const objects = render('default');
    for (const kind of OPTIONAL) expect(find(objects, kind), kind).toEqual([]);
    expect(find(objects, 'ConfigMap')).toEqual([]);
    for (const kind of OPTIONAL) expect(find(render('everything-on'), kind).length, kind).toBeGreaterThan(0);
  });

  it("the PrometheusRule's groups are deploy/observability/orca-alerts.yml's", async () => {
    const shipped = parse(await readFile(join(OBSERVABILITY, 'orca-alerts.yml'), 'utf8')) as RuleGroups;
    expect(shipped.groups.length).toBeGreaterThan(0);
    expect(renderedRules()).toEqual({ groups: shipped.groups });
    const [rule] = find(render('everything-on'), 'PrometheusRule');
    expect(rule.metadata.labels?.release).toBe('prometheus');
  });

  it('the dashboard ConfigMap holds orca-dashboard.json as it is, labelled for the Grafana sidecar', async () => {
    const [dashboard] = find(render('everything-on'), 'ConfigMap') as (K8sObject & { data: Record<string, string> })[];
    expect(dashboard.data['orca-dashboard.json']).toBe((await readFile(join(OBSERVABILITY, 'orca-dashboard.json'), 'utf8')).trimEnd());
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(dashboard.metadata.annotations?.grafana_folder).toBe('Orca');
  });

  it('the ServiceMonitor selects the Services of the API, the shards and the operator, at their http port', () => {
    const objects = render('everything-on');
    const [monitor] = find(objects, 'ServiceMonitor') as (K8sObject & {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
    })[];
    const selected = find(objects, 'Service').filter((service) =>
      Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => service.metadata.labels?.[key] === value),
    ) as (K8sObject & { spec: { ports: { name: string }[] } })[];
    expect(selected.map((s) => s.metadata.labels?.['app.kubernetes.io/component']).sort()).toEqual(['api', 'engine', 'operator']);
    for (const endpoint of monitor.spec.endpoints) {
      expect(endpoint.path).toBe('/metrics');
      for (const service of selected) expect(service.spec.ports.map((p) => p.name)).toContain(endpoint.port);
    }
  });

  it('NetworkPolicies: the API open to its callers and the operator, metrics to the monitoring namespace', () => {
    const policies = find(render('everything-on'), 'NetworkPolicy') as (K8sObject & {
      spec: { podSelector: { matchLabels: Record<string, string> }; ingress: { from?: unknown[] }[] };
    })[];
    const byComponent = new Map(policies.map((p) => [p.spec.podSelector.matchLabels['app.kubernetes.io/component'], p.spec]));
    expect([...byComponent.keys()].sort()).toEqual(['api', 'engine', 'operator']);
    expect(byComponent.get('api')!.ingress[0].from).toContainEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'orca', 'app.kubernetes.io/instance': 'orca', 'app.kubernetes.io/component': 'operator' } },
    });
    expect(byComponent.get('engine')!.ingress[0].from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
  });

  it.each(CI_VALUES)('%s: a ServiceMonitor only where Orca serves metrics', (values) => {
    const objects = render(values);
    if (find(objects, 'ServiceMonitor').length === 0) return;
    for (const container of find(objects, 'Deployment').flatMap(
      (d) => (d.spec as { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } }).template.spec.containers,
    )) {
      const metrics = container.env?.find((e) => e.name === 'ORCA_METRICS');
      if (metrics) expect(metrics.value).toBe('on');
    }
  });
});

describe.skipIf(!TOOLS || !HAS_PROMTOOL)(`promtool on the rendered rules ${!TOOLS ? TOOLS_SKIP : HAS_PROMTOOL ? '' : PROMETHEUS_SKIP}`, () => {
  it('checks them', async () => {
    const work = await mkdtemp(join(tmpdir(), 'orca-chart-rules-'));
    temp.push(work);
    const file = join(work, 'rendered-rules.yml');
    const rules = renderedRules();
    await writeFile(file, stringify(rules));
    const result = await promtool(['check', 'rules', file]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`SUCCESS: ${rules.groups.flatMap((g) => g.rules).length} rules found`);
    expect(result.code).toBe(0);
  });

  it("passes deploy/observability's unit tests of the alerts", async () => {
    const work = await mkdtemp(join(tmpdir(), 'orca-chart-rules-'));
    temp.push(work);
    // The unit tests name their rule file orca-alerts.yml: give them the rendered rules under that name.
    await writeFile(join(work, 'orca-alerts.yml'), stringify(renderedRules()));
    await copyFile(join(OBSERVABILITY, 'orca-alerts.test.yml'), join(work, 'orca-alerts.test.yml'));
    const result = await promtool(['test', 'rules', join(work, 'orca-alerts.test.yml')]);
    expect(result.stdout + result.stderr).toMatch(/SUCCESS/);
    expect(result.code).toBe(0);
  });
});
