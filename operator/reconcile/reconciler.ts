// One reconcile of one ProcessDefinition or DecisionDefinition: keep the
// finalizer in line with deletionPolicy, clean up on deletion, resolve the
// model and the API key, deploy through the client library only when
// deploy-plan.ts says so (never on a resync that changes nothing), and
// write the status — a merge patch on the status subresource, skipped when
// nothing in it changed. Orca's answers map onto conditions: a model Orca
// refuses or a key it rejects stalls the resource; Orca down or busy leaves
// it Reconciling and retried with backoff.
import { randomUUID } from 'node:crypto';
import { OrcaError, type OrcaClient } from '../../client/index.ts';
import type { EventRecorder } from '../events.ts';
import { isConflict, isNotFound, type KubeApi, type KubeObject } from '../kube/api-client.ts';
import type { OperatorLog } from '../log.ts';
import type { OperatorMetrics } from '../metrics.ts';
import { conditionsFor, type Outcome } from './conditions.ts';
import { planDeploy, type DeployReason } from './deploy-plan.ts';
import { API_VERSION, FINALIZER, REDEPLOY_ANNOTATION, type Definition, type DefinitionStatus, type Kind } from './kinds.ts';
import { checksumOf, resolveApiKey, resolveModel, type ReadObject } from './source.ts';

/** What the work queue does with the key next. */
export type ReconcileResult = { requeue: 'none' } | { requeue: 'backoff' } | { requeue: 'after'; ms: number };

export interface ReconcilerOptions {
  api: KubeApi;
  kind: Kind;
  /** A client for the account behind an API key (cached by the caller). */
  client(apiKey: string): OrcaClient;
  /** Reads the ConfigMaps and Secrets resources name (the controller's caches). */
  read: ReadObject;
  events: EventRecorder;
  metrics?: OperatorMetrics;
  log: OperatorLog;
  now?: () => Date;
}

export interface Reconciler {
  reconcile(object: Definition): Promise<ReconcileResult>;
  /** Forget in-memory state of a resource that is gone. */
  forget(uid: string): void;
}

