// values.schema.json refuses what it does not know, at every level
// (Camunda spent a year retrofitting that): every object in it either has
// additionalProperties: false or is a map of strings (labels, annotations,
// a node selector), helm refuses an unknown or misspelt key wherever it is,
// and values.yaml and the schema describe the same keys.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { CHART_DIR, CI_DIR, CI_VALUES, helm, NAMESPACE, RELEASE } from './render.ts';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  $ref?: string;
  definitions?: Record<string, JsonSchema>;
}

const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as JsonSchema;
const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Record<string, unknown>;

function resolveRef(node: JsonSchema): JsonSchema {
  return node.$ref ? schema.definitions![node.$ref.replace('#/definitions/', '')] : node;
}

/** Every object node of the schema (following $refs) with its path. */
function objectNodes(node: JsonSchema, path: string, out: [string, JsonSchema][] = []): [string, JsonSchema][] {
  const resolved = resolveRef(node);
  const types = [resolved.type].flat();
  if (types.includes('object')) out.push([path, resolved]);
  for (const [name, child] of Object.entries(resolved.properties ?? {})) objectNodes(child, `${path}.${name}`, out);
  if (resolved.items) objectNodes(resolved.items, `${path}[]`, out);
  return out;
}

const STRING_MAP = { type: 'string' };

/** Where a values tree stops being the chart's own keys: Kubernetes resource lists and maps of strings are leaves. */
function isLeaf(node: JsonSchema): boolean {
  return node.$ref === '#/definitions/resources' || !resolveRef(node).properties;
}

/** The dotted paths of the leaves of a values document, its tree read as far as the schema has keys of its own. */
function valuePaths(node: unknown, at: JsonSchema | undefined, path = ''): string[] {
  if (at === undefined || isLeaf(at) || node === null || typeof node !== 'object' || Array.isArray(node)) return [path];
  return Object.entries(node).flatMap(([key, child]) => valuePaths(child, resolveRef(at).properties?.[key], path ? `${path}.${key}` : key));
}

/** The dotted paths of the schema's own keys. */
function schemaPaths(node: JsonSchema, path = ''): string[] {
  if (isLeaf(node)) return [path];
  return Object.entries(resolveRef(node).properties!).flatMap(([key, child]) => schemaPaths(child, path ? `${path}.${key}` : key));
}

function template(...args: string[]) {
  return helm(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, ...args]);
}

describe('values.schema.json', () => {
  it('closes every object, except the maps of strings', () => {
    const nodes = objectNodes(schema, '');
    expect(nodes.length).toBeGreaterThan(40);
    for (const [path, node] of nodes) {
      if (node.additionalProperties === false) continue;
      expect(node.additionalProperties, `${path || '<root>'} must have additionalProperties: false or be a map of strings`).toEqual(STRING_MAP);
      expect(node.properties, path).toBeUndefined();
    }
  });

  it('and values.yaml describe the same keys', () => {
    expect(valuePaths(values, schema).sort()).toEqual(schemaPaths(schema).sort());
  });

  it('admits values.yaml and every ci values file merged over it', () => {
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
    for (const name of CI_VALUES) {
      const overrides = (parse(readFileSync(join(CI_DIR, `${name}.yaml`), 'utf8')) ?? {}) as Record<string, Record<string, unknown>>;
      const merged = structuredClone(values) as Record<string, unknown>;
      for (const [key, value] of Object.entries(overrides))
        merged[key] = typeof value === 'object' && !Array.isArray(value) ? { ...(values[key] as object), ...value } : value;
      expect(validate(merged), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});

describe.skipIf(!TOOLS)(`helm refuses unknown keys ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it.each([
    ['at the top', ['--set', 'replicaCount=3'], "at '': additional properties 'replicaCount' not allowed"],
    ['in a section', ['--set', 'api.replicas=3'], "at '/api': additional properties 'replicas' not allowed"],
    [
      'deep down',
      ['--set', 'api.autoscaling.targetMemoryUtilizationPercentage=80'],
      "at '/api/autoscaling': additional properties 'targetMemoryUtilizationPercentage' not allowed",
    ],
    ['in a shared definition', ['--set-string', 'engine.resources.requests.gpu=1'], "at '/engine/resources/requests': additional properties 'gpu' not allowed"],
    [
      'in a list item',
      ['--set', 'operator.extraEnv[0].name=A', '--set', 'operator.extraEnv[0].valeu=b'],
      "at '/operator/extraEnv/0': additional properties 'valeu' not allowed",
    ],
  ])('%s', (_where, args, message) => {
    const run = template(...args);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('refuses a value of the wrong kind, and a missing Secret name', () => {
    expect(template('--set', 'engine.replicaCount=two').stderr).toContain("at '/engine/replicaCount'");
    expect(template('--set', 'postgresql.existingSecret=').stderr).toContain("at '/postgresql/existingSecret'");
  });

  it('takes any key in a map of strings', () => {
    const run = template('--set', 'commonLabels.cost-centre=42x', '--set', 'api.nodeSelector.disktype=ssd');
    expect(run.stderr.split('\n').filter((line) => line !== '' && !line.includes('found symbolic link'))).toEqual([]);
    expect(run.stdout).toContain('cost-centre: 42x');
    expect(run.stdout).toContain('disktype: ssd');
  });
});
