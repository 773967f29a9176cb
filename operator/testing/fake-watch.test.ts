// Watches and faults of the fake API server as client-node's Watch class sees
// them: replay from a resourceVersion, initial ADDED events, selections by
// label and by a Secret's type, bookmarks, 410
// Expired after compaction, server-side timeouts, and the injected faults an
// operator must survive (dropped and stalled watches, failures, throttling).
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergePatchOptions } from '../kube/merge-patch.ts';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from './fake-api-server.ts';

const PD = { group: 'orca.dev', version: 'v1alpha1', namespace: 'default', plural: 'processdefinitions' };
const PD_PATH = '/apis/orca.dev/v1alpha1/namespaces/default/processdefinitions';

interface Seen {
  type: string;
  object: KubeObject & { code?: number; reason?: string };
}

/** A client-node watch whose events and end a test can wait for without sleeping. */
class Recorder {
  readonly events: Seen[] = [];
  ended = false;
  error: unknown;
  private controller?: AbortController;
  private readonly waiters: { check: () => boolean; resolve: () => void }[] = [];

  async start(kc: KubeConfig, path: string, query: Record<string, string | number | boolean | undefined>): Promise<this> {
    this.controller = await new Watch(kc).watch(
      path,
      query,
      (type: string, object: Seen['object']) => {
        this.events.push({ type, object });
        this.notify();
      },
      (error: unknown) => {
        this.ended = true;
        this.error = error;
        this.notify();
      },
    );
    return this;
  }

  until(check: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ check, resolve });
      this.notify();
    });
  }

  untilEvents(count: number): Promise<void> {
    return this.until(() => this.events.length >= count);
  }

  summary(): string[] {
    return this.events.map((event) => `${event.type} ${event.object.metadata?.name ?? ''}@${event.object.metadata?.resourceVersion ?? ''}`);
  }

  stop(): void {
    this.controller?.abort();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}

function pd(name: string) {
  return {
    apiVersion: 'orca.dev/v1alpha1',
    kind: 'ProcessDefinition',
    metadata: { name },
    spec: { bpmnXml: '<definitions/>', apiKeySecretRef: { name: 'orca-key' } },
  };
}

let server: FakeApiServer;
let kc: KubeConfig;
let custom: CustomObjectsApi;
const recorders: Recorder[] = [];

async function watch(query: Record<string, string | number | boolean | undefined>, path = PD_PATH): Promise<Recorder> {
  const recorder = await new Recorder().start(kc, path, query);
  recorders.push(recorder);
  return recorder;
}

beforeEach(async () => {
  server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  custom = kc.makeApiClient(CustomObjectsApi);
});

afterEach(async () => {
  for (const recorder of recorders.splice(0)) recorder.stop();
  await server.close();
});

