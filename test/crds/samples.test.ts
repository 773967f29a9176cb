// The samples in crds/samples/ are what docs/kubernetes.md tells people to
// apply, so each must be admitted by its CRD as the API server would
// (test/crds/admit.ts: pruning, defaults, schema, CEL), the ConfigMaps beside
// them must be valid ConfigMaps, and the models they carry must compile
// with Orca's own compiler, with the ids their specs name. The same
// admission refuses what the schema is there to refuse.
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describe, expect, it } from 'vitest';
import { compileDmn } from '../../engine/dmn/index.ts';
import { compileBpmn } from '../../engine/model/index.ts';
import { admit } from './admit.ts';
import { readCrds, readSamples, type Resource } from './crd-documents.ts';

const crds = readCrds().map(({ crd }) => crd);
const samples = readSamples();
const orca = samples.filter(({ resource }) => resource.apiVersion.startsWith('orca.dev/'));

/** The model XML a sample's spec names: inline, or from a ConfigMap in the same file. */
function modelOf(file: string, resource: Resource): string {
  const spec = resource.spec as { bpmnXml?: string; dmnXml?: string; configMapRef?: { name: string; key: string } };
  const inline = spec.bpmnXml ?? spec.dmnXml;
  if (inline !== undefined) return inline;
  const configMap = samples.find((s) => s.file === file && s.resource.kind === 'ConfigMap' && s.resource.metadata.name === spec.configMapRef!.name);
  const xml = configMap?.resource.data?.[spec.configMapRef!.key];
  if (xml === undefined) throw new Error(`${file}: no ConfigMap ${spec.configMapRef!.name} with key ${spec.configMapRef!.key}`);
  return xml;
}

describe('crds/samples', () => {
  it('show both kinds, both sources and both deletion policies', () => {
    const specs = orca.map(({ resource }) => resource.spec as Record<string, unknown>);
    expect(new Set(orca.map(({ resource }) => resource.kind))).toEqual(new Set(['ProcessDefinition', 'DecisionDefinition']));
    expect(specs.some((s) => 'configMapRef' in s)).toBe(true);
    expect(specs.some((s) => 'bpmnXml' in s || 'dmnXml' in s)).toBe(true);
    expect(specs.some((s) => s.deletionPolicy === 'Delete')).toBe(true);
    expect(specs.some((s) => s.deletionPolicy === undefined)).toBe(true);
  });

  it.each(orca.map(({ file, resource }) => [file, resource.metadata.name, resource] as const))(
    '%s (%s) is admitted, with the defaults filled in',
    (_file, _name, resource) => {
      const admitted = admit(crds, resource);
      expect(admitted).toMatchObject({ ok: true });
      if (!admitted.ok) return;
      const spec = admitted.stored.spec as { deletionPolicy: string; apiKeySecretRef: { key: string } };
      expect(spec.deletionPolicy).toBe((resource.spec as { deletionPolicy?: string }).deletionPolicy ?? 'Retain');
      expect(spec.apiKeySecretRef.key).toBe('apiKey');
    },
  );

  it.each(samples.filter(({ resource }) => resource.kind === 'ConfigMap').map(({ file, resource }) => [file, resource] as const))(
    '%s: the ConfigMap is a valid one',
    (_file, resource) => {
      expect(() => new ConfigMap(resource as never).validate()).not.toThrow();
    },
  );

  it.each(orca.map(({ file, resource }) => [file, resource.metadata.name, resource] as const))(
    '%s (%s): the model compiles, with the id the spec names',
    (file, _name, resource) => {
      const xml = modelOf(file, resource);
      const spec = resource.spec as { processId?: string; decisionId?: string };
      if (resource.kind === 'ProcessDefinition') {
        const compiled = compileBpmn(xml);
        expect(compiled.ok ? [] : compiled.problems).toEqual([]);
        if (compiled.ok && spec.processId !== undefined) expect(compiled.model.processes.map((p) => p.id)).toEqual([spec.processId]);
      } else {
        const compiled = compileDmn(xml);
        expect(compiled.ok ? [] : compiled.problems).toEqual([]);
        if (compiled.ok && spec.decisionId !== undefined) expect(compiled.model.decisions.map((d) => d.id)).toContain(spec.decisionId);
      }
    },
  );
});

describe('admission refuses', () => {
  const [sample] = orca.filter(({ resource }) => resource.kind === 'ProcessDefinition' && 'bpmnXml' in resource.spec!);
  const base = sample.resource;
  const withSpec = (spec: Record<string, unknown>, status?: Record<string, unknown>): Resource => ({ ...base, spec, ...(status ? { status } : {}) });
  const errors = (resource: Resource, old?: Resource) => {
    const admitted = admit(crds, resource, old);
    return admitted.ok ? [] : admitted.errors;
  };

  it('an inline model over 200 KiB', () => {
    expect(errors(withSpec({ ...base.spec, bpmnXml: 'x'.repeat(204_800) }))).toEqual([]);
    expect(errors(withSpec({ ...base.spec, bpmnXml: 'x'.repeat(204_801) }))).toEqual(['/spec/bpmnXml: must NOT have more than 204800 characters']);
  });

  it('no Secret reference, or an unknown deletion policy', () => {
    const { apiKeySecretRef: _ref, ...spec } = base.spec!;
    expect(errors(withSpec(spec))).toEqual(["/spec: must have required property 'apiKeySecretRef'"]);
    expect(errors(withSpec({ ...base.spec, deletionPolicy: 'Keep' }))).toEqual(['/spec/deletionPolicy: must be equal to one of the allowed values']);
  });

  it('a misspelt source: pruned, so the spec has none', () => {
    const { bpmnXml, ...spec } = base.spec!;
    expect(errors(withSpec({ ...spec, bpmnXML: bpmnXml }))).toEqual(['spec: set exactly one of spec.bpmnXml and spec.configMapRef']);
  });

  it('a changed process id on update, but not an unchanged one', () => {
    const stored = admit(crds, base);
    expect(stored.ok).toBe(true);
    if (!stored.ok) return;
    expect(errors(withSpec({ ...base.spec, processId: 'other' }), stored.stored)).toEqual([
      expect.stringMatching(/^spec: spec\.processId cannot be changed or removed once set/),
    ]);
    expect(errors(withSpec({ ...base.spec, bpmnXml: `${(base.spec as { bpmnXml: string }).bpmnXml}\n` }), stored.stored)).toEqual([]);
  });

  it('a status condition that is not kstatus-shaped', () => {
    const condition = { type: 'Ready', status: 'True', reason: 'Deployed', message: '', lastTransitionTime: '2026-01-02T03:04:05Z', observedGeneration: 1 };
    expect(errors(withSpec(base.spec!, { conditions: [condition], sourceChecksum: 'a'.repeat(64) }))).toEqual([]);
    expect(errors(withSpec(base.spec!, { conditions: [{ ...condition, status: 'true' }] }))).toEqual([
      '/status/conditions/0/status: must be equal to one of the allowed values',
    ]);
    expect(errors(withSpec(base.spec!, { conditions: [{ ...condition, reason: 'deploy failed' }] }))).toEqual([
      '/status/conditions/0/reason: must match pattern "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"',
    ]);
    expect(errors(withSpec(base.spec!, { sourceChecksum: 'not-hex' }))).toEqual(['/status/sourceChecksum: must match pattern "^[a-f0-9]{64}$"']);
  });
});
