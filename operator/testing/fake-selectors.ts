// Label and field selectors for the fake API server's lists and watches:
// the label grammar kubectl and client libraries send (=, ==, !=, in, notin,
// exists, !exists) and the field selectors every resource supports
// (metadata.name, metadata.namespace), and a Secret's type. A selector the server cannot parse
// is a 400, as on a real cluster.
import { badRequest } from './fake-status.ts';

export type Selector = (object: KubeObject) => boolean;

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Splits on commas outside parentheses. */
function requirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

export function parseLabelSelector(text: string | null): Selector {
  if (!text) return () => true;
  const tests = requirements(text).map((requirement): Selector => {
    const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(requirement);
    if (set) {
      const [, key, op, list] = set;
      const values = new Set(list.split(',').map((value) => value.trim()));
      return op === 'in' ? (object) => values.has(object.metadata.labels?.[key] as string) : (object) => !values.has(object.metadata.labels?.[key] as string);
    }
    const compare = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s]*)$/.exec(requirement);
    if (compare) {
      const [, key, op, value] = compare;
      return op === '!=' ? (object) => object.metadata.labels?.[key] !== value : (object) => object.metadata.labels?.[key] === value;
    }
    const exists = /^(!?)([^\s!=(),]+)$/.exec(requirement);
    if (exists) {
      const [, not, key] = exists;
      return not ? (object) => object.metadata.labels?.[key] === undefined : (object) => object.metadata.labels?.[key] !== undefined;
    }
    throw badRequest(`unable to parse requirement: invalid label selector "${requirement}"`);
  });
  return (object) => tests.every((test) => test(object));
}

type Field = (object: KubeObject) => string | undefined;

const FIELDS: Record<string, Field> = {
  'metadata.name': (object) => object.metadata.name,
  'metadata.namespace': (object) => object.metadata.namespace,
};

/** Fields only some kinds can be selected by, as the real server registers them. */
const KIND_FIELDS: Record<string, Record<string, Field>> = {
  Secret: { type: (object) => object.type as string | undefined },
};

export function parseFieldSelector(text: string | null, kind?: string): Selector {
  if (!text) return () => true;
  const known = { ...FIELDS, ...(kind === undefined ? {} : KIND_FIELDS[kind]) };
  const tests = text.split(',').map((requirement): Selector => {
    const match = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(requirement.trim());
    const field = match ? known[match[1]] : undefined;
    if (!match || !field) {
      throw badRequest(
        `"${requirement}" is not a known field selector: only ${Object.keys(known)
          .map((name) => `"${name}"`)
          .join(', ')}`,
      );
    }
    const [, , op, value] = match;
    return op === '!=' ? (object) => field(object) !== value : (object) => field(object) === value;
  });
  return (object) => tests.every((test) => test(object));
}
