// The fake API server's storage, with the semantics of etcd behind the real
// apiserver: one global, monotonically increasing resourceVersion; uid and
// creationTimestamp on create; generation bumped only on changes outside
// metadata and status for custom resources; the status subresource; optimistic
// concurrency (409 on a stale resourceVersion); finalizers holding a deleted
// object with a deletionTimestamp; no-op writes that change nothing (no new
// resourceVersion, no event); and a bounded event history for watches, which
// compact() empties so older resourceVersions answer 410 Expired.
import { randomBytes, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { applyDefaults, type ResourceType } from './fake-resources.ts';
import { ApiError, alreadyExists, badRequest, conflict, expired, invalid, notFound } from './fake-status.ts';
import type { KubeObject } from './fake-selectors.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  resourceVersion: number;
  type: EventType;
  resource: ResourceType;
  object: KubeObject;
  /** What selectors read of the object before a MODIFIED (name, namespace, labels), so a watch can tell it entered or left its selection. */
  previous?: KubeObject;
  /** The event as watches send it, by event type, once one has serialised it. */
  lines?: Record<string, string>;
}

export type StoreListener = (event: StoredEvent) => void;

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function storageKey(resource: ResourceType): string {
  return `${resource.group}/${resource.plural}`;
}

function objectKey(resource: ResourceType, namespace: string | undefined, name: string): string {
  return `${storageKey(resource)}/${namespace ?? ''}/${name}`;
}

/** What a spec change is measured on: everything but metadata and status. */
function content(object: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return rest;
}

/** An object as compared for no-op detection: resourceVersion and managedFields aside. */
function comparable(object: KubeObject): KubeObject {
  const { resourceVersion: _rv, managedFields: _managed, ...metadata } = object.metadata;
  return { ...object, metadata: metadata as KubeObject['metadata'] };
}

export interface WriteOptions {
  /** Write the status subresource: only `.status` of the body is taken. */
  subresource?: 'status';
}

/**
 * Admission of custom resources beyond what the store does itself (e.g. the
 * chart's test/crds/admit.ts: pruning, defaults, schema and CEL rules): what
 * to store, or why not. `old` is the stored object on updates.
 */
export type Admit = (object: KubeObject, old?: KubeObject) => { ok: true; stored: KubeObject } | { ok: false; errors: string[] };

export class FakeStore {
  private resourceVersion = 0;
  private readonly objects = new Map<string, KubeObject>();
  private history: StoredEvent[] = [];
  /** Events with a resourceVersion above this are in `history`. */
  private historyStart = 0;
  private readonly listeners = new Set<StoreListener>();

  constructor(
    private readonly historyLimit: number,
    private readonly admission?: Admit,
  ) {}