describe('watch', () => {
  it('replays the events after a resourceVersion, then follows live changes', async () => {
    const a = await custom.createNamespacedCustomObject({ ...PD, body: pd('a') });
    await custom.patchNamespacedCustomObject({ ...PD, name: 'a', body: { spec: { bpmnXml: 'v2' } } }, mergePatchOptions());
    await custom.createNamespacedCustomObject({ ...PD, body: pd('b') });
    await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'unrelated' } } });

    const recorder = await watch({ resourceVersion: a.metadata.resourceVersion });
    await recorder.untilEvents(2);
    expect(recorder.summary()).toEqual(['MODIFIED a@2', 'ADDED b@3']);

    await custom.deleteNamespacedCustomObject({ ...PD, name: 'b' });
    await recorder.untilEvents(3);
    expect(recorder.events[2]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'b', resourceVersion: '5' } } });
    expect(recorder.events[1].object.spec).toMatchObject({ bpmnXml: '<definitions/>' });
  });

  it('starts with ADDED for every current object when no resourceVersion is given, filtered by namespace and selector', async () => {
    await custom.createNamespacedCustomObject({ ...PD, body: { ...pd('a'), metadata: { name: 'a', labels: { watched: 'yes' } } } });
    await custom.createNamespacedCustomObject({ ...PD, body: pd('b') });
    await custom.createNamespacedCustomObject({ ...PD, namespace: 'other', body: { ...pd('c'), metadata: { name: 'c', labels: { watched: 'yes' } } } });
    const recorder = await watch({ labelSelector: 'watched=yes' });
    await recorder.untilEvents(1);
    expect(recorder.summary()).toEqual(['ADDED a@1']);

    const everywhere = await watch({ labelSelector: 'watched' }, '/apis/orca.dev/v1alpha1/processdefinitions');
    await everywhere.untilEvents(2);
    expect(everywhere.summary()).toEqual(['ADDED a@1', 'ADDED c@3']);
  });

  it("selects Secrets by type in lists and watches (the operator's cache leaves Helm's releases out)", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const secret = (name: string, type?: string) => ({ metadata: { name }, ...(type ? { type } : {}), stringData: { apiKey: name } });
    await core.createNamespacedSecret({ namespace: 'default', body: secret('key') });
    await core.createNamespacedSecret({ namespace: 'default', body: secret('sh.helm.release.v1.orca.v1', 'helm.sh/release.v1') });
    const fieldSelector = 'type!=helm.sh/release.v1';
    const listed = await core.listNamespacedSecret({ namespace: 'default', fieldSelector });
    expect(listed.items.map((item) => item.metadata?.name)).toEqual(['key']);
    const recorder = await watch({ fieldSelector }, '/api/v1/namespaces/default/secrets');
    await recorder.untilEvents(1);
    await core.createNamespacedSecret({ namespace: 'default', body: secret('sh.helm.release.v1.orca.v2', 'helm.sh/release.v1') });
    await core.createNamespacedSecret({ namespace: 'default', body: secret('other') });
    await recorder.untilEvents(2);
    expect(recorder.summary()).toEqual(['ADDED key@1', 'ADDED other@4']);
    const bad = await core.listNamespacedConfigMap({ namespace: 'default', fieldSelector: 'type=x' }).catch((error: ApiException<unknown>) => error);
    expect((bad as ApiException<unknown>).code).toBe(400);
  });

  it('reports an object entering a label selection as ADDED and leaving it as DELETED, live and replayed', async () => {
    const live = await watch({ labelSelector: 'tier=gold', resourceVersion: server.resourceVersion() });
    await server.whenWatching(1);
    server.create(pd('a'));
    const patch = (labels: unknown, spec?: unknown) => server.patch('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a', { metadata: { labels }, spec });
    patch({ tier: 'gold' });
    patch({ tier: 'gold' }, { bpmnXml: 'v2' });
    patch({ tier: null });
    patch({}, { bpmnXml: 'v3' });
    patch({ tier: 'gold' });
    await live.untilEvents(4);
    const expected = ['ADDED a@2', 'MODIFIED a@3', 'DELETED a@4', 'ADDED a@6'];
    expect(live.summary()).toEqual(expected);
    const replayed = await watch({ labelSelector: 'tier=gold', resourceVersion: '1' });
    await replayed.untilEvents(4);
    expect(replayed.summary()).toEqual(expected);
  });

  it('sends BOOKMARK events with the current resourceVersion only to watches that allow them', async () => {
    const withBookmarks = await watch({ resourceVersion: '0', allowWatchBookmarks: true });
    const without = await watch({ resourceVersion: '0' });
    await server.whenWatching(2);
    await custom.createNamespacedCustomObject({ ...PD, body: pd('a') });
    await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'later' } } });
    server.sendBookmarks();
    await withBookmarks.untilEvents(2);
    expect(withBookmarks.events[1]).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ProcessDefinition', apiVersion: 'orca.dev/v1alpha1', metadata: { resourceVersion: '2' } },
    });
    await custom.createNamespacedCustomObject({ ...PD, body: pd('b') });
    await without.untilEvents(2);
    expect(without.summary()).toEqual(['ADDED a@1', 'ADDED b@3']);
  });

  it('sends bookmarks periodically when asked to', async () => {
    const periodic = await startFakeApiServer({ bookmarkIntervalMs: 20 });
    try {
      const client = new KubeConfig();
      client.loadFromString(periodic.kubeconfig());
      const recorder = await new Recorder().start(client, PD_PATH, { allowWatchBookmarks: true });
      recorders.push(recorder);
      await recorder.until(() => recorder.events.filter((event) => event.type === 'BOOKMARK').length >= 2);
      expect(recorder.events.every((event) => event.type === 'BOOKMARK' && event.object.metadata.resourceVersion === '0')).toBe(true);
    } finally {
      await periodic.close();
    }
  });

  it('answers a watch from a compacted resourceVersion with one ERROR event carrying 410 Expired', async () => {
    const a = await custom.createNamespacedCustomObject({ ...PD, body: pd('a') });
    await custom.patchNamespacedCustomObject({ ...PD, name: 'a', body: { spec: { bpmnXml: 'v2' } } }, mergePatchOptions());
    server.compact();
    const recorder = await watch({ resourceVersion: a.metadata.resourceVersion });
    await recorder.until(() => recorder.ended);
    expect(recorder.events).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' }) as unknown },
    ]);
    const current = await watch({ resourceVersion: server.resourceVersion() });
    await server.whenWatching(1);
    await custom.deleteNamespacedCustomObject({ ...PD, name: 'a' });
    await current.untilEvents(1);
    expect(current.summary()).toEqual(['DELETED a@3']);
  });

  it('expires resourceVersions that fell out of the bounded history', async () => {
    const small = await startFakeApiServer({ historyLimit: 2, bookmarkIntervalMs: 0 });
    try {
      const client = new KubeConfig();
      client.loadFromString(small.kubeconfig());
      for (const name of ['a', 'b', 'c', 'd']) small.create(pd(name));
      const tooOld = await new Recorder().start(client, PD_PATH, { resourceVersion: '1' });
      const kept = await new Recorder().start(client, PD_PATH, { resourceVersion: '2' });
      recorders.push(tooOld, kept);
      await tooOld.until(() => tooOld.ended);
      expect(tooOld.events[0].object).toMatchObject({ code: 410, reason: 'Expired' });
      await kept.untilEvents(2);
      expect(kept.summary()).toEqual(['ADDED c@3', 'ADDED d@4']);
    } finally {
      await small.close();
    }
  });

  it('ends the watch after timeoutSeconds', async () => {
    const recorder = await watch({ timeoutSeconds: 1 });
    await recorder.until(() => recorder.ended);
    expect(recorder.error).toBeNull();
    expect(server.openWatches()).toEqual([]);
  });

  it('reports the finalizer flow to watchers: MODIFIED with deletionTimestamp, then DELETED', async () => {
    server.create({ ...pd('a'), metadata: { name: 'a', finalizers: ['orca.dev/cleanup'] } });
    const recorder = await watch({ resourceVersion: server.resourceVersion() });
    await server.whenWatching(1);
    server.delete('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a');
    server.patch('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a', { metadata: { finalizers: [] } });
    await recorder.untilEvents(2);
    expect(recorder.events.map((event) => [event.type, Boolean(event.object.metadata.deletionTimestamp)])).toEqual([
      ['MODIFIED', true],
      ['DELETED', true],
    ]);
  });
});

