// Watches of the fake API server: an NDJSON stream of {type, object} events
// for one resource type (one namespace or all, optionally filtered by label and
// field selectors). From a resourceVersion it replays the stored history after
// it, or sends one ERROR event with a 410 Expired Status when that history is
// gone (compacted or past the bound), as the real server does; without one it
// starts with ADDED for every current object. BOOKMARK events carry the current
// resourceVersion to watches that asked for them, and the server ends a watch
// after its timeoutSeconds.
import type { ServerResponse } from 'node:http';
import type { OpenWatch } from './fake-faults.ts';
import type { ResourceType } from './fake-resources.ts';
import { parseFieldSelector, parseLabelSelector, type KubeObject, type Selector } from './fake-selectors.ts';
import { ApiError } from './fake-status.ts';
import type { FakeStore, StoredEvent } from './fake-store.ts';
import { table } from './fake-table.ts';

export interface WatchRequest {
  path: string;
  resource: ResourceType;
  namespace?: string;
  query: URLSearchParams;
  /** Send each object as a one-row meta.k8s.io Table (kubectl get -w). */
  asTable?: boolean;
}

export class ActiveWatch implements OpenWatch {
  stalled = false;
  readonly bookmarks: boolean;
  private closed = false;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  /** Set for Table watches: the event object as a Table; column definitions only on the first. */
  tableOf?: (object: KubeObject, first: boolean) => unknown;
  private sentTable = false;
  private corked = false;

  constructor(
    readonly path: string,
    readonly response: ServerResponse,
    private readonly resource: ResourceType,
    private readonly namespace: string | undefined,
    private readonly selector: Selector,
    query: URLSearchParams,
    private readonly onClose: (watch: ActiveWatch) => void,
  ) {
    this.bookmarks = query.get('allowWatchBookmarks') === 'true';
  }

  /**
   * The event as this watch reports it, or undefined: a change that moves an
   * object into the selection is ADDED, out of it DELETED, as the real server does.
   */
  view(event: StoredEvent): { type: string; object: KubeObject; shared?: StoredEvent } | undefined {
    if (event.resource.group !== this.resource.group || event.resource.plural !== this.resource.plural) return undefined;
    if (this.namespace !== undefined && event.object.metadata.namespace !== this.namespace) return undefined;
    const now = this.selector(event.object);
    if (event.type !== 'MODIFIED' || !event.previous) return now ? { type: event.type, object: event.object, shared: event } : undefined;
    const before = this.selector(event.previous);
    if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: event.object, shared: event };
    return before ? { type: 'DELETED', object: event.object, shared: event } : undefined;
  }

  /** Sends one event; `shared` is the stored event it came from, whose line other watches of it reuse. */
  send(type: string, object: unknown, shared?: StoredEvent): void {
    if (this.closed || this.stalled) return;
    let line: string;
    if (this.tableOf && type !== 'ERROR') {
      line = `${JSON.stringify({ type, object: this.tableOf(object as KubeObject, !this.sentTable) })}\n`;
      this.sentTable = true;
    } else if (shared) {
      // Serialised once per event and type, however many watches it goes to.
      const lines = (shared.lines ??= {});
      line = lines[type] ??= `${JSON.stringify({ type, object })}\n`;
    } else line = `${JSON.stringify({ type, object })}\n`;
    // Events written in one turn of the event loop (a burst of writes) leave in one write.
    if (!this.corked) {
      this.corked = true;
      this.response.cork();
      setImmediate(() => {
        this.corked = false;
        this.response.uncork();
      });
    }
    this.response.write(line);
  }

  bookmark(resourceVersion: number): void {
    if (!this.bookmarks) return;
    this.send('BOOKMARK', { kind: this.resource.kind, apiVersion: this.resource.apiVersion, metadata: { resourceVersion: String(resourceVersion) } });
  }

  /** Sends the initial events (already filtered), then follows the store until closed. */
  start(store: FakeStore, timeoutSeconds: number | undefined, initial: { type: string; object: KubeObject; shared?: StoredEvent }[]): void {
    for (const event of initial) this.send(event.type, event.object, event.shared);
    this.unsubscribe = store.subscribe((event) => {
      const seen = this.view(event);
      if (seen) this.send(seen.type, seen.object, event);
    });
    if (timeoutSeconds !== undefined && timeoutSeconds > 0) this.timer = setTimeout(() => this.close(), timeoutSeconds * 1000);
    this.response.on('close', () => this.close());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    // A stalled watch stays silent to the end: its socket is left for the client to give up on.
    if (!this.stalled) this.response.end();
    this.onClose(this);
  }
}

/** Opens a watch on `response`; the caller has checked auth and the resource. */
export function openWatch(store: FakeStore, request: WatchRequest, response: ServerResponse, onClose: (watch: ActiveWatch) => void): ActiveWatch | undefined {
  const { query, resource, namespace } = request;
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), resource.kind);
  const selector: Selector = (object) => labels(object) && fields(object);
  const since = query.get('resourceVersion');
  const timeout = query.get('timeoutSeconds');
  const timeoutSeconds = timeout === null ? undefined : Number(timeout);

  response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  response.flushHeaders();
  const watch = new ActiveWatch(request.path, response, resource, namespace, selector, query, onClose);
  if (request.asTable) {
    watch.tableOf = (object, first) => {
      const printed = table(resource, [object], String(object.metadata.resourceVersion));
      return first ? printed : { ...printed, columnDefinitions: [] };
    };
  }
  if (since === null || since === '' || since === '0') {
    const items = store.list(resource, namespace).items.filter(selector);
    watch.start(
      store,
      timeoutSeconds,
      items.map((object) => ({ type: 'ADDED', object })),
    );
    return watch;
  }
  const from = Number(since);
  try {
    if (!Number.isInteger(from) || from < 0) throw new ApiError(400, 'BadRequest', `invalid resource version "${since}"`);
    watch.start(
      store,
      timeoutSeconds,
      store.eventsSince(resource, from).flatMap((event) => watch.view(event) ?? []),
    );
    return watch;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // The real server answers 200 and reports the failure as the stream's only event.
    response.end(`${JSON.stringify({ type: 'ERROR', object: error.toStatus() })}\n`);
    return undefined;
  }
}
