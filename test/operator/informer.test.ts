// The operator's list/watch cache against the fake API server: it sees
// every change once synced, and after its watch was cut and its version
// compacted away it lists again and reports what changed meanwhile —
// additions, updates and deletions — to its handlers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi, type KubeObject } from '../../operator/kube/api-client.ts';
import { backoff } from '../../operator/kube/backoff.ts';
import { loadKubeConfig } from '../../operator/kube/config.ts';
import { createInformer } from '../../operator/kube/informer.ts';
import { startFakeApiServer, type FakeApiServer } from '../../operator/testing/fake-api-server.ts';
import { eventually } from '../api/workflow-support.ts';

let kube: FakeApiServer;
let api: KubeApi;
beforeAll(async () => {
  kube = await startFakeApiServer({ tls: true });
  api = kubeApi(loadKubeConfig({ kubeconfig: kube.kubeconfig() }));
});
afterAll(async () => {
  api?.close();
  await kube?.close();
});

const configMap = (name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { value },
});

describe('informer', () => {
  it('reports additions, updates and deletions live, and those it missed while its version was compacted away', async () => {
    const seen: string[] = [];
    const informer = createInformer<KubeObject>({
      api,
      path: '/api/v1/namespaces/default/configmaps',
      backoff: backoff(50, 500),
      handlers: {
        added: (o) => seen.push(`added ${o.metadata.name}`),
        updated: (_, o) => seen.push(`updated ${o.metadata.name} ${(o.data as { value: string }).value}`),
        deleted: (o) => seen.push(`deleted ${o.metadata.name}`),
      },
    });
    kube.create(configMap('before', '1'));
    informer.start();
    await informer.waitForSync();
    expect(seen).toEqual(['added before']);
    await kube.whenWatching(1, 'configmaps');
    kube.create(configMap('live', '1'));
    kube.patch('v1', 'ConfigMap', 'default', 'live', { data: { value: '2' } });
    await eventually(async () => (seen.length === 3 ? true : undefined), 'live events');
    expect(seen.slice(1)).toEqual(['added live', 'updated live 2']);

    // The watch is cut and cannot come back for a while; meanwhile everything changes and history is compacted.
    kube.faults.failNext(2, 503, (path, method) => method === 'GET' && path.includes('configmaps'));
    kube.faults.dropWatches((path) => path.includes('configmaps'));
    kube.delete('v1', 'ConfigMap', 'default', 'before');
    kube.patch('v1', 'ConfigMap', 'default', 'live', { data: { value: '3' } });
    kube.create(configMap('later', '1'));
    kube.compact();
    await eventually(async () => (seen.length === 6 ? true : undefined), 'what was missed');
    expect(seen.slice(3).sort()).toEqual(['added later', 'deleted before', 'updated live 3']);
    expect(informer.stats.relistsOnExpiry).toBeGreaterThanOrEqual(1);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['later', 'live']);
    await informer.stop();
  });
});
