// The discovery documents of the fake API server (/version, /api, /api/v1,
// /apis, /apis/<group>, /apis/<group>/<version>), in the legacy (unaggregated)
// shapes client libraries and kubectl fall back to, built from the served
// resource table so a client finds exactly what the fake stores.
import type { ResourceType } from './fake-resources.ts';

const VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '34',
    gitVersion: 'v1.34.0-orca-fake',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.24.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function coreVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupVersions(types: readonly ResourceType[], group: string): string[] {
  return [...new Set(types.filter((type) => type.group === group).map((type) => type.version))];
}

function apiGroup(types: readonly ResourceType[], group: string): Record<string, unknown> {
  const versions = groupVersions(types, group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function groupList(types: readonly ResourceType[]): Record<string, unknown> {
  const groups = [...new Set(types.map((type) => type.group).filter((group) => group !== ''))];
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((group) => apiGroup(types, group)) };
}

export function group(types: readonly ResourceType[], name: string): Record<string, unknown> | undefined {
  if (!types.some((type) => type.group === name)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(types, name) };
}

export function resourceList(types: readonly ResourceType[], group: string, version: string): Record<string, unknown> | undefined {
  const served = types.filter((type) => type.group === group && type.version === version);
  if (served.length === 0) return undefined;
  const resources = served.flatMap((type) => {
    const main = {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: VERBS,
      ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
      ...(type.categories.length > 0 ? { categories: type.categories } : {}),
    };
    if (!type.statusSubresource) return [main];
    return [main, { name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: ['get', 'patch', 'update'] }];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}
