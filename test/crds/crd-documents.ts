// The CustomResourceDefinitions in crds/ and the sample resources in
// crds/samples/, read for the tests in test/crds/ (and the chart's, which
// install the same files), with a walker over an openAPIV3Schema that names
// each node by its path, so a failure says where in the schema it is.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CRD_DIR = join(ROOT, 'crds');
export const SAMPLE_DIR = join(CRD_DIR, 'samples');

export interface Schema {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean | Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  'x-kubernetes-validations'?: { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string }[];
  [keyword: string]: unknown;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface Crd {
  apiVersion: string;
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; singular: string; shortNames?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: object };
      additionalPrinterColumns?: PrinterColumn[];
      schema: { openAPIV3Schema: Schema };
    }[];
  };
}

/** Every YAML document of a file, parsed; a document with errors fails loudly rather than reading as null. */
export function readYamlDocuments(path: string): unknown[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors.map((e) => e.message).join('; ')}`);
    return document.toJS() as unknown;
  });
}

/** The CRD files of crds/ (not its samples), by file name. */
export function crdFiles(): string[] {
  return readdirSync(CRD_DIR)
    .filter((name) => name.endsWith('.yaml'))
    .sort();
}

export function readCrds(): { file: string; crd: Crd }[] {
  return crdFiles().map((file) => {
    const documents = readYamlDocuments(join(CRD_DIR, file));
    if (documents.length !== 1) throw new Error(`${file}: expected one document, found ${documents.length}`);
    return { file, crd: documents[0] as Crd };
  });
}

export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; creationTimestamp?: string; generation?: number };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
}

/** Every resource in crds/samples/, with the file it came from. */
export function readSamples(): { file: string; resource: Resource }[] {
  return readdirSync(SAMPLE_DIR)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .flatMap((file) => readYamlDocuments(join(SAMPLE_DIR, file)).map((resource) => ({ file, resource: resource as Resource })));
}

/** The CRD that serves `apiVersion` / `kind`, and the version entry. */
export function crdFor(crds: Crd[], apiVersion: string, kind: string): { crd: Crd; version: Crd['spec']['versions'][number] } | undefined {
  const [group, versionName] = apiVersion.split('/');
  for (const crd of crds) {
    if (crd.spec.group !== group || crd.spec.names.kind !== kind) continue;
    const version = crd.spec.versions.find((v) => v.name === versionName);
    if (version) return { crd, version };
  }
  return undefined;
}

/** Visits every schema node under `schema` (properties, items, additionalProperties, and the junctors' branches) with its path. */
export function walkSchema(schema: Schema, visit: (node: Schema, path: string, inJunctor: boolean) => void, path = '', inJunctor = false): void {
  visit(schema, path || '.', inJunctor);
  for (const [name, child] of Object.entries(schema.properties ?? {})) walkSchema(child, visit, `${path}.${name}`, inJunctor);
  if (schema.items) walkSchema(schema.items, visit, `${path}[]`, inJunctor);
  if (typeof schema.additionalProperties === 'object') walkSchema(schema.additionalProperties, visit, `${path}{}`, inJunctor);
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[junctor] as Schema[] | undefined;
    branches?.forEach((branch, i) => walkSchema(branch, visit, `${path}(${junctor}[${i}])`, true));
  }
  if (schema.not) walkSchema(schema.not as Schema, visit, `${path}(not)`, true);
}
