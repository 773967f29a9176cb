// Every object the chart renders, for every values file in charts/orca/ci/,
// validated against the Kubernetes schemas of its kind (kubernetes-models,
// the offline stand-in for kubeconform; the Prometheus Operator's kinds
// from @kubernetes-models/prometheus-operator), and the CRDs the chart
// installs are exactly the files in crds/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCrds } from '../crds/crd-documents.ts';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { CHART_DIR, CI_VALUES, helm, parseObjects, render, templateText, type K8sObject } from './render.ts';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: object) => Validatable;

/** The module of kubernetes-models (or the Prometheus Operator's models) that holds apiVersion's kind. */
function modelModule({ apiVersion, kind }: K8sObject): string {
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

async function modelClass(object: K8sObject): Promise<ModelClass> {
  const module = (await import(modelModule(object))) as Record<string, ModelClass>;
  const model = module[object.kind];
  if (!model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
  return model;
}

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!TOOLS)(`rendered objects ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it.each(CI_VALUES)('%s: every object is valid for its kind', async (values) => {
    const objects = render(values);
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      const Model = await modelClass(object);
      expect(() => new Model(object).validate(), `${object.kind} ${object.metadata.name}`).not.toThrow();
    }
  });

  it('a broken object is caught (the validation is real)', async () => {
    const [deployment] = render('default').filter((o) => o.kind === 'Deployment');
    const broken = structuredClone(deployment) as K8sObject & { spec: { replicas: unknown } };
    broken.spec.replicas = 'two';
    const Model = await modelClass(broken);
    expect(() => new Model(broken).validate()).toThrow(/replicas/);
  });

  it('every namespaced object is in the release namespace, or in the watched one', () => {
    const clusterScoped = new Set(['ClusterRole', 'ClusterRoleBinding']);
    for (const values of CI_VALUES) {
      for (const object of render(values)) {
        if (clusterScoped.has(object.kind)) expect(object.metadata.namespace, `${values}: ${object.kind}`).toBeUndefined();
        else expect(['orca', 'workflows'], `${values}: ${object.kind} ${object.metadata.name}`).toContain(object.metadata.namespace);
      }
    }
  });

  it('installs exactly the CRDs of crds/, and none of their samples', () => {
    const withCrds = parseObjects(templateText('default', '--include-crds'));
    const installed = withCrds.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(installed).toEqual(readCrds().map(({ crd }) => crd));
    expect(withCrds.filter((o) => o.apiVersion.startsWith('orca.dev/'))).toEqual([]);
    // From crds/, not templates/: helm installs them before the templates and never deletes them on uninstall.
    for (const values of CI_VALUES) expect(render(values).filter((o) => o.kind === 'CustomResourceDefinition')).toEqual([]);
  });

  it('packages with the CRDs and the observability files in it, through the symlinks', () => {
    const out = mkdtempSync(join(tmpdir(), 'orca-chart-'));
    temp.push(out);
    const run = helm(['package', CHART_DIR, '--destination', out]);
    expect(run.status, run.stderr).toBe(0);
    const listing = execFileSync('tar', ['-tzf', join(out, 'orca-0.1.0.tgz')], { encoding: 'utf8' }).split('\n');
    expect(listing).toEqual(
      expect.arrayContaining([
        'orca/crds/processdefinitions.orca.dev.yaml',
        'orca/crds/decisiondefinitions.orca.dev.yaml',
        'orca/files/orca-alerts.yml',
        'orca/files/orca-dashboard.json',
        'orca/values.schema.json',
      ]),
    );
    expect(listing.filter((path) => path.includes('samples'))).toEqual([]);
  });
});