  get currentResourceVersion(): number {
    return this.resourceVersion;
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every resourceVersion up to now expires for watches. */
  compact(): void {
    this.history = [];
    this.historyStart = this.resourceVersion;
  }

  list(resource: ResourceType, namespace?: string): { items: KubeObject[]; resourceVersion: number } {
    const prefix = `${storageKey(resource)}/${namespace ?? ''}${namespace === undefined ? '' : '/'}`;
    const items = [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, object]) => structuredClone(object));
    return { items, resourceVersion: this.resourceVersion };
  }

  get(resource: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const object = this.objects.get(objectKey(resource, namespace, name));
    if (!object) throw notFound(resource.group, resource.plural, name);
    return structuredClone(object);
  }

  /** The history's events after `since` for one resource type; 410 when they are no longer kept. */
  eventsSince(resource: ResourceType, since: number): StoredEvent[] {
    if (since < this.historyStart) throw expired(String(since), this.historyStart);
    const key = storageKey(resource);
    return this.history.filter((event) => event.resourceVersion > since && storageKey(event.resource) === key);
  }

  create(resource: ResourceType, namespace: string | undefined, body: KubeObject): KubeObject {
    if (!body || typeof body !== 'object' || typeof body.metadata !== 'object' || body.metadata === null) {
      throw badRequest('the body of the request was in an unknown format: metadata is required');
    }
    const object = structuredClone(body);
    this.checkIdentity(resource, object);
    const metadata = object.metadata;
    if (resource.namespaced) {
      if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      metadata.namespace = namespace;
    } else delete metadata.namespace;
    if (!metadata.name && typeof metadata.generateName === 'string') metadata.name = metadata.generateName + randomBytes(3).toString('hex').slice(0, 5);
    if (!metadata.name) throw invalid(resource.kind, resource.group, '', 'metadata.name', 'Required value: name or generateName is required');
    if (!NAME.test(metadata.name) || metadata.name.length > 253) {
      throw invalid(
        resource.kind,
        resource.group,
        metadata.name,
        'metadata.name',
        "Invalid value: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
      );
    }
    if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== '') {
      throw new ApiError(500, 'InternalError', 'resourceVersion should not be set on objects to be created');
    }
    const key = objectKey(resource, metadata.namespace, metadata.name);
    if (this.objects.has(key)) throw alreadyExists(resource.group, resource.plural, metadata.name);
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    metadata.uid = randomUUID();
    metadata.creationTimestamp = now();
    if (resource.custom) metadata.generation = 1;
    else delete metadata.generation;
    if (resource.statusSubresource) delete object.status;
    this.normalize(resource, object);
    return this.commit(resource, key, 'ADDED', this.admit(resource, object));
  }

  update(resource: ResourceType, namespace: string | undefined, name: string, body: KubeObject, options: WriteOptions = {}): KubeObject {
    if (!body || typeof body !== 'object' || typeof body.metadata !== 'object' || body.metadata === null) {
      throw badRequest('the body of the request was in an unknown format: metadata is required');
    }
    this.checkIdentity(resource, body);
    if (body.metadata.name !== undefined && body.metadata.name !== name) throw badRequest('the name of the object does not match the name on the URL');
    if (resource.namespaced && body.metadata.namespace !== undefined && body.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const key = objectKey(resource, namespace, name);
    const current = this.objects.get(key);
    if (!current) throw notFound(resource.group, resource.plural, name);
    const precondition = body.metadata.resourceVersion;
    if (precondition === undefined || precondition === '') {
      if (resource.custom)
        throw invalid(resource.kind, resource.group, name, 'metadata.resourceVersion', 'Invalid value: 0x0: must be specified for an update');
    } else if (precondition !== current.metadata.resourceVersion) throw conflict(resource.group, resource.plural, name);

    let next: KubeObject;
    if (options.subresource === 'status') {
      next = structuredClone(current);
      if (body.status === undefined) delete next.status;
      else next.status = structuredClone(body.status);
    } else {
      next = structuredClone(body);
      const kept = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace'];
      for (const field of kept) {
        if (current.metadata[field] === undefined) delete next.metadata[field];
        else next.metadata[field] = current.metadata[field];
      }
      next.metadata.name = name;
      if (resource.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = structuredClone(current.status);
      }
      if (current.metadata.deletionTimestamp) {
        const had = new Set((current.metadata.finalizers as string[] | undefined) ?? []);
        const added = ((next.metadata.finalizers as string[] | undefined) ?? []).filter((finalizer) => !had.has(finalizer));
        if (added.length > 0) {
          throw invalid(resource.kind, resource.group, name, 'metadata.finalizers', 'Forbidden: no new finalizers can be added if the object is being deleted');
        }
      }
    }
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    this.normalize(resource, next);
    next = this.admit(resource, next, current);
    if (resource.custom && !isDeepStrictEqual(content(current), content(next))) next.metadata.generation = (current.metadata.generation as number) + 1;
    if (isDeepStrictEqual(comparable(current), comparable(next))) return structuredClone(current);
    if (next.metadata.deletionTimestamp && ((next.metadata.finalizers as string[] | undefined) ?? []).length === 0) {
      this.objects.delete(key);
      return this.commit(resource, key, 'DELETED', next);
    }
    return this.commit(resource, key, 'MODIFIED', next, current);
  }

  /** Deletes at once without finalizers; with them, marks the object for deletion and keeps it. */
  delete(
    resource: ResourceType,
    namespace: string | undefined,
    name: string,
    preconditions: { resourceVersion?: string; uid?: string } = {},
  ): {
    object: KubeObject;
    deleted: boolean;
  } {
    const key = objectKey(resource, namespace, name);
    const current = this.objects.get(key);
    if (!current) throw notFound(resource.group, resource.plural, name);
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(resource.group, resource.plural, name);
    }
    if (preconditions.uid !== undefined && preconditions.uid !== current.metadata.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${resource.plural} "${name}": Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(current.metadata.uid)}`,
      );
    }
    const finalizers = (current.metadata.finalizers as string[] | undefined) ?? [];
    if (finalizers.length > 0) {
      if (current.metadata.deletionTimestamp) return { object: structuredClone(current), deleted: false };
      const next = structuredClone(current);
      next.metadata.deletionTimestamp = now();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (resource.custom) next.metadata.generation = (current.metadata.generation as number) + 1;
      return { object: this.commit(resource, key, 'MODIFIED', next, current), deleted: false };
    }
    this.objects.delete(key);
    return { object: this.commit(resource, key, 'DELETED', structuredClone(current)), deleted: true };
  }

  /** The admission hook's verdict on a custom resource; metadata stays the server's own. */
  private admit(resource: ResourceType, object: KubeObject, old?: KubeObject): KubeObject {
    if (!resource.custom || !this.admission) return object;
    const verdict = this.admission(structuredClone(object), old && structuredClone(old));
    if (!verdict.ok) {
      const name = object.metadata.name;
      throw new ApiError(422, 'Invalid', `${resource.kind}.${resource.group} "${name}" is invalid: ${verdict.errors.join(', ')}`, {
        name,
        group: resource.group,
        kind: resource.kind,
        causes: verdict.errors.map((message) => ({ reason: 'FieldValueInvalid', message })),
      });
    }
    return { ...verdict.stored, apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata };
  }

  private checkIdentity(resource: ResourceType, object: KubeObject): void {
    if (object.apiVersion !== undefined && object.apiVersion !== resource.apiVersion) {
      throw badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${resource.apiVersion})`);
    }
    if (object.kind !== undefined && object.kind !== resource.kind) {
      throw badRequest(`the kind in the data (${String(object.kind)}) does not match the expected kind (${resource.kind})`);
    }
  }

  /** What the server does to every stored object: kind, schema defaults, Secret stringData. */
  private normalize(resource: ResourceType, object: KubeObject): void {
    object.apiVersion = resource.apiVersion;
    object.kind = resource.kind;
    if (resource.schema) applyDefaults(object, resource.schema);
    if (resource.kind === 'Secret' && object.stringData && typeof object.stringData === 'object') {
      const data = { ...((object.data as Record<string, string> | undefined) ?? {}) };
      for (const [field, value] of Object.entries(object.stringData as Record<string, string>)) data[field] = Buffer.from(String(value)).toString('base64');
      object.data = data;
      delete object.stringData;
    }
  }

  private commit(resource: ResourceType, key: string, type: EventType, object: KubeObject, previous?: KubeObject): KubeObject {
    this.resourceVersion++;
    object.metadata.resourceVersion = String(this.resourceVersion);
    if (type !== 'DELETED') this.objects.set(key, object);
    const selected = previous && {
      metadata: { name: previous.metadata.name, namespace: previous.metadata.namespace, labels: structuredClone(previous.metadata.labels) },
    };
    // Stored objects are never changed in place (every write stores a new one), so the event can share it; callers get copies.
    const event: StoredEvent = { resourceVersion: this.resourceVersion, type, resource, object, previous: selected };
    this.history.push(event);
    if (this.history.length > this.historyLimit) this.historyStart = this.history.shift()!.resourceVersion;
    for (const listener of this.listeners) listener(event);
    return structuredClone(object);
  }
}
