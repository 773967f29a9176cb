// Kubernetes Events on the reconciled objects (Deployed, DeployFailed,
// Stalled …), aggregated as client-go's recorder does: the same reason and
// message on the same object within ten minutes bumps the count of one
// Event, and the bump is written at most once a minute, so a retry storm
// shows as one Event with a count, not thousands of writes.
import { createHash } from 'node:crypto';
import { isConflict, isNotFound, type KubeApi, type KubeObject } from './kube/api-client.ts';

export interface EventRecorder {
  record(object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Forget what was sent about an object that is gone. */
  forget(uid: string): void;
  /** Waits for writes in flight (tests, shutdown). */
  flush(): Promise<void>;
}

const WINDOW_MS = 10 * 60_000;
const BUMP_EVERY_MS = 60_000;
const PRUNE_ABOVE = 10_000;

interface Sent {
  name: string;
  namespace: string;
  count: number;
  first: string;
  lastWritten: number;
  lastSeen: number;
  /** Count as last written. */
  written: number;
}

export function eventRecorder(options: {
  api: KubeApi;
  component: string;
  instance: string;
  now?: () => number;
  log?: (fields: Record<string, unknown>, message: string) => void;
}): EventRecorder {
  const { api, component, instance } = options;
  const now = options.now ?? Date.now;
  const sent = new Map<string, Sent>();
  const inFlight = new Set<Promise<void>>();

  function track(work: Promise<void>) {
    const p = work.catch((error: unknown) => options.log?.({ err: String(error) }, 'could not write an Event')).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  async function create(object: KubeObject, entry: Sent, type: string, reason: string, message: string) {
    const ns = entry.namespace;
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: entry.name, namespace: ns },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        namespace: ns,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
      },
      type,
      reason,
      message: message.slice(0, 1024),
      count: entry.count,
      firstTimestamp: entry.first,
      lastTimestamp: new Date(now()).toISOString(),
      source: { component },
      reportingComponent: component,
      reportingInstance: instance,
    };
    try {
      await api.request({ method: 'POST', path: `/api/v1/namespaces/${ns}/events`, body });
    } catch (error) {
      if (!isConflict(error)) throw error;
      await bump(entry);
    }
  }

  async function bump(entry: Sent) {
    try {
      await api.request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${entry.namespace}/events/${entry.name}`,
        contentType: 'application/merge-patch+json',
        body: { count: entry.count, lastTimestamp: new Date(now()).toISOString() },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  return {
    record(object, type, reason, message) {
      const uid = object.metadata.uid ?? object.metadata.name;
      const namespace = object.metadata.namespace ?? 'default';
      const key = `${uid}\u0000${type}\u0000${reason}\u0000${message}`;
      const t = now();
      const entry = sent.get(key);
      if (entry !== undefined && t - entry.lastSeen < WINDOW_MS) {
        entry.count++;
        entry.lastSeen = t;
        if (t - entry.lastWritten >= BUMP_EVERY_MS) {
          entry.lastWritten = t;
          entry.written = entry.count;
          track(bump(entry));
        }
        return;
      }
      // Entries older than the window aggregate nothing any more: drop them now and then, so memory stays bounded.
      if (sent.size >= PRUNE_ABOVE) for (const [k, e] of sent) if (t - e.lastSeen >= WINDOW_MS) sent.delete(k);
      const digest = createHash('sha256').update(key).digest('hex').slice(0, 16);
      const fresh: Sent = {
        name: `${object.metadata.name}.${digest}`,
        namespace,
        count: 1,
        first: new Date(t).toISOString(),
        lastWritten: t,
        lastSeen: t,
        written: 1,
      };
      sent.set(key, fresh);
      track(create(object, fresh, type, reason, message));
    },
    forget(uid) {
      for (const key of sent.keys()) if (key.startsWith(`${uid}\u0000`)) sent.delete(key);
    },
    async flush() {
      await Promise.all([...inFlight]);
    },
  };
}
