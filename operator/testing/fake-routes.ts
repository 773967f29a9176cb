// The REST surface of the fake API server: turns a request path into (resource
// type, namespace, name, subresource) the way the apiserver lays out its URLs,
// and runs list, get, create, update, patch and delete against the store.
// Patch bodies are merge patch and JSON patch on every type, server-side apply
// (simplified to create-or-merge) when a fieldManager is given, strategic merge
// on built-in types only (415 on custom resources, as the real server answers).
import { parse } from 'yaml';
import { jsonPatch, mergePatch, PatchError } from './fake-patch.ts';
import type { ResourceType } from './fake-resources.ts';
import { parseFieldSelector, parseLabelSelector, type KubeObject } from './fake-selectors.ts';
import { ApiError, badRequest, invalid } from './fake-status.ts';
import type { FakeStore } from './fake-store.ts';
import type { ListSnapshots, Page } from './fake-pagination.ts';
import { table } from './fake-table.ts';

export interface Target {
  resource: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface Reply {
  status: number;
  body: unknown;
}

export function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

/** The resource a path addresses, or undefined when it is a discovery path. */
export function parseTarget(types: readonly ResourceType[], segments: string[]): Target | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 2) [group, version, rest] = ['', segments[1], segments.slice(2)];
  else if (segments[0] === 'apis' && segments.length >= 3) [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  else return undefined;
  if (rest.length === 0) return undefined;
  const find = (plural: string) => types.find((type) => type.group === group && type.version === version && type.plural === plural);
  let target: Target | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && find(rest[2])?.namespaced) {
    if (rest.length > 5) throw notFoundPath();
    target = { resource: find(rest[2])!, namespace: rest[1], name: rest[3], subresource: rest[4] };
  } else {
    const resource = find(rest[0]);
    if (!resource || rest.length > 3) throw notFoundPath();
    // A namespaced type without a namespace is only a list or watch across all namespaces.
    if (resource.namespaced && rest.length > 1) throw notFoundPath();
    target = { resource, name: rest[1], subresource: rest[2] };
  }
  if (target.subresource !== undefined && !(target.subresource === 'status' && target.resource.statusSubresource)) throw notFoundPath();
  return target;
}

function listOf(resource: ResourceType, page: Page): Record<string, unknown> {
  // The real server leaves kind and apiVersion off built-in list items; clients must not rely on them.
  const items = resource.custom ? page.items : page.items.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest);
  const metadata: Record<string, unknown> = { resourceVersion: String(page.resourceVersion) };
  if (page.continue !== undefined) Object.assign(metadata, { continue: page.continue, remainingItemCount: page.remainingItemCount });
  return { apiVersion: resource.apiVersion, kind: `${resource.kind}List`, metadata, items };
}

export function list(store: FakeStore, snapshots: ListSnapshots, target: Target, query: URLSearchParams, asTable: boolean): Reply {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), target.resource.kind);
  const page = snapshots.page(query.get('limit'), query.get('continue'), () => {
    const { items, resourceVersion } = store.list(target.resource, target.namespace);
    return { items: items.filter((item) => labels(item) && fields(item)), resourceVersion };
  });
  if (asTable) {
    const printed = table(target.resource, page.items, String(page.resourceVersion));
    if (page.continue !== undefined) Object.assign(printed.metadata as object, { continue: page.continue, remainingItemCount: page.remainingItemCount });
    return { status: 200, body: printed };
  }
  return { status: 200, body: listOf(target.resource, page) };
}

/** A create or update body: JSON or YAML. Protobuf, which kubectl's typed commands send for built-in types, is not spoken here. */
function parseBody(contentType: string, text: string): KubeObject {
  if (contentType === 'application/yaml') {
    try {
      return parse(text) as KubeObject;
    } catch (error) {
      throw badRequest(`error decoding YAML: ${(error as Error).message}`);
    }
  }
  if (contentType !== '' && contentType !== 'application/json') {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
      {
        kind: contentType,
      },
    );
  }
  return parseJson(text);
}

function parseJson(text: string): KubeObject {
  try {
    return JSON.parse(text) as KubeObject;
  } catch (error) {
    throw badRequest(`the body of the request was in an unknown format - ${(error as Error).message}`);
  }
}

const PATCH_TYPES = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

