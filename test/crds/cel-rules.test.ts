// Every CEL rule (x-kubernetes-validations) in crds/ evaluated the way the
// API server does, with @marcbachmann/cel-js: `self` is the value at the
// rule's node and, in a transition rule (one that reads `oldSelf`), `oldSelf`
// is the stored value, so those rules run on updates only. Each rule must
// type-check to a bool against its node's schema, name only fields that
// exist, and be seen both to pass and to fail on the fixture pairs below.
import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { readCrds, walkSchema, type Schema } from './crd-documents.ts';

interface Rule {
  kind: string;
  path: string;
  node: Schema;
  rule: string;
  message: string;
  transition: boolean;
}

const rules: Rule[] = readCrds().flatMap(({ crd }) => {
  const found: Rule[] = [];
  walkSchema(crd.spec.versions[0].schema.openAPIV3Schema, (node, path) => {
    for (const { rule, message } of node['x-kubernetes-validations'] ?? []) {
      found.push({ kind: crd.spec.names.kind, path, node, rule, message: message ?? rule, transition: /\boldSelf\b/.test(rule) });
    }
  });
  return found;
});

type CelSchema = string | { [field: string]: CelSchema };

/** The schema cel-js checks `self` against, from the node's openAPIV3Schema. */
function celSchema(node: Schema): CelSchema {
  switch (node.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'array':
      return node.items?.type === 'string' ? 'list<string>' : 'list<dyn>';
    case 'object':
      return Object.fromEntries(Object.entries(node.properties ?? {}).map(([name, child]) => [name, celSchema(child)]));
    default:
      return 'dyn';
  }
}

function environment(rule: Rule): Environment {
  const schema = celSchema(rule.node) as Record<string, CelSchema>;
  return new Environment().registerVariable({ name: 'self', schema }).registerVariable({ name: 'oldSelf', schema });
}

/** The messages of the rules at `path` of `kind` that refuse `value` (created when `old` is undefined, else updated from it). */
function refusals(kind: string, path: string, value: object, old?: object): string[] {
  return rules
    .filter((r) => r.kind === kind && r.path === path && (old !== undefined || !r.transition))
    .filter((r) => environment(r).evaluate(r.rule, { self: value, oldSelf: old ?? {} }) !== true)
    .map((r) => r.message);
}

const KINDS = [
  { kind: 'ProcessDefinition', inline: 'bpmnXml', id: 'processId', model: '<bpmn:definitions/>' },
  { kind: 'DecisionDefinition', inline: 'dmnXml', id: 'decisionId', model: '<definitions/>' },
] as const;

const EXACTLY_ONE = /^set exactly one of spec\.(bpmn|dmn)Xml and spec\.configMapRef$/;
const IMMUTABLE = /^spec\.(processId|decisionId) cannot be changed or removed once set/;

describe('the CEL rules', () => {
  it('are there: exactly one source and the immutable id, on each kind', () => {
    expect(rules.map((r) => [r.kind, r.path, r.transition])).toEqual([
      ['DecisionDefinition', '.spec', false],
      ['DecisionDefinition', '.spec', true],
      ['ProcessDefinition', '.spec', false],
      ['ProcessDefinition', '.spec', true],
    ]);
  });

  it.each(rules.map((r) => [`${r.kind} ${r.path}: ${r.rule}`, r] as const))('%s type-checks to a bool and names only fields of its schema', (_, rule) => {
    const checked = environment(rule).check(rule.rule);
    expect(checked.error).toBeUndefined();
    expect(checked.type).toBe('bool');
    for (const [, , fields] of rule.rule.matchAll(/\b(self|oldSelf)((?:\.[A-Za-z_]\w*)+)/g)) {
      let node: Schema | undefined = rule.node;
      for (const field of fields.slice(1).split('.')) node = node?.properties?.[field];
      expect(node, `${fields} in ${rule.rule}`).toBeDefined();
    }
  });
});

describe.each(KINDS)('$kind', ({ kind, inline, id, model }) => {
  const ref = { apiKeySecretRef: { name: 'orca-api-key', key: 'apiKey' } };
  const configMapRef = { name: 'models', key: 'model.xml' };
  const refused = (value: object, old?: object) => refusals(kind, '.spec', value, old);

  describe('on create', () => {
    it('takes the model inline or from a ConfigMap', () => {
      expect(refused({ ...ref, [inline]: model })).toEqual([]);
      expect(refused({ ...ref, configMapRef })).toEqual([]);
      expect(refused({ ...ref, [inline]: model, [id]: 'order' })).toEqual([]);
    });

    it('refuses both sources, and neither', () => {
      for (const spec of [{ ...ref, [inline]: model, configMapRef }, { ...ref }]) {
        const messages = refused(spec);
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatch(EXACTLY_ONE);
        expect(messages[0]).toContain(inline);
      }
    });

    it('does not run the transition rule', () => {
      // A create has no oldSelf: the id may be anything.
      expect(refused({ ...ref, [inline]: model, [id]: 'anything' })).toEqual([]);
    });
  });

  describe('on update', () => {
    const before = { ...ref, [inline]: model, [id]: 'order' };

    it('keeps an id that stays the same, whatever else changes', () => {
      expect(refused({ ...before, [inline]: `${model}<!-- v2 -->` }, before)).toEqual([]);
      expect(refused({ ...ref, configMapRef, [id]: 'order' }, before)).toEqual([]);
    });

    it('refuses a changed or removed id', () => {
      for (const after of [
        { ...before, [id]: 'other' },
        { ...ref, [inline]: model },
      ]) {
        const messages = refused(after, before);
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatch(IMMUTABLE);
        expect(messages[0]).toContain(id);
      }
    });

    it('lets an id be set where there was none', () => {
      const unnamed = { ...ref, [inline]: model };
      expect(refused({ ...unnamed, [id]: 'order' }, unnamed)).toEqual([]);
      expect(refused(unnamed, unnamed)).toEqual([]);
    });

    it('still holds the source rule', () => {
      expect(refused({ ...before, configMapRef }, before)).toEqual([expect.stringMatching(EXACTLY_ONE)]);
      expect(refused({ ...ref, [id]: 'other' }, before)).toEqual([expect.stringMatching(EXACTLY_ONE), expect.stringMatching(IMMUTABLE)]);
    });
  });
});
