// A list/watch cache of one resource collection, written for an operator
// that must not miss an update or spin: list (paged) → watch from the list's
// resourceVersion with bookmarks and a jittered server-side timeout → on a
// normal end watch again from the last version seen; on 410 Expired (or an
// ERROR event saying so) list again and tell the handlers what changed
// meanwhile, deletions included; any other failure waits a capped
// exponential backoff. An inactivity watchdog aborts a watch that has sent
// nothing, not even a bookmark, for `inactivityMs`. client-node 1.4's own
// informer re-watches in a tight loop on close, stops for good on other
// errors and can hang on a dead connection, hence this one.
import { backoff, sleep, type Backoff } from './backoff.ts';
import { isGone, KubeApiError, type KubeApi, type KubeObject, type WatchEvent } from './api-client.ts';

export interface InformerHandlers<T extends KubeObject> {
  added?(object: T): void;
  updated?(previous: T, object: T): void;
  deleted?(object: T): void;
}

export interface InformerOptions<T extends KubeObject> {
  api: KubeApi;
  /** Collection path, e.g. /apis/orca.dev/v1alpha1/processdefinitions or …/namespaces/ns/processdefinitions. */
  path: string;
  handlers: InformerHandlers<T>;
  /** Server-side watch timeout range in seconds, picked at random per watch (default 240–360). */
  watchTimeoutSeconds?: [number, number];
  /** No byte for this long → the watch is presumed dead (default 90 s; bookmarks come about every minute). */
  inactivityMs?: number;
  /** Sent with every list and watch, e.g. `type!=helm.sh/release.v1`. */
  fieldSelector?: string;
  /** What the cache keeps of each object (client-go's transform): memory for what the handlers and readers never look at. */
  transform?: (object: T) => T;
  /** Page size of a list (default 500). */
  pageSize?: number;
  backoff?: Backoff;
  log?: (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) => void;
}

export interface Informer<T extends KubeObject> {
  start(): void;
  stop(): Promise<void>;
  /** The first list has completed. */
  readonly synced: boolean;
  /** Resolves when synced (or stopped). */
  waitForSync(): Promise<void>;
  get(key: string): T | undefined;
  list(): T[];
  /** Lists and watches started since the informer was started (tests, metrics). */
  readonly stats: { lists: number; watches: number; relistsOnExpiry: number; errors: number };
}

/** namespace/name, or name for cluster-scoped objects. */
export function objectKey(object: KubeObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name;
}

interface ListAnswer<T> {
  metadata: { resourceVersion: string; continue?: string };
  items: T[];
}

