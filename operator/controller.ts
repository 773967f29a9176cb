// The operator's control loop: informers on ProcessDefinitions,
// DecisionDefinitions, ConfigMaps and Secrets feed one work queue; the event
// filter queues a resource when its generation, deletion or annotations
// change (not on the operator's own status writes), when a ConfigMap or
// Secret it reads changes, and on every periodic resync; reconciles read
// ConfigMaps and Secrets from those caches; workers, once the caches are
// filled, take keys from the queue and run the kind's reconciler, only
// while this replica leads, with the queue's per-key backoff and global
// limit on retries.
import { createHash } from 'node:crypto';
import { OrcaClient } from '../client/index.ts';
import { eventRecorder } from './events.ts';
import type { KubeApi, KubeApiError, KubeObject } from './kube/api-client.ts';
import { backoff } from './kube/backoff.ts';
import { createInformer, objectKey, type Informer } from './kube/informer.ts';
import type { OperatorLog } from './log.ts';
import type { OperatorMetrics } from './metrics.ts';
import { API_VERSION, KINDS, type Definition, type Kind } from './reconcile/kinds.ts';
import { createReconciler, type Reconciler } from './reconcile/reconciler.ts';
import type { ReadObject } from './reconcile/source.ts';
import { defaultRateLimiter, type RateLimiterOptions } from './workqueue/rate-limiter.ts';
import { createWorkQueue } from './workqueue/work-queue.ts';

export interface ControllerOptions {
  api: KubeApi;
  orcaUrl: string;
  /** Unset: every namespace. */
  namespace?: string;
  resyncMs: number;
  workers?: number;
  identity: string;
  metrics: OperatorMetrics;
  log: OperatorLog;
  rateLimiter?: RateLimiterOptions;
  /** Watch tuning (tests shorten it): server-side timeout range, the inactivity watchdog, and the reconnect backoff's base and cap. */
  watch?: { timeoutSeconds?: [number, number]; inactivityMs?: number; backoffMs?: [number, number] };
  /** Options for each OrcaClient: a fetch to send through instead of its connection pools (tests), the longest one request to Orca may wait for its answer (default 30 s). */
  orcaClient?: { fetch?: typeof fetch; requestTimeoutMs?: number };
}

export interface Controller {
  start(): void;
  /** Begin or stop taking work (leadership). */
  setActive(active: boolean): void;
  readonly synced: boolean;
  waitForSync(): Promise<void>;
  stop(): Promise<void>;
  /** The informers (tests, diagnostics). */
  readonly informers: Informer<KubeObject>[];
}

/** Secrets Helm keeps its releases in: large, many, and never an API key. */
const SECRET_FIELD_SELECTOR = 'type!=helm.sh/release.v1';

/**
 * What the ConfigMap and Secret caches keep: identity and data. The rest
 * (annotations, where kubectl's last-applied copy repeats the data, and
 * managedFields) is never read and would double the memory.
 */
function dataOnly(object: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = object.metadata;
  const kept: KubeObject = { metadata: { name, namespace, uid, resourceVersion } };
  for (const field of ['type', 'data', 'binaryData'] as const) if (object[field] !== undefined) kept[field] = object[field];
  return kept;
}