const DONE: ReconcileResult = { requeue: 'none' };
const BACKOFF: ReconcileResult = { requeue: 'backoff' };

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const { api, kind, events, log } = options;
  const now = options.now ?? (() => new Date());
  /** The Idempotency-Key of a deploy not yet known to have succeeded, per resource and what it deploys: a repeat reuses it. */
  const pendingKeys = new Map<string, { intent: string; key: string }>();
  /**
   * What our own last write answered, per resource, until the informer's
   * cache has caught up: a reconcile that starts from the version we wrote
   * over (a resync right after a deploy) must see the status it wrote, or it
   * would deploy the same model again.
   */
  const written = new Map<string, { over: Set<string>; object: Definition }>();

  function remember(before: Definition, after: Definition) {
    const uid = before.metadata.uid;
    if (uid === undefined || before.metadata.resourceVersion === undefined) return;
    // A second write in the same reconcile builds on the first: the cache may show either version it replaced.
    const previous = written.get(uid);
    const over = previous?.object.metadata.resourceVersion === before.metadata.resourceVersion ? previous.over : new Set<string>();
    over.add(before.metadata.resourceVersion);
    written.set(uid, { over, object: { ...after, apiVersion: before.apiVersion, kind: before.kind } });
  }

  /** The freshest copy we know: the cache's, or our own write's while the cache still shows a version it replaced. */
  function freshest(object: Definition): Definition {
    const uid = object.metadata.uid;
    const entry = uid === undefined ? undefined : written.get(uid);
    if (entry === undefined) return object;
    if (entry.over.has(object.metadata.resourceVersion ?? '')) return entry.object;
    written.delete(uid!);
    return object;
  }

  const objectPath = (o: KubeObject) => `/apis/${API_VERSION}/namespaces/${o.metadata.namespace}/${kind.plural}/${o.metadata.name}`;

  const { read } = options;

  async function setFinalizers(object: Definition, finalizers: string[]): Promise<Definition> {
    // resourceVersion in the patch makes it optimistic: a stale object gets 409 and is read again.
    const updated = await api.request<Definition>({
      method: 'PATCH',
      path: objectPath(object),
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers, resourceVersion: object.metadata.resourceVersion } },
    });
    remember(object, updated);
    return { ...updated, apiVersion: object.apiVersion, kind: object.kind };
  }

  async function writeStatus(object: Definition, desired: DefinitionStatus): Promise<void> {
    const current = object.status ?? {};
    if (sameStatus(current, desired)) return;
    const patch: Record<string, unknown> = { ...desired };
    // Merge patch: null removes a field.
    if (desired.error === undefined && current.error !== undefined) patch.error = null;
    const updated = await api.request<Definition>({
      method: 'PATCH',
      path: `${objectPath(object)}/status`,
      contentType: 'application/merge-patch+json',
      body: { status: patch },
    });
    remember(object, updated);
  }

  function statusWith(object: Definition, outcome: Outcome, fields: DefinitionStatus = {}): DefinitionStatus {
    const previous = object.status ?? {};
    const generation = object.metadata.generation;
    const base: DefinitionStatus = { ...previous, ...fields, observedGeneration: generation };
    base.conditions = conditionsFor(outcome, generation, previous.conditions, now().toISOString());
    return base;
  }

  /** Ends a reconcile that could not deploy: the status says why, an Event says so once, and the queue retries when it can help. */
  async function fail(object: Definition, outcome: Outcome, retry: boolean, fields: DefinitionStatus = {}, retryAfterMs?: number): Promise<ReconcileResult> {
    await writeStatus(object, statusWith(object, outcome, fields));
    const reason = outcome.state === 'stalled' ? 'Stalled' : 'DeployFailed';
    events.record(object, 'Warning', reason, `${outcome.reason}: ${outcome.message}`);
    if (!retry) return DONE;
    return retryAfterMs !== undefined && retryAfterMs > 0 ? { requeue: 'after', ms: retryAfterMs } : BACKOFF;
  }

  async function cleanUp(object: Definition): Promise<ReconcileResult> {
    const finalizers = object.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return DONE;
    if (object.spec.deletionPolicy === 'Delete') {
      const ids = kind.idField === 'processId' ? (object.status?.processId ? [object.status.processId] : []) : (object.status?.decisionIds ?? []);
      if (ids.length > 0) {
        const apiKey = await resolveApiKey(object.spec, object.metadata.namespace!, read);
        if (!apiKey.ok) return fail(object, apiKey.outcome, apiKey.retry);
        const client = options.client(apiKey.value);
        for (const id of ids) {
          try {
            await kind.remove(client, id);
          } catch (error) {
            if (error instanceof OrcaError && error.status === 404) continue;
            if (error instanceof OrcaError && error.status === 409) {
              return fail(object, { state: 'stalled', reason: 'DeleteBlocked', message: error.detail }, true);
            }
            return fail(object, orcaTrouble(error), true, {}, retryAfter(error));
          }
        }
        events.record(object, 'Normal', 'Deleted', `Deleted ${ids.map((id) => `'${id}'`).join(', ')} from Orca (deletionPolicy Delete).`);
      }
    }
    try {
      await setFinalizers(
        object,
        finalizers.filter((f) => f !== FINALIZER),
      );
    } catch (error) {
      if (isNotFound(error)) return DONE;
      throw error;
    }
    return DONE;
  }

  async function reconcile(input: Definition): Promise<ReconcileResult> {
    let object = freshest(input);
    if (object.metadata.deletionTimestamp) return cleanUp(object);
    // The finalizer exists only while deletionPolicy is Delete.
    const finalizers = object.metadata.finalizers ?? [];
    const wantsFinalizer = object.spec.deletionPolicy === 'Delete';
    if (wantsFinalizer !== finalizers.includes(FINALIZER)) {
      try {
        object = await setFinalizers(object, wantsFinalizer ? [...finalizers, FINALIZER] : finalizers.filter((f) => f !== FINALIZER));
      } catch (error) {
        // A newer version exists: its update event queues it again.
        if (isConflict(error)) return BACKOFF;
        if (isNotFound(error)) return DONE;
        throw error;
      }
    }
    const namespace = object.metadata.namespace!;
    const model = await resolveModel(kind, object.spec, namespace, read);
    if (!model.ok) return fail(object, model.outcome, model.retry);
    const xml = model.value;
    const sourceChecksum = checksumOf(xml);
    const wanted = object.spec[kind.idField];
    const ids = kind.idsInModel(xml);
    if (wanted !== undefined && ids.length > 0 && !ids.includes(wanted)) {
      const what = kind.idField === 'processId' ? 'process' : 'decision';
      return fail(
        object,
        { state: 'stalled', reason: 'IdMismatch', message: `spec.${kind.idField} is '${wanted}' but the model's ${what} id is '${ids.join("', '")}'.` },
        false,
        { sourceChecksum },
      );
    }
    const apiKey = await resolveApiKey(object.spec, namespace, read);
    if (!apiKey.ok) return fail(object, apiKey.outcome, apiKey.retry, { sourceChecksum });
    const client = options.client(apiKey.value);
    const status = object.status;
    const redeployToken = object.metadata.annotations?.[REDEPLOY_ANNOTATION];

    let reason: DeployReason | 'verify' = planDeploy({ sourceChecksum, status, redeployToken });
    // The same model Orca refused last time is not sent again until something changes (a redeploy request does).
    if (reason !== 'verify' && refusedBefore(status, sourceChecksum, redeployToken)) {
      const stalled = status!.conditions!.find((c) => c.type === 'Stalled')!;
      return fail(object, { state: 'stalled', reason: stalled.reason, message: stalled.message }, false, { sourceChecksum });
    }
    const deployedId = kind.idField === 'processId' ? status?.processId : status?.decisionIds?.[0];
    if (reason === 'verify') {
      let present: boolean;
      try {
        present = await kind.hasVersion(client, deployedId!, status!.version!, status!.deployedChecksum!);
      } catch (error) {
        return fail(object, orcaTrouble(error), true, { sourceChecksum }, retryAfter(error));
      }
      if (present) return succeed(object, { sourceChecksum }, `Version ${status!.version} of '${deployedId}' is deployed in Orca.`);
      reason = 'DriftRepaired';
    }
    return deploy(object, client, xml, sourceChecksum, reason, redeployToken, wanted);
  }

  async function deploy(
    object: Definition,
    client: OrcaClient,
    xml: string,
    sourceChecksum: string,
    reason: DeployReason,
    redeployToken: string | undefined,
    wanted: string | undefined,
  ): Promise<ReconcileResult> {
    const uid = object.metadata.uid ?? `${object.metadata.namespace}/${object.metadata.name}`;
    const intent = `${sourceChecksum}:${redeployToken ?? ''}:${reason}:${object.status?.version ?? ''}`;
    let pending = pendingKeys.get(uid);
    if (pending?.intent !== intent) pendingKeys.set(uid, (pending = { intent, key: `orca-operator-${randomUUID()}` }));
    let deployed;
    try {
      options.metrics?.deploys.inc({ kind: kind.metricKind });
      deployed = await kind.deploy(client, object.metadata.name, xml, pending.key, wanted);
    } catch (error) {
      if (error instanceof OrcaError && error.code === 'IDEMPOTENCY_KEY_REUSED') pendingKeys.delete(uid);
      if (error instanceof OrcaError && (error.status === 401 || error.status === 403)) {
        const ref = object.spec.apiKeySecretRef;
        const message = `Orca refused the API key from Secret '${ref?.name}' key '${ref?.key || 'apiKey'}' (${error.status}): ${error.detail}`;
        return fail(object, { state: 'stalled', reason: 'InvalidApiKey', message }, true, {
          sourceChecksum,
          error: { code: error.code, message: error.detail },
        });
      }
      if (error instanceof OrcaError && error.status >= 400 && error.status < 500 && !error.retryable && error.status !== 409) {
        pendingKeys.delete(uid);
        const message = modellerMessage(error);
        return fail(object, { state: 'stalled', reason: 'InvalidModel', message }, false, {
          sourceChecksum,
          redeployToken,
          error: { code: error.code, message },
        });
      }
      return fail(object, orcaTrouble(error), true, { sourceChecksum }, retryAfter(error));
    }
    pendingKeys.delete(uid);
    const id = deployed.ids[0];
    const fields: DefinitionStatus = {
      sourceChecksum,
      deployedChecksum: sourceChecksum,
      version: deployed.version,
      deployedAt: now().toISOString(),
      redeployToken,
      error: undefined,
      ...(kind.idField === 'processId' ? { processId: id } : { decisionIds: deployed.ids }),
    };
    log('info', { kind: kind.kind, namespace: object.metadata.namespace, name: object.metadata.name, id, version: deployed.version, reason }, 'deployed');
    events.record(object, 'Normal', 'Deployed', `Deployed version ${deployed.version} of '${id}' (${reason}).`);
    return succeed(object, fields, `Version ${deployed.version} of '${id}' is deployed in Orca.`);
  }

  async function succeed(object: Definition, fields: DefinitionStatus, message: string): Promise<ReconcileResult> {
    const status = statusWith(object, { state: 'ready', reason: 'Deployed', message }, fields);
    delete status.error;
    await writeStatus(object, status);
    return DONE;
  }

  return {
    reconcile,
    forget(uid) {
      pendingKeys.delete(uid);
      written.delete(uid);
      events.forget(uid);
    },
  };
}

