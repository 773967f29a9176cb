// What the API server does with an orca.dev resource before storing it, for
// the tests: prune the fields the schema does not know, apply its defaults,
// validate the openAPIV3Schema (ajv), then run the CEL rules at each object
// node (@marcbachmann/cel-js), transition rules only on updates. Metadata is
// the API server's own and is left alone.
import { Environment } from '@marcbachmann/cel-js';
import { Ajv, type ValidateFunction } from 'ajv';
import { crdFor, walkSchema, type Crd, type Resource, type Schema } from './crd-documents.ts';

export type Admission = { ok: true; stored: Resource } | { ok: false; errors: string[] };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function newAjv(): Ajv {
  // removeAdditional 'all' is the API server's pruning; useDefaults its defaulting.
  const ajv = new Ajv({ strict: false, allErrors: true, removeAdditional: 'all', useDefaults: true });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('date-time', RFC3339);
  return ajv;
}

const validators = new WeakMap<Schema, ValidateFunction>();

function validatorFor(root: Schema): ValidateFunction {
  let validate = validators.get(root);
  if (!validate) {
    // metadata is validated by the API server itself; a schema without properties would prune it bare.
    const { metadata: _metadata, ...properties } = root.properties ?? {};
    validate = newAjv().compile({ ...root, properties });
    validators.set(root, validate);
  }
  return validate;
}

function valueAt(object: unknown, path: string): unknown {
  let value = object;
  for (const field of path.split('.').slice(1)) value = value === undefined || value === null ? undefined : (value as Record<string, unknown>)[field];
  return value;
}

/** The messages of the CEL rules of `root` that refuse `object` (updated from `old` when given). */
export function celRefusals(root: Schema, object: unknown, old?: unknown): string[] {
  const messages: string[] = [];
  walkSchema(root, (node, path) => {
    // Rules on list items and map values would need one evaluation per element; Orca's CRDs have none.
    if (path.includes('[]') || path.includes('{}')) return;
    const self = valueAt(object, path === '.' ? '' : path);
    if (self === undefined) return;
    const oldSelf = old === undefined ? undefined : valueAt(old, path === '.' ? '' : path);
    for (const { rule, message } of node['x-kubernetes-validations'] ?? []) {
      const transition = /\boldSelf\b/.test(rule);
      if (transition && oldSelf === undefined) continue;
      const env = new Environment({ unlistedVariablesAreDyn: true });
      if (env.evaluate(rule, { self, oldSelf: oldSelf ?? {} }) !== true) messages.push(`${path.slice(1) || '<root>'}: ${message ?? rule}`);
    }
  });
  return messages;
}

/** Admits `resource` as the API server would (a create, or an update of `old`), returning what it would store or why not. */
export function admit(crds: Crd[], resource: Resource, old?: Resource): Admission {
  const served = crdFor(crds, resource.apiVersion, resource.kind);
  if (!served) return { ok: false, errors: [`no CRD serves ${resource.apiVersion} ${resource.kind}`] };
  const root = served.version.schema.openAPIV3Schema;
  const stored = structuredClone(resource);
  const validate = validatorFor(root);
  if (!validate(stored)) return { ok: false, errors: (validate.errors ?? []).map((e) => `${e.instancePath || '<root>'}: ${e.message}`) };
  const refused = celRefusals(root, stored, old);
  return refused.length > 0 ? { ok: false, errors: refused } : { ok: true, stored };
}