export function createController(options: ControllerOptions): Controller {
  const { api, log, metrics } = options;
  const workers = options.workers ?? 8;
  const queue = createWorkQueue(defaultRateLimiter(options.rateLimiter), (depth) => metrics.workqueueDepth.set(depth));
  const events = eventRecorder({ api, component: 'orca-operator', instance: options.identity, log: (fields, message) => log('warn', fields, message) });
  const clients = new Map<string, OrcaClient>();
  // A server that accepts and never answers must not hold a worker forever.
  const timeoutMs = options.orcaClient?.requestTimeoutMs ?? 30_000;
  const clientFor = (apiKey: string): OrcaClient => {
    const id = createHash('sha256').update(apiKey).digest('hex');
    let client = clients.get(id);
    if (client === undefined) {
      // One try per call: the work queue owns retries and their backoff.
      client = new OrcaClient({ url: options.orcaUrl, apiKey, retry: { attempts: 1 }, timeoutMs, fetch: options.orcaClient?.fetch });
      clients.set(id, client);
    }
    return client;
  };
  const reconcilers = new Map<string, Reconciler>();
  const informers = new Map<string, Informer<Definition>>();
  const scope = options.namespace ? `/namespaces/${options.namespace}` : '';
  const informerLog = (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) => log(level, fields, message);

  const watchBackoff = () => backoff(...(options.watch?.backoffMs ?? [500, 30_000]));
  const queueKey = (kind: Kind, object: KubeObject) => `${kind.plural}/${objectKey(object)}`;

  // Models and API keys are read from the caches below, never with a GET per reconcile: a change to either queues the resources that use it.
  const read: ReadObject = async (what, namespace, name) => (what === 'secrets' ? secrets : configMaps).get(`${namespace}/${name}`) ?? null;

  for (const kind of KINDS) {
    reconcilers.set(kind.plural, createReconciler({ api, kind, client: clientFor, events, metrics, log, read }));
    informers.set(
      kind.plural,
      createInformer<Definition>({
        api,
        path: `/apis/${API_VERSION}${scope}/${kind.plural}`,
        watchTimeoutSeconds: options.watch?.timeoutSeconds,
        inactivityMs: options.watch?.inactivityMs,
        backoff: watchBackoff(),
        log: informerLog,
        handlers: {
          added: (object) => queue.add(queueKey(kind, object)),
          updated: (previous, object) => {
            if (needsReconcile(previous, object)) queue.add(queueKey(kind, object));
          },
          deleted: (object) => {
            if (object.metadata.uid) reconcilers.get(kind.plural)!.forget(object.metadata.uid);
          },
        },
      }),
    );
  }

  /** A ConfigMap or Secret changed: queue the resources of its namespace that read it. */
  function usedBy(reference: (spec: Definition['spec']) => string | undefined) {
    const changed = (source: KubeObject) => {
      for (const kind of KINDS) {
        for (const object of informers.get(kind.plural)!.list()) {
          if (object.metadata.namespace === source.metadata.namespace && reference(object.spec) === source.metadata.name) queue.add(queueKey(kind, object));
        }
      }
    };
    return {
      added: changed,
      updated: (previous: KubeObject, object: KubeObject) => {
        if (JSON.stringify([previous.data, previous.binaryData]) !== JSON.stringify([object.data, object.binaryData])) changed(object);
      },
      deleted: changed,
    };
  }
  const sourceInformer = (plural: 'configmaps' | 'secrets', handlers: ReturnType<typeof usedBy>, fieldSelector?: string) =>
    createInformer<KubeObject>({
      api,
      path: `/api/v1${scope}/${plural}`,
      fieldSelector,
      transform: dataOnly,
      watchTimeoutSeconds: options.watch?.timeoutSeconds,
      inactivityMs: options.watch?.inactivityMs,
      backoff: watchBackoff(),
      log: informerLog,
      handlers,
    });
  const configMaps = sourceInformer(
    'configmaps',
    usedBy((spec) => spec?.configMapRef?.name),
  );
  const secrets = sourceInformer(
    'secrets',
    usedBy((spec) => spec?.apiKeySecretRef?.name),
    SECRET_FIELD_SELECTOR,
  );
  const all: Informer<KubeObject>[] = [...informers.values(), configMaps, secrets];
  const allSynced = Promise.all(all.map((i) => i.waitForSync()));

  let active = false;
  let stopped = false;
  let idle: (() => void)[] = [];
  const wakeAll = () => {
    const waiting = idle;
    idle = [];
    for (const resume of waiting) resume();
  };
  let resyncTimer: NodeJS.Timeout | undefined;
  const running: Promise<void>[] = [];

  function resync() {
    for (const kind of KINDS) for (const object of informers.get(kind.plural)!.list()) queue.add(queueKey(kind, object));
  }

  async function process(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const plural = key.slice(0, slash);
    const object = informers.get(plural)?.get(key.slice(slash + 1));
    if (object === undefined) return void queue.forget(key);
    const kind = KINDS.find((k) => k.plural === plural)!;
    const end = metrics.reconcileDuration.startTimer();
    try {
      const result = await reconcilers.get(plural)!.reconcile({ ...object, apiVersion: API_VERSION, kind: kind.kind });
      if (result.requeue === 'none') {
        queue.forget(key);
        metrics.reconciles.inc({ result: 'success' });
      } else if (result.requeue === 'after') {
        // Orca's Retry-After, and never sooner than the key's own backoff.
        queue.addRateLimited(key, result.ms);
        metrics.reconciles.inc({ result: 'requeue' });
      } else {
        queue.addRateLimited(key);
        metrics.reconciles.inc({ result: 'error' });
      }
    } catch (error) {
      log('warn', { key, err: error instanceof Error ? error.message : String(error) }, 'reconcile failed; retrying with backoff');
      // The API server's Retry-After (429) is a floor under the backoff.
      queue.addRateLimited(key, ((error as KubeApiError).retryAfterSeconds ?? 0) * 1000);
      metrics.reconciles.inc({ result: 'error' });
    } finally {
      end();
    }
  }

  async function worker(): Promise<void> {
    // A reconcile before the caches are filled would find Secrets and ConfigMaps missing and stall resources that are fine.
    await allSynced;
    while (!stopped) {
      if (!active) {
        await new Promise<void>((resolve) => idle.push(resolve));
        continue;
      }
      const key = await queue.get();
      if (key === undefined) return;
      try {
        // A standby that lost leadership while waiting hands the key back for the next leader.
        if (active) await process(key);
        else queue.add(key);
      } finally {
        queue.done(key);
      }
    }
  }

  return {
    start() {
      for (const informer of all) informer.start();
      // Jittered so replicas and restarts do not resync in step.
      const schedule = () => {
        resyncTimer = setTimeout(
          () => {
            resync();
            schedule();
          },
          options.resyncMs * (0.9 + Math.random() * 0.2),
        );
        resyncTimer.unref?.();
      };
      schedule();
      for (let i = 0; i < workers; i++) running.push(worker());
    },
    setActive(value) {
      active = value;
      if (value) wakeAll();
    },
    get synced() {
      return all.every((i) => i.synced);
    },
    async waitForSync() {
      await allSynced;
    },
    async stop() {
      stopped = true;
      clearTimeout(resyncTimer);
      queue.shutDown();
      wakeAll();
      await Promise.all(all.map((i) => i.stop()));
      await Promise.all(running);
      await events.flush();
      // Their keep-alive connections to Orca would otherwise outlive the operator.
      await Promise.all([...clients.values()].map((client) => client.close()));
      clients.clear();
    },
    informers: all,
  };
}

/** The event filter: what in an update calls for a reconcile (status writes change none of it). */
export function needsReconcile(previous: KubeObject, object: KubeObject): boolean {
  const a = previous.metadata;
  const b = object.metadata;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    JSON.stringify(a.annotations ?? {}) !== JSON.stringify(b.annotations ?? {}) ||
    JSON.stringify(a.finalizers ?? []) !== JSON.stringify(b.finalizers ?? [])
  );
}