describe('faults', () => {
  it('drops open watches: the client sees its watch end', async () => {
    const recorder = await watch({ allowWatchBookmarks: true });
    const configMaps = await watch({}, '/api/v1/namespaces/default/configmaps');
    await server.whenWatching(2);
    expect(server.faults.dropWatches((path) => path.endsWith('/processdefinitions'))).toBe(1);
    await recorder.until(() => recorder.ended);
    expect(configMaps.ended).toBe(false);
    expect(server.openWatches()).toEqual(['/api/v1/namespaces/default/configmaps']);
  });

  it('stalls open watches: connection kept, nothing sent, not even bookmarks; new watches are served', async () => {
    const stalled = await watch({ allowWatchBookmarks: true });
    await server.whenWatching(1);
    expect(server.faults.stallWatches()).toBe(1);
    await custom.createNamespacedCustomObject({ ...PD, body: pd('a') });
    server.sendBookmarks();
    const fresh = await watch({ resourceVersion: '0', allowWatchBookmarks: true });
    await server.whenWatching(2);
    server.sendBookmarks();
    await fresh.untilEvents(2);
    expect(fresh.summary()).toEqual(['ADDED a@1', 'BOOKMARK @1']);
    expect(stalled.events).toEqual([]);
    expect(stalled.ended).toBe(false);
    expect(server.openWatches()).toHaveLength(2);
  });

  it('fails the next n matching requests with a Status body, then recovers', async () => {
    server.faults.failNext(2, 503, (path, method) => method === 'GET' && path.includes('processdefinitions'));
    const core = kc.makeApiClient(CoreV1Api);
    await core.listNamespacedConfigMap({ namespace: 'default' });
    for (let i = 0; i < 2; i++) {
      const error = await custom.listNamespacedCustomObject(PD).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiException);
      expect((error as ApiException<string>).code).toBe(503);
      expect(JSON.parse((error as ApiException<string>).body)).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    }
    expect((await custom.listNamespacedCustomObject(PD)).items).toEqual([]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 503, 503, 200]);
  });

  it('fails a watch request too: client-node reports the status code', async () => {
    server.faults.failNext(1, 500);
    const recorder = await watch({});
    await recorder.until(() => recorder.ended);
    expect((recorder.error as { statusCode: number }).statusCode).toBe(500);
  });

  it('throttles the next n requests with 429 and Retry-After', async () => {
    server.faults.throttleNext(1, 7);
    const error = (await custom.createNamespacedCustomObject({ ...PD, body: pd('a') }).catch((caught: unknown) => caught)) as ApiException<string>;
    expect(error.code).toBe(429);
    expect(error.headers['retry-after']).toBe('7');
    expect(JSON.parse(error.body)).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 7 } });
    expect(server.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a')).toBeUndefined();
    await custom.createNamespacedCustomObject({ ...PD, body: pd('a') });
    expect(server.requests.filter((request) => request.method === 'POST').map((request) => request.status)).toEqual([429, 201]);
  });
});
