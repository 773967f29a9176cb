// The CRDs in crds/ are what the API server accepts (issue 16): each a valid
// apiextensions.k8s.io/v1 CustomResourceDefinition (kubernetes-models'
// schema for it), with a structural schema by the rules the API server
// applies (every node typed, nothing forbidden, junctors only restricting),
// unknown fields pruned everywhere (no x-kubernetes-preserve-unknown-fields),
// defaults that pass their own schema, and the names and fields the operator
// and the fake API server rely on (docs/briefs' agreed shapes).
import { Ajv } from 'ajv';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { describe, expect, it } from 'vitest';
import { readCrds, walkSchema, type Crd, type Schema } from './crd-documents.ts';

const crds = readCrds();

/** Keywords a structural schema may not use anywhere (apiextensions validation). */
const FORBIDDEN = ['$ref', 'definitions', 'id', '$schema', 'additionalItems', 'patternProperties', 'dependencies'];
/** Keywords that are not allowed inside allOf / anyOf / oneOf / not: those only restrict what the outer schema declares. */
const NOT_IN_JUNCTORS = ['type', 'description', 'default', 'additionalProperties', 'nullable', 'x-kubernetes-preserve-unknown-fields'];
/** Where unknown fields are meant to be kept rather than pruned: nowhere in Orca's resources. */
const PRESERVE_UNKNOWN_FIELDS_AT: string[] = [];

function rootSchema(crd: Crd): Schema {
  return crd.spec.versions[0].schema.openAPIV3Schema;
}

/** The problems that would make the API server call the schema non-structural, one line each, with the path. */
function structuralProblems(schema: Schema): string[] {
  const problems: string[] = [];
  walkSchema(schema, (node, path, inJunctor) => {
    for (const keyword of FORBIDDEN) if (keyword in node) problems.push(`${path}: ${keyword} is forbidden`);
    if (node.uniqueItems === true) problems.push(`${path}: uniqueItems: true is forbidden`);
    if (node['x-kubernetes-preserve-unknown-fields'] === false) problems.push(`${path}: x-kubernetes-preserve-unknown-fields must be true or absent`);
    if (node.additionalProperties === false) problems.push(`${path}: additionalProperties: false is forbidden (pruning drops unknown fields)`);
    if (node.properties && node.additionalProperties !== undefined) problems.push(`${path}: properties and additionalProperties exclude each other`);
    if (inJunctor) {
      for (const keyword of NOT_IN_JUNCTORS) if (keyword in node) problems.push(`${path}: ${keyword} is not allowed inside a junctor`);
      return;
    }
    const typeless = node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
    if (!typeless && (typeof node.type !== 'string' || node.type === '')) problems.push(`${path}: has no type`);
    if (node.type === 'array' && !node.items) problems.push(`${path}: an array needs items`);
    if (node.type !== 'object' && node.properties) problems.push(`${path}: properties on a ${node.type}`);
  });
  return problems;
}

