// The resource types the fake Kubernetes API server serves: the built-in ones
// the operator touches (ConfigMaps, Secrets, Events, Namespaces, Leases) and
// Orca's custom resources, read from CRD files when given (so plural, scope,
// status subresource and schema defaults come from the same files the chart
// installs) or from a built-in table that mirrors crds/ when they are absent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** A JSON Schema node of a CRD's structural schema, as far as defaulting needs it. */
export interface SchemaNode {
  type?: string;
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
}

/** One of a CRD version's additionalPrinterColumns. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  /** 'v1' or 'group/version'. */
  apiVersion: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  /** True for custom resources: generation, 415 on strategic merge, no unconditional update. */
  custom: boolean;
  statusSubresource: boolean;
  /** `kubectl get` columns after Name; none means Name and Age. */
  printerColumns: PrinterColumn[];
  /** The version's openAPIV3Schema, for defaulting; custom resources only. */
  schema?: SchemaNode;
}

function builtin(group: string, version: string, kind: string, plural: string, namespaced: boolean, shortNames: string[] = []): ResourceType {
  return {
    group,
    version,
    apiVersion: group ? `${group}/${version}` : version,
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames,
    categories: [],
    namespaced,
    custom: false,
    statusSubresource: false,
    printerColumns: [],
  };
}

export const BUILTIN_TYPES: readonly ResourceType[] = [
  builtin('', 'v1', 'Namespace', 'namespaces', false, ['ns']),
  builtin('', 'v1', 'ConfigMap', 'configmaps', true, ['cm']),
  builtin('', 'v1', 'Secret', 'secrets', true),
  builtin('', 'v1', 'Event', 'events', true, ['ev']),
  builtin('events.k8s.io', 'v1', 'Event', 'events', true, ['ev']),
  builtin('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
];

const READY: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };
const VERSION: PrinterColumn = { name: 'Version', type: 'integer', jsonPath: '.status.version' };
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function orcaType(kind: string, plural: string, shortName: string, ids: PrinterColumn): ResourceType {
  return {
    group: 'orca.dev',
    version: 'v1alpha1',
    apiVersion: 'orca.dev/v1alpha1',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [shortName],
    categories: ['orca'],
    namespaced: true,
    custom: true,
    statusSubresource: true,
    printerColumns: [READY, ids, VERSION, AGE],
  };
}

/** Used when no CRD files exist: the shapes agreed for issue #16. */
export const ORCA_TYPES: readonly ResourceType[] = [
  orcaType('ProcessDefinition', 'processdefinitions', 'orcapd', { name: 'Process ID', type: 'string', jsonPath: '.status.processId' }),
  orcaType('DecisionDefinition', 'decisiondefinitions', 'orcadd', { name: 'Decision IDs', type: 'string', jsonPath: '.status.decisionIds' }),
];

interface CrdDocument {
  kind?: string;
  spec?: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { kind: string; plural: string; singular?: string; shortNames?: string[]; categories?: string[] };
    versions: {
      name: string;
      served?: boolean;
      subresources?: { status?: object };
      schema?: { openAPIV3Schema?: SchemaNode };
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
}

/** Every served version of every CustomResourceDefinition in the files. */
export function loadCrdTypes(files: readonly string[]): ResourceType[] {
  const types: ResourceType[] = [];
  for (const file of files) {
    // Plain YAML, not client-node's loadAllYaml: that maps into typed models, which rename `default` to `_default`.
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8')).map((document) => document.toJS() as CrdDocument)) {
      if (doc?.kind !== 'CustomResourceDefinition' || !doc.spec) continue;
      const { group, scope, names, versions } = doc.spec;
      for (const version of versions) {
        if (version.served === false) continue;
        types.push({
          group,
          version: version.name,
          apiVersion: `${group}/${version.name}`,
          kind: names.kind,
          plural: names.plural,
          singular: names.singular ?? names.kind.toLowerCase(),
          shortNames: names.shortNames ?? [],
          categories: names.categories ?? [],
          namespaced: scope === 'Namespaced',
          custom: true,
          statusSubresource: version.subresources?.status !== undefined,
          printerColumns: version.additionalPrinterColumns ?? [],
          schema: version.schema?.openAPIV3Schema,
        });
      }
    }
  }
  return types;
}

/** The repository's crds/*.yaml, or none when the folder does not exist (yet). */
export function repositoryCrdFiles(): string[] {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'crds');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .map((name) => join(dir, name));
}

/** Fills in schema defaults the way the API server does on create, update and read. */
export function applyDefaults(value: unknown, schema: SchemaNode | undefined): void {
  if (!schema || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (record[key] === undefined && child.default !== undefined) record[key] = structuredClone(child.default);
    applyDefaults(record[key], child);
  }
  if (typeof schema.additionalProperties === 'object') {
    for (const [key, child] of Object.entries(record)) if (!schema.properties?.[key]) applyDefaults(child, schema.additionalProperties);
  }
}