function unsupportedPatch(contentType: string, resource: ResourceType): ApiError {
  const accepted = resource.custom ? PATCH_TYPES : `${PATCH_TYPES}, application/strategic-merge-patch+json`;
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted}`, {
    kind: contentType,
  });
}

function patched(store: FakeStore, target: Target, contentType: string, text: string, query: URLSearchParams): Reply {
  const { resource, namespace, name } = target;
  const options = { subresource: target.subresource as 'status' | undefined };
  if (contentType === 'application/apply-patch+yaml') {
    if (!query.get('fieldManager'))
      throw invalid(resource.kind, resource.group, name!, 'metadata.managedFields.fieldManager', 'Required value: is required for apply patch');
    let applied: KubeObject;
    try {
      applied = parse(text) as KubeObject;
    } catch (error) {
      throw badRequest(`error decoding YAML: ${(error as Error).message}`);
    }
    if (!applied || typeof applied !== 'object' || typeof applied.metadata !== 'object' || applied.metadata === null) {
      throw badRequest('an apply patch must be an object with metadata');
    }
    if (applied.metadata.name !== undefined && applied.metadata.name !== name) throw badRequest('the name of the object does not match the name on the URL');
    applied.metadata.name = name!;
    let current: KubeObject;
    try {
      current = store.get(resource, namespace, name!);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404 && !target.subresource) return { status: 201, body: store.create(resource, namespace, applied) };
      throw error;
    }
    const next = mergePatch(current, applied) as KubeObject;
    next.metadata.resourceVersion = applied.metadata.resourceVersion ?? current.metadata.resourceVersion;
    return { status: 200, body: store.update(resource, namespace, name!, next, options) };
  }
  const supported = ['application/merge-patch+json', 'application/json-patch+json', ...(resource.custom ? [] : ['application/strategic-merge-patch+json'])];
  if (!supported.includes(contentType)) throw unsupportedPatch(contentType, resource);
  const patch = parseJson(text) as unknown;
  const current = store.get(resource, namespace, name!);
  let next: KubeObject;
  try {
    // Strategic merge on a built-in type is taken as a merge patch: none of the types served here has merge keys that matter.
    next = (contentType === 'application/json-patch+json' ? jsonPatch(current, patch) : mergePatch(current, patch)) as KubeObject;
  } catch (error) {
    if (!(error instanceof PatchError)) throw error;
    if (error.malformed) throw badRequest(error.message);
    throw new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${error.message}`);
  }
  if (!next || typeof next !== 'object' || typeof next.metadata !== 'object' || next.metadata === null)
    throw badRequest("the patch removed the object's metadata");
  // A patch is unconditional unless it carries a resourceVersion of its own.
  if (next.metadata.resourceVersion === undefined) next.metadata.resourceVersion = current.metadata.resourceVersion;
  return { status: 200, body: store.update(resource, namespace, name!, next, options) };
}

export interface RequestBody {
  contentType: string;
  text: string;
  /** The client asked for a meta.k8s.io Table (kubectl get). */
  asTable: boolean;
}

/** Everything but watch, which streams. */
export function handle(store: FakeStore, snapshots: ListSnapshots, target: Target, method: string, request: RequestBody, query: URLSearchParams): Reply {
  const { contentType, text, asTable } = request;
  const { resource, namespace, name } = target;
  if (resource.namespaced && namespace === undefined && method !== 'GET') throw notFoundPath();
  switch (method) {
    case 'GET':
      if (name === undefined) return list(store, snapshots, target, query, asTable);
      if (asTable) {
        const object = store.get(resource, namespace, name);
        return { status: 200, body: table(resource, [object], String(object.metadata.resourceVersion)) };
      }
      return { status: 200, body: store.get(resource, namespace, name) };
    case 'POST':
      if (name !== undefined) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return { status: 201, body: store.create(resource, namespace, parseBody(contentType, text)) };
    case 'PUT':
      if (name === undefined) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return {
        status: 200,
        body: store.update(resource, namespace, name, parseBody(contentType, text), { subresource: target.subresource as 'status' | undefined }),
      };
    case 'PATCH':
      if (name === undefined) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return patched(store, target, contentType, text, query);
    case 'DELETE': {
      if (name === undefined || target.subresource)
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      const options = text.trim() ? (parseJson(text) as { preconditions?: { resourceVersion?: string; uid?: string } }) : {};
      const { object, deleted } = store.delete(resource, namespace, name, options.preconditions);
      // Custom resources answer with the object; built-in types with a Success Status once gone.
      if (resource.custom || !deleted) return { status: deleted ? 200 : 202, body: object };
      return {
        status: 200,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, group: resource.group || undefined, kind: resource.plural, uid: object.metadata.uid },
        },
      };
    }
    default:
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }
}
