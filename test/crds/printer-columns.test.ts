// The printer columns of `kubectl get orcapd` / `orcadd` (Ready, the ids,
// Version, Age), their JSONPaths evaluated with jsonpath-plus on the samples
// as the operator leaves them: the API server takes the first result of a
// column's path, prints a string column as Go's fmt would, and leaves an
// integer column blank unless the value is an integer. Every path must also
// lead somewhere in the schema, so a renamed status field cannot leave a
// column blank for ever.
import { JSONPath } from 'jsonpath-plus';
import { describe, expect, it } from 'vitest';
import { crdFor, readCrds, readSamples, type Crd, type PrinterColumn, type Resource, type Schema } from './crd-documents.ts';

const crds = readCrds().map(({ crd }) => crd);
const samples = readSamples().filter(({ resource }) => resource.apiVersion.startsWith('orca.dev/'));

/** What the API server puts in the column's cell for `object`, or null for a blank one. */
function cell(column: PrinterColumn, object: object): string | number | null {
  const results = JSONPath({ path: `$${column.jsonPath}`, json: object, wrap: true }) as unknown[];
  if (results.length === 0 || results[0] === undefined) return null;
  const value = results[0];
  switch (column.type) {
    case 'string':
      // Go's fmt.Fprint of a []interface{}: the elements space-separated in brackets.
      return Array.isArray(value) ? `[${value.join(' ')}]` : String(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'date':
      return typeof value === 'string' ? value : null;
    default:
      return String(value);
  }
}

/** The schema node a column path ends at; filters select list items, so they step into `items`. */
function schemaAt(root: Schema, jsonPath: string): Schema | undefined {
  let node: Schema | undefined = root;
  for (const step of jsonPath
    .replace(/\[\?\([^)]*\)\]/g, '[]')
    .split('.')
    .slice(1)) {
    const [field, ...brackets] = step.split('[');
    node = field === 'metadata' && node === root ? { type: 'object', properties: { creationTimestamp: { type: 'string' } } } : node?.properties?.[field];
    for (let i = 0; i < brackets.length; i++) node = node?.items;
  }
  return node;
}

const CREATED = '2026-01-02T03:04:05Z';

function condition(type: string, status: string, reason: string) {
  return { type, status, reason, message: '', observedGeneration: 1, lastTransitionTime: CREATED };
}

/** The sample as the operator leaves it after a deploy. */
function deployed(resource: Resource): Resource {
  const dmn = resource.kind === 'DecisionDefinition';
  return {
    ...resource,
    metadata: { ...resource.metadata, creationTimestamp: CREATED, generation: 1 },
    status: {
      observedGeneration: 1,
      conditions: [condition('Reconciling', 'False', 'Deployed'), condition('Stalled', 'False', 'Deployed'), condition('Ready', 'True', 'Deployed')],
      ...(dmn ? { decisionIds: ['carrier', 'zone'] } : { processId: 'order' }),
      version: 3,
    },
  };
}

/** The sample with a model Orca refused: Stalled, never deployed. */
function stalled(resource: Resource): Resource {
  return {
    ...resource,
    metadata: { ...resource.metadata, creationTimestamp: CREATED, generation: 1 },
    status: {
      observedGeneration: 1,
      conditions: [condition('Ready', 'False', 'ModelInvalid'), condition('Stalled', 'True', 'ModelInvalid')],
      error: { code: 'MODEL_INVALID', message: 'bad' },
    },
  };
}

function columns(crd: Crd): PrinterColumn[] {
  return crd.spec.versions[0].additionalPrinterColumns ?? [];
}

describe('printer columns', () => {
  it('are Ready, the ids, Version and Age', () => {
    const byKind = Object.fromEntries(crds.map((crd) => [crd.spec.names.kind, columns(crd).map((c) => `${c.name}:${c.type}`)]));
    expect(byKind).toEqual({
      ProcessDefinition: ['Ready:string', 'Process ID:string', 'Version:integer', 'Age:date'],
      DecisionDefinition: ['Ready:string', 'Decision IDs:string', 'Version:integer', 'Age:date'],
    });
  });

  it.each(crds.flatMap((crd) => columns(crd).map((column) => [crd.spec.names.kind, column.name, crd, column] as const)))(
    '%s %s: its path leads to a field of the schema, of its type',
    (_kind, _name, crd, column) => {
      const node = schemaAt(crd.spec.versions[0].schema.openAPIV3Schema, column.jsonPath);
      expect(node, column.jsonPath).toBeDefined();
      const expected: Record<string, string[]> = { string: ['string', 'array'], integer: ['integer'], date: ['string'] };
      expect(expected[column.type]).toContain(node!.type);
    },
  );

  it('there are samples of both kinds to show them on', () => {
    expect(new Set(samples.map(({ resource }) => resource.kind))).toEqual(new Set(['ProcessDefinition', 'DecisionDefinition']));
  });

  it.each(samples.map(({ file, resource }) => [file, resource.metadata.name, resource] as const))(
    '%s (%s): deployed, then stalled',
    (_file, _name, resource) => {
      const { crd } = crdFor(crds, resource.apiVersion, resource.kind)!;
      const ids = resource.kind === 'DecisionDefinition' ? '[carrier zone]' : 'order';
      expect(columns(crd).map((column) => cell(column, deployed(resource)))).toEqual(['True', ids, 3, CREATED]);
      expect(columns(crd).map((column) => cell(column, stalled(resource)))).toEqual(['False', null, null, CREATED]);
      expect(columns(crd).map((column) => cell(column, { ...resource, metadata: { ...resource.metadata, creationTimestamp: CREATED } }))).toEqual([
        null,
        null,
        null,
        CREATED,
      ]);
    },
  );
});