export function createInformer<T extends KubeObject>(options: InformerOptions<T>): Informer<T> {
  const { api, path, handlers } = options;
  const [minTimeout, maxTimeout] = options.watchTimeoutSeconds ?? [240, 360];
  const inactivityMs = options.inactivityMs ?? 90_000;
  const pageSize = options.pageSize ?? 500;
  const retry = options.backoff ?? backoff(500, 30_000);
  const log = options.log ?? (() => {});
  const transform = options.transform ?? ((object: T) => object);
  const fieldSelector = options.fieldSelector;
  const cache = new Map<string, T>();
  const stats = { lists: 0, watches: 0, relistsOnExpiry: 0, errors: 0 };
  const stopping = new AbortController();
  let resourceVersion: string | undefined;
  let synced = false;
  /** Events the current watch has delivered: a watch that worked for a while before failing starts the backoff afresh. */
  let watchEvents = 0;
  let lastWasGone = false;
  let loop: Promise<void> | undefined;
  let markSynced: () => void = () => {};
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));

  function notify(kind: 'added' | 'updated' | 'deleted', previous: T | undefined, object: T) {
    try {
      if (kind === 'added') handlers.added?.(object);
      else if (kind === 'updated') handlers.updated?.(previous!, object);
      else handlers.deleted?.(object);
    } catch (error) {
      log('warn', { path, err: String(error) }, 'informer handler threw');
    }
  }

  async function relist(): Promise<void> {
    stats.lists++;
    const seen = new Map<string, T>();
    let next: string | undefined;
    let version = '';
    do {
      const page = await api.request<ListAnswer<T>>({
        method: 'GET',
        path,
        query: { limit: pageSize, continue: next, fieldSelector },
        signal: stopping.signal,
      });
      for (const item of page.items) seen.set(objectKey(item), transform(item));
      next = page.metadata.continue || undefined;
      version = page.metadata.resourceVersion;
    } while (next !== undefined);
    // Tell the handlers what changed while we were not watching, deletions included.
    for (const [key, object] of cache) {
      if (!seen.has(key)) {
        cache.delete(key);
        notify('deleted', undefined, object);
      }
    }
    for (const [key, object] of seen) {
      const previous = cache.get(key);
      cache.set(key, object);
      if (previous === undefined) notify('added', undefined, object);
      else if (previous.metadata.resourceVersion !== object.metadata.resourceVersion) notify('updated', previous, object);
    }
    resourceVersion = version;
    if (!synced) {
      synced = true;
      markSynced();
    }
  }

  function apply(event: WatchEvent): void {
    if (event.type === 'ERROR') {
      const status = event.object as unknown as { code?: number; reason?: string; message?: string };
      throw new KubeApiError(status.code ?? 500, status.reason ?? 'Error', `watch ${path}: ${status.message ?? 'error event'}`);
    }
    if (event.object.metadata?.resourceVersion) resourceVersion = event.object.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') return;
    const object = transform(event.object as T);
    const key = objectKey(object);
    const previous = cache.get(key);
    if (event.type === 'DELETED') {
      cache.delete(key);
      notify('deleted', previous, object);
    } else {
      cache.set(key, object);
      if (previous === undefined) notify('added', undefined, object);
      else notify('updated', previous, object);
    }
  }

  async function watchOnce(): Promise<boolean> {
    stats.watches++;
    const timeoutSeconds = Math.round(minTimeout + Math.random() * (maxTimeout - minTimeout));
    watchEvents = 0;
    const started = Date.now();
    await api.watch(
      path,
      { resourceVersion, allowWatchBookmarks: true, timeoutSeconds, fieldSelector },
      (event) => {
        if (event.type !== 'ERROR') watchEvents++;
        apply(event);
      },
      { inactivityMs, signal: stopping.signal },
    );
    // A stream the server ends at once with nothing in it is a failure in disguise: back off rather than spin.
    return watchEvents > 0 || Date.now() - started >= 1_000;
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        if (resourceVersion === undefined) await relist();
        const healthy = await watchOnce();
        lastWasGone = false;
        if (healthy) retry.reset();
        else await sleep(retry.next(), stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (watchEvents > 0) {
          retry.reset();
          lastWasGone = false;
        }
        watchEvents = 0;
        if (isGone(error)) {
          // Our version was compacted away: list again (at once the first time, then backing off).
          stats.relistsOnExpiry++;
          log('info', { path }, 'watch expired (410); listing again');
          resourceVersion = undefined;
          // A list answered with a version that is already gone again would loop: the second 410 in a row waits.
          if (lastWasGone) await sleep(retry.next(), stopping.signal);
          lastWasGone = true;
          continue;
        }
        stats.errors++;
        const wait = Math.max(retry.next(), ((error as KubeApiError).retryAfterSeconds ?? 0) * 1000);
        log('warn', { path, err: error instanceof Error ? error.message : String(error), retryInMs: wait }, 'list/watch failed; retrying');
        await sleep(wait, stopping.signal);
      }
    }
  }

  return {
    start() {
      loop ??= run();
    },
    async stop() {
      stopping.abort();
      markSynced();
      await loop;
    },
    get synced() {
      return synced;
    },
    waitForSync: () => syncedPromise,
    get: (key) => cache.get(key),
    list: () => [...cache.values()],
    stats,
  };
}