describe.each(crds)('$file', ({ file, crd }) => {
  const root = rootSchema(crd);

  it('is a valid apiextensions.k8s.io/v1 CustomResourceDefinition, named after its file', () => {
    expect(() => new CustomResourceDefinition(crd as never).validate()).not.toThrow();
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.${crd.spec.group}`);
    expect(file).toBe(`${crd.metadata.name}.yaml`);
  });

  it('serves orca.dev/v1alpha1, namespaced, with the status subresource', () => {
    expect(crd.spec.group).toBe('orca.dev');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha1', true, true]]);
    expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
  });

  it('has a structural schema', () => {
    expect(structuralProblems(root)).toEqual([]);
    // Only metadata's name and generateName may be restricted; Orca restricts neither.
    expect(root.properties?.metadata).toEqual({ type: 'object' });
    expect(Object.keys(root.properties ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  });

  it('keeps unknown fields nowhere: the API server prunes them', () => {
    const kept: string[] = [];
    walkSchema(root, (node, path) => {
      if (node['x-kubernetes-preserve-unknown-fields'] === true) kept.push(path);
    });
    expect(kept).toEqual(PRESERVE_UNKNOWN_FIELDS_AT);
  });

  it('has defaults that pass their own schema', () => {
    const ajv = new Ajv({ strict: false });
    const defaults: string[] = [];
    walkSchema(root, (node, path) => {
      if (!('default' in node)) return;
      defaults.push(path);
      expect(ajv.validate({ type: node.type, enum: node.enum, pattern: node.pattern, minLength: node.minLength }, node.default), path).toBe(true);
    });
    expect(defaults.length).toBeGreaterThan(0);
  });

  it('has map lists keyed by required fields', () => {
    walkSchema(root, (node, path) => {
      if (node['x-kubernetes-list-type'] !== 'map') return;
      const keys = node['x-kubernetes-list-map-keys'] as string[];
      expect(keys.length, path).toBeGreaterThan(0);
      for (const key of keys) expect(node.items?.required, path).toContain(key);
    });
  });

  it('carries the status the operator writes, kstatus conditions included', () => {
    const status = root.properties!.status;
    const condition = status.properties!.conditions.items!;
    expect(condition.properties!.type.enum).toEqual(['Ready', 'Reconciling', 'Stalled']);
    expect(condition.properties!.status.enum).toEqual(['True', 'False', 'Unknown']);
    expect(Object.keys(condition.properties!).sort()).toEqual(['lastTransitionTime', 'message', 'observedGeneration', 'reason', 'status', 'type']);
    const dmn = crd.spec.names.kind === 'DecisionDefinition';
    expect(Object.keys(status.properties!).sort()).toEqual(
      [
        'conditions',
        'deployedAt',
        'deployedChecksum',
        'error',
        'observedGeneration',
        'redeployToken',
        'sourceChecksum',
        'version',
        dmn ? 'decisionIds' : 'processId',
      ].sort(),
    );
    expect(status.properties!.error.required).toEqual(['code', 'message']);
  });
});

describe('the two kinds', () => {
  const byKind = new Map(crds.map(({ crd }) => [crd.spec.names.kind, crd]));

  it('are ProcessDefinition (orcapd) and DecisionDefinition (orcadd)', () => {
    expect(crds.map(({ file }) => file)).toEqual(['decisiondefinitions.orca.dev.yaml', 'processdefinitions.orca.dev.yaml']);
    expect(byKind.get('ProcessDefinition')!.spec.names).toMatchObject({ plural: 'processdefinitions', shortNames: ['orcapd'] });
    expect(byKind.get('DecisionDefinition')!.spec.names).toMatchObject({ plural: 'decisiondefinitions', shortNames: ['orcadd'] });
  });

  it.each([
    ['ProcessDefinition', 'bpmnXml', 'processId'],
    ['DecisionDefinition', 'dmnXml', 'decisionId'],
  ])('%s: the spec has the agreed fields, an inline model capped at 200 KiB and a required Secret reference', (kind, inline, id) => {
    const spec = rootSchema(byKind.get(kind)!).properties!.spec;
    expect(Object.keys(spec.properties!).sort()).toEqual(['apiKeySecretRef', 'configMapRef', 'deletionPolicy', id, inline].sort());
    expect(spec.properties![inline].maxLength).toBe(204800);
    expect(spec.required).toEqual(['apiKeySecretRef']);
    expect(spec.properties!.apiKeySecretRef.required).toEqual(['name']);
    expect(spec.properties!.apiKeySecretRef.properties!.key.default).toBe('apiKey');
    expect(spec.properties!.configMapRef.required).toEqual(['name', 'key']);
    expect(spec.properties!.deletionPolicy).toMatchObject({ enum: ['Retain', 'Delete'], default: 'Retain' });
  });
});

describe('the structural check itself', () => {
  it('finds what the API server refuses', () => {
    const bad: Schema = {
      type: 'object',
      properties: {
        untyped: { description: 'no type' },
        list: { type: 'array' },
        open: { type: 'object', additionalProperties: false },
        kept: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
        either: { type: 'string', anyOf: [{ type: 'string', pattern: '^a' }] },
        ref: { type: 'object', $ref: '#/x' },
      },
    };
    expect(structuralProblems(bad)).toEqual([
      '.untyped: has no type',
      '.list: an array needs items',
      '.open: additionalProperties: false is forbidden (pruning drops unknown fields)',
      '.kept: x-kubernetes-preserve-unknown-fields must be true or absent',
      '.either(anyOf[0]): type is not allowed inside a junctor',
      '.ref: $ref is forbidden',
    ]);
  });
});
