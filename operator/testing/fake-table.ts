// Server-side printing: the meta.k8s.io/v1 Table that `kubectl get` asks for
// (Accept: application/json;as=Table;v=v1;g=meta.k8s.io), so kubectl shows a
// custom resource's additionalPrinterColumns (Ready, Process ID, Version,
// Age) as it would on a cluster. Column paths are the simple JSONPath CRDs
// allow (fields, indexes, one [?(@.field=="value")] filter); the first result
// is the cell, as the apiserver's CRD table convertor takes it. Built-in types
// get Name and Age only.
import type { PrinterColumn, ResourceType } from './fake-resources.ts';
import type { KubeObject } from './fake-selectors.ts';

export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

type Step = { field: string } | { index: number } | { filter: { field: string; value: unknown } };

function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  const pattern = /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_-]+)\s*==\s*("[^"]*"|'[^']*'|[-\d.]+|true|false)\)\]/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < path.length && (match = pattern.exec(path)) !== null) {
    at = pattern.lastIndex;
    if (match[1] !== undefined) steps.push({ field: match[1] });
    else if (match[2] !== undefined) steps.push({ index: Number(match[2]) });
    else {
      const literal = match[4];
      const value = /^["']/.test(literal) ? literal.slice(1, -1) : JSON.parse(literal);
      steps.push({ filter: { field: match[3], value } });
    }
  }
  if (at !== path.length) throw new Error(`unsupported printer column path "${path}"`);
  return steps;
}

/** Every value the path reaches in `object`. */
export function evaluatePath(object: unknown, path: string): unknown[] {
  let values: unknown[] = [object];
  for (const step of parsePath(path)) {
    values = values.flatMap((value): unknown[] => {
      if (value === null || typeof value !== 'object') return [];
      if ('field' in step) {
        const next = (value as Record<string, unknown>)[step.field];
        return next === undefined ? [] : [next];
      }
      if (!Array.isArray(value)) return [];
      if ('index' in step) return step.index < value.length ? [value[step.index]] : [];
      return value.filter((item) => item !== null && typeof item === 'object' && (item as Record<string, unknown>)[step.filter.field] === step.filter.value);
    });
  }
  return values;
}

/** kubectl's short ages: 42s, 5m, 3h, 12d. */
export function age(timestamp: unknown, now = Date.now()): string {
  const then = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(then)) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - then) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
};
const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function cell(object: KubeObject, column: PrinterColumn): unknown {
  const [value] = evaluatePath(object, column.jsonPath);
  if (value === undefined || value === null) return null;
  if (column.type === 'date') return age(value);
  if (column.type === 'string') return typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}

export function table(resource: ResourceType, objects: KubeObject[], resourceVersion: string): Record<string, unknown> {
  const columns = resource.printerColumns.length > 0 ? resource.printerColumns : [AGE_COLUMN];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      NAME_COLUMN,
      ...columns.map((column) => ({ name: column.name, type: column.type, format: '', description: column.description ?? '', priority: column.priority ?? 0 })),
    ],
    rows: objects.map((object) => ({
      cells: [object.metadata.name, ...columns.map((column) => cell(object, column))],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
    })),
  };
}
