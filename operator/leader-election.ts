// Leader election on a coordination.k8s.io/v1 Lease, as client-go's
// leaderelection does: every retryPeriod a replica reads the Lease; the
// holder renews it, giving up leadership when it could not renew within
// renewDeadline; another takes it once the holder has not renewed for
// leaseDuration as measured by its own clock (the time it last saw the
// record change, so clock skew between nodes does not matter), or at once
// when the holder released it on stop. Every write carries the
// resourceVersion read, so two replicas racing for it cannot both win.
import { isConflict, isNotFound, type KubeApi } from './kube/api-client.ts';
import { sleep } from './kube/backoff.ts';
import type { OperatorLog } from './log.ts';

export interface LeaderElectionOptions {
  api: KubeApi;
  namespace: string;
  name?: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  log: OperatorLog;
  now?: () => number;
}

export interface LeaderElector {
  start(): void;
  /** Stops; a leader releases the Lease first so a standby takes over at once. */
  stop(): Promise<void>;
  readonly leading: boolean;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

/** MicroTime as the API server writes it. */
const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

export function leaderElector(options: LeaderElectionOptions): LeaderElector {
  const { api, namespace, identity, log } = options;
  const name = options.name ?? 'orca-operator';
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  const now = options.now ?? Date.now;
  const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
  const stopping = new AbortController();
  let leading = false;
  let lastRenew = 0;
  let observed: { record: string; at: number } | undefined;
  let loop: Promise<void> | undefined;

  function setLeading(value: boolean) {
    if (leading === value) return;
    leading = value;
    log('info', { lease: `${namespace}/${name}`, identity }, value ? 'became leader' : 'stopped leading');
    if (value) options.onStartedLeading();
    else options.onStoppedLeading();
  }

  function spec(previous: Lease['spec'] | undefined, t: number): Lease['spec'] {
    const mine = previous?.holderIdentity === identity;
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: mine && previous?.acquireTime ? previous.acquireTime : microTime(t),
      renewTime: microTime(t),
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (mine ? 0 : previous === undefined ? 0 : 1),
    };
  }

  /** One attempt to take or keep the Lease; true when we hold it afterwards. */
  async function tryAcquireOrRenew(): Promise<boolean> {
    const t = now();
    let lease: Lease | undefined;
    try {
      lease = await api.request<Lease>({ method: 'GET', path: `${path}/${name}` });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (lease === undefined) {
      try {
        await api.request({
          method: 'POST',
          path,
          body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: spec(undefined, t) },
        });
        return true;
      } catch (error) {
        if (isConflict(error)) return false;
        throw error;
      }
    }
    const holder = lease.spec.holderIdentity ?? '';
    const record = JSON.stringify([holder, lease.spec.renewTime, lease.spec.leaseTransitions]);
    if (observed?.record !== record) observed = { record, at: t };
    const duration = (lease.spec.leaseDurationSeconds ?? leaseDurationMs / 1000) * 1000;
    if (holder !== '' && holder !== identity && observed.at + duration > t) return false;
    try {
      const updated = await api.request<Lease>({
        method: 'PUT',
        path: `${path}/${name}`,
        body: { ...lease, metadata: { ...lease.metadata, resourceVersion: lease.metadata.resourceVersion }, spec: spec(lease.spec, t) },
      });
      observed = { record: JSON.stringify([identity, updated.spec.renewTime, updated.spec.leaseTransitions]), at: t };
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }

  async function run() {
    while (!stopping.signal.aborted) {
      let held: boolean | undefined;
      try {
        held = await tryAcquireOrRenew();
      } catch (error) {
        log('warn', { err: error instanceof Error ? error.message : String(error) }, 'lease request failed');
      }
      if (stopping.signal.aborted) break;
      const t = now();
      if (held === true) {
        lastRenew = t;
        setLeading(true);
      } else if (leading && (held === false || t - lastRenew >= renewDeadlineMs)) {
        // Another replica holds it now, or we could not renew in time: stop before it takes over.
        setLeading(false);
      }
      await sleep(retryPeriodMs * (leading ? 1 : 0.9 + Math.random() * 0.2), stopping.signal);
    }
  }

  async function release() {
    try {
      const lease = await api.request<Lease>({ method: 'GET', path: `${path}/${name}` });
      if (lease.spec.holderIdentity !== identity) return;
      await api.request({
        method: 'PUT',
        path: `${path}/${name}`,
        body: { ...lease, spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(now()) } },
      });
    } catch (error) {
      log('warn', { err: error instanceof Error ? error.message : String(error) }, 'could not release the lease');
    }
  }

  return {
    start() {
      loop ??= run();
    },
    async stop() {
      stopping.abort();
      await loop;
      if (leading) {
        setLeading(false);
        await release();
      }
    },
    get leading() {
      return leading;
    },
  };
}
