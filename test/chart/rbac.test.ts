// The operator's RBAC as rendered: its own resources, their status and
// finalizers, read-only ConfigMaps and Secrets (never a write verb on
// Secrets, no wildcard anywhere), Events, and its Lease in the release's
// namespace only; cluster-wide by default, confined to watchNamespace by a
// Role when that is set.
import { describe, expect, it } from 'vitest';
import { TOOLS, TOOLS_SKIP } from './helm-tools.ts';
import { CI_VALUES, NAMESPACE, render, type K8sObject } from './render.ts';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const READ = ['get', 'list', 'watch'];

function roles(objects: K8sObject[]): (K8sObject & { rules: Rule[] })[] {
  return objects.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole') as (K8sObject & { rules: Rule[] })[];
}

/** Every (group, resource, verb) the rules grant, as "group/resource:verb". */
function grants(rules: Rule[]): string[] {
  return rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g || 'core'}/${res}:${v}`)))).sort();
}

const EXPECTED_WATCHED = [
  ...['processdefinitions', 'decisiondefinitions'].flatMap((res) => ['get', 'list', 'watch', 'update', 'patch'].map((v) => `orca.dev/${res}:${v}`)),
  ...['processdefinitions/status', 'decisiondefinitions/status'].flatMap((res) => ['get', 'update', 'patch'].map((v) => `orca.dev/${res}:${v}`)),
  'orca.dev/processdefinitions/finalizers:update',
  'orca.dev/decisiondefinitions/finalizers:update',
  ...READ.map((v) => `core/configmaps:${v}`),
  ...READ.map((v) => `core/secrets:${v}`),
  'core/events:create',
  'core/events:patch',
  'events.k8s.io/events:create',
  'events.k8s.io/events:patch',
].sort();

describe.skipIf(!TOOLS)(`the operator's RBAC ${TOOLS ? '' : TOOLS_SKIP}`, () => {
  it.each(CI_VALUES)('%s: no write verb on Secrets and no wildcard, in any role', (values) => {
    for (const role of roles(render(values))) {
      for (const rule of role.rules) {
        for (const list of [rule.apiGroups, rule.resources, rule.verbs]) expect(list, role.metadata.name).not.toContain('*');
        if (rule.resources.includes('secrets'))
          expect(
            rule.verbs.filter((v) => !READ.includes(v)),
            role.metadata.name,
          ).toEqual([]);
      }
    }
  });

  it('by default: a ClusterRole with exactly what the operator needs, bound to its ServiceAccount', () => {
    const objects = render('default');
    const [cluster] = roles(objects).filter((r) => r.kind === 'ClusterRole');
    expect(grants(cluster.rules)).toEqual(EXPECTED_WATCHED);
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding') as K8sObject & { roleRef: { kind: string; name: string }; subjects: unknown[] };
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: cluster.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'orca-operator', namespace: NAMESPACE }]);
  });

  it.each(['default', 'watch-namespace'])('%s: the Lease by a Role in the release namespace, get and update on orca-operator only', (values) => {
    const [lease] = roles(render(values)).filter((r) => r.rules.some((rule) => rule.resources.includes('leases')));
    expect(lease.kind).toBe('Role');
    expect(lease.metadata.namespace).toBe(NAMESPACE);
    expect(lease.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['orca-operator'], verbs: ['get', 'update'] },
    ]);
  });

  it('with watchNamespace: no cluster-wide grant, a Role in that namespace instead', () => {
    const objects = render('watch-namespace');
    expect(objects.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
    const [watched] = roles(objects).filter((r) => r.metadata.namespace === 'workflows');
    expect(grants(watched.rules)).toEqual(EXPECTED_WATCHED);
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'workflows') as K8sObject & { roleRef: { name: string } };
    expect(binding.roleRef.name).toBe(watched.metadata.name);
  });

  it('without the operator: no RBAC at all', () => {
    const objects = render('operator-off');
    expect(objects.filter((o) => o.apiVersion.startsWith('rbac.authorization.k8s.io/') || o.kind === 'ServiceAccount')).toEqual([]);
  });
});