/** The last attempt deployed this very model and Orca refused it. */
function refusedBefore(status: DefinitionStatus | undefined, checksum: string, token: string | undefined): boolean {
  const stalled = status?.conditions?.find((c) => c.type === 'Stalled');
  return (
    stalled?.status === 'True' && stalled.reason === 'InvalidModel' && status?.sourceChecksum === checksum && (status.redeployToken ?? '') === (token ?? '')
  );
}

/** Orca's words for a refused model: its detail and each failing field's message. */
function modellerMessage(error: OrcaError): string {
  const details = error.errors.map((e) => e.message).filter((m) => m && !error.detail.includes(m));
  return [error.detail, ...details].join(' ').slice(0, 2000);
}

function orcaTrouble(error: unknown): Outcome {
  if (error instanceof OrcaError) {
    const reason = error.status === 0 ? 'OrcaUnreachable' : error.status === 429 ? 'OrcaThrottled' : 'OrcaUnavailable';
    return { state: 'progressing', reason, message: `Orca answered ${error.status || 'nothing'}: ${error.detail}`.slice(0, 1000) };
  }
  return { state: 'progressing', reason: 'OrcaUnavailable', message: error instanceof Error ? error.message : String(error) };
}

function retryAfter(error: unknown): number | undefined {
  return error instanceof OrcaError ? error.retryAfterMs : undefined;
}

/** Equal as the status subresource would store them (key order and undefined fields aside). */
export function sameStatus(a: DefinitionStatus, b: DefinitionStatus): boolean {
  return stable(a) === stable(b);
}

function stable(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .filter(([, x]) => x !== undefined)
            .sort(([x], [y]) => (x < y ? -1 : 1)),
        )
      : v,
  );
}
