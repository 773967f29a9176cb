// The chart rendered by its own helm (test/chart/helm-tools.ts) the way the
// tests need it: `helm template` for a values file of charts/orca/ci/, as
// text (the golden files) and as objects (everything else), always as the
// release `orca` in the namespace `orca`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../crds/crd-documents.ts';
import { TOOLS } from './helm-tools.ts';

export const CHART_DIR = join(ROOT, 'charts', 'orca');
export const CI_DIR = join(CHART_DIR, 'ci');
export const RELEASE = 'orca';
export const NAMESPACE = 'orca';

/** The values files under charts/orca/ci/, by name without .yaml. */
export const CI_VALUES = readdirSync(CI_DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort()
  .map((name) => basename(name, '.yaml'));

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled helm with `args`. Its notices about the chart's symlinks (crds/, files/) go to stderr and are expected. */
export function helm(args: string[]): Run {
  if (!TOOLS) throw new Error('helm is not available');
  // HELM_* homes in a scratch place: the tests must not read or write the user's helm configuration.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: '/nonexistent',
    HELM_CACHE_HOME: '/tmp/orca-helm-test/cache',
    HELM_CONFIG_HOME: '/tmp/orca-helm-test/config',
    HELM_DATA_HOME: '/tmp/orca-helm-test/data',
  };
  const run = spawnSync(TOOLS.helm, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `helm template` of the chart with the given ci values file (and further arguments); throws on failure. */
export function templateText(values: string, ...args: string[]): string {
  const run = helm(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--values', join(CI_DIR, `${values}.yaml`), ...args]);
  if (run.status !== 0) throw new Error(`helm template (${values}) failed:\n${run.stderr}`);
  return run.stdout;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(document.errors.map((e) => e.message).join('; '));
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

const rendered = new Map<string, K8sObject[]>();

/** The objects `helm template` renders for a ci values file (CRDs not included), cached per file. */
export function render(values: string): K8sObject[] {
  let objects = rendered.get(values);
  if (!objects) {
    objects = parseObjects(templateText(values));
    rendered.set(values, objects);
  }
  return objects;
}

export function find(objects: K8sObject[], kind: string, name?: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
}

/** An object's spec, typed as the test reads it. */
export function specOf<T>(object: K8sObject): T {
  return object.spec as T;
}
