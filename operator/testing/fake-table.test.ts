// Server-side printing's pieces: the JSONPath subset of CRD printer columns,
// kubectl's short ages, and the Table built from the agreed Orca columns.
import { describe, expect, it } from 'vitest';
import { ORCA_TYPES } from './fake-resources.ts';
import { age, evaluatePath, table, wantsTable } from './fake-table.ts';

const pd = {
  apiVersion: 'orca.dev/v1alpha1',
  kind: 'ProcessDefinition',
  metadata: { name: 'order', namespace: 'default', creationTimestamp: new Date(Date.now() - 90_000).toISOString() },
  status: {
    processId: 'order',
    version: 3,
    conditions: [
      { type: 'Reconciling', status: 'False' },
      { type: 'Ready', status: 'True' },
    ],
  },
};

describe('printer column paths', () => {
  it('follows fields, indexes and an equality filter', () => {
    expect(evaluatePath(pd, '.status.conditions[?(@.type=="Ready")].status')).toEqual(['True']);
    expect(evaluatePath(pd, ".status.conditions[?(@.type=='Stalled')].status")).toEqual([]);
    expect(evaluatePath(pd, '.status.conditions[0].type')).toEqual(['Reconciling']);
    expect(evaluatePath(pd, '.status.version')).toEqual([3]);
    expect(evaluatePath(pd, '.spec.missing')).toEqual([]);
  });

  it('refuses paths beyond the subset instead of guessing', () => {
    expect(() => evaluatePath(pd, '.status.conditions[*].type')).toThrow(/unsupported printer column path/);
  });
});

describe('age', () => {
  const now = Date.parse('2026-01-10T00:00:00Z');
  it.each([
    ['2026-01-09T23:59:18Z', '42s'],
    ['2026-01-09T23:55:00Z', '5m'],
    ['2026-01-09T21:00:00Z', '3h'],
    ['2025-12-29T00:00:00Z', '12d'],
    ['not a time', '<unknown>'],
  ])('%s is %s', (timestamp, expected) => {
    expect(age(timestamp, now)).toBe(expected);
  });
});

describe('table', () => {
  it('prints Name and the CRD columns, the first filter result as the cell, absent values as null', () => {
    const printed = table(ORCA_TYPES[0], [pd, { ...pd, metadata: { ...pd.metadata, name: 'new' }, status: undefined }], '7');
    expect(printed).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '7' } });
    expect((printed.columnDefinitions as { name: string }[]).map((column) => column.name)).toEqual(['Name', 'Ready', 'Process ID', 'Version', 'Age']);
    expect((printed.rows as { cells: unknown[] }[]).map((row) => row.cells)).toEqual([
      ['order', 'True', 'order', 3, '90s'],
      ['new', null, null, null, '90s'],
    ]);
    expect((printed.rows as { object: unknown }[])[0].object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pd.metadata });
  });

  it('is what kubectl asks for, not what client libraries ask for', () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json')).toBe(false);
    expect(wantsTable(undefined)).toBe(false);
  });
});
