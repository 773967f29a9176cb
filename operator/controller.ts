// The operator's control loop: informers on ProcessDefinitions,
// DecisionDefinitions and ConfigMaps feed one work queue; the event filter
// queues a resource when its generation, deletion or annotations change (not
// on the operator's own status writes), when a ConfigMap it reads changes,
// and on every periodic resync; workers take keys from the queue and run the
// kind's reconciler, only while this replica leads, with the queue's
// per-key backoff and global limit on retries.
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
  /** Options for each OrcaClient: a fetch to send through (tests), the longest one request to Orca may take (default 30 s). */
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

interface ConfigMapRef {
  configMapRef?: { name?: string };
}

export function createController(options: ControllerOptions): Controller {
  const { api, log, metrics } = options;
  const workers = options.workers ?? 8;
  const queue = createWorkQueue(defaultRateLimiter(options.rateLimiter), (depth) => metrics.workqueueDepth.set(depth));
  const events = eventRecorder({ api, component: 'orca-operator', instance: options.identity, log: (fields, message) => log('warn', fields, message) });
  const clients = new Map<string, OrcaClient>();
  // The client sets no deadline of its own; a server that accepts and never answers must not hold a worker forever.
  const requestTimeoutMs = options.orcaClient?.requestTimeoutMs ?? 30_000;
  const sendVia = options.orcaClient?.fetch ?? fetch;
  const timedFetch: typeof fetch = (input, init) => {
    const deadline = AbortSignal.timeout(requestTimeoutMs);
    return sendVia(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };
  const clientFor = (apiKey: string): OrcaClient => {
    const id = createHash('sha256').update(apiKey).digest('hex');
    let client = clients.get(id);
    if (client === undefined) {
      // One try per call: the work queue owns retries and their backoff.
      client = new OrcaClient({ url: options.orcaUrl, apiKey, retry: { attempts: 1 }, fetch: timedFetch });
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

  for (const kind of KINDS) {
    reconcilers.set(kind.plural, createReconciler({ api, kind, client: clientFor, events, metrics, log }));
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

  /** A ConfigMap changed: queue the resources of its namespace that read it. */
  function configMapChanged(configMap: KubeObject) {
    for (const kind of KINDS) {
      for (const object of informers.get(kind.plural)!.list()) {
        const ref = (object.spec as ConfigMapRef | undefined)?.configMapRef;
        if (object.metadata.namespace === configMap.metadata.namespace && ref?.name === configMap.metadata.name) queue.add(queueKey(kind, object));
      }
    }
  }
  const configMaps = createInformer<KubeObject>({
    api,
    path: `/api/v1${scope}/configmaps`,
    watchTimeoutSeconds: options.watch?.timeoutSeconds,
    inactivityMs: options.watch?.inactivityMs,
    backoff: watchBackoff(),
    log: informerLog,
    handlers: {
      added: configMapChanged,
      updated: (previous, object) => {
        if (JSON.stringify([previous.data, previous.binaryData]) !== JSON.stringify([object.data, object.binaryData])) configMapChanged(object);
      },
      deleted: configMapChanged,
    },
  });
  const all: Informer<KubeObject>[] = [...informers.values(), configMaps];

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
      await Promise.all(all.map((i) => i.waitForSync()));
    },
    async stop() {
      stopped = true;
      clearTimeout(resyncTimer);
      queue.shutDown();
      wakeAll();
      await Promise.all(all.map((i) => i.stop()));
      await Promise.all(running);
      await events.flush();
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
