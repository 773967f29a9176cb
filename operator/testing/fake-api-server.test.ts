// The fake Kubernetes API server driven by @kubernetes/client-node 1.4, the
// client the operator uses: discovery, auth, custom resources (generation,
// status subresource, optimistic concurrency, patch types, finalizers), the
// built-in types the operator touches, and selectors.
import {
  ApiException,
  ApisApi,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  VersionApi,
} from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergePatchOptions } from '../kube/merge-patch.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api-server.ts';

const PD = { group: 'orca.dev', version: 'v1alpha1', namespace: 'default', plural: 'processdefinitions' };

function processDefinition(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'orca.dev/v1alpha1',
    kind: 'ProcessDefinition',
    metadata: { name, ...extra },
    spec: { bpmnXml: '<definitions/>', apiKeySecretRef: { name: 'orca-key' } },
  };
}

/** The rejected call's status code and Status body. */
async function rejection(call: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown>; headers: Record<string, string> }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = typeof error.body === 'string' ? (JSON.parse(error.body) as Record<string, unknown>) : (error.body as Record<string, unknown>);
    return { code: error.code, status: body, headers: error.headers };
  }
  throw new Error('expected the call to fail');
}

let server: FakeApiServer;
let kc: KubeConfig;
let custom: CustomObjectsApi;
let core: CoreV1Api;

beforeEach(async () => {
  server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  custom = kc.makeApiClient(CustomObjectsApi);
  core = kc.makeApiClient(CoreV1Api);
});

afterEach(async () => {
  await server.close();
});

describe('discovery and auth', () => {
  it('serves /version, the group list and the resource lists client-node and kubectl read', async () => {
    const version = await kc.makeApiClient(VersionApi).getCode();
    expect(version.major).toBe('1');
    const groups = await kc.makeApiClient(ApisApi).getAPIVersions();
    expect(groups.groups.map((group) => group.name)).toEqual(expect.arrayContaining(['orca.dev', 'coordination.k8s.io', 'events.k8s.io']));
    const orca = await custom.getAPIResources({ group: 'orca.dev', version: 'v1alpha1' });
    expect(orca.resources.map((resource) => resource.name).sort()).toEqual([
      'decisiondefinitions',
      'decisiondefinitions/status',
      'processdefinitions',
      'processdefinitions/status',
    ]);
    expect(orca.resources.find((resource) => resource.name === 'processdefinitions')).toMatchObject({
      kind: 'ProcessDefinition',
      namespaced: true,
      shortNames: ['orcapd'],
    });
    const coreResources = await core.getAPIResources();
    expect(coreResources.resources.map((resource) => resource.name)).toEqual(expect.arrayContaining(['configmaps', 'secrets', 'events', 'namespaces']));
  });

  it('answers 401 with a Status without the kubeconfig token, and logs every request', async () => {
    const anonymous = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    const wrong = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, { headers: { Authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'a=b' });
    expect(server.requests).toEqual([
      { method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: {}, status: 401 },
      { method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: {}, status: 401 },
      { method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: { labelSelector: 'a=b' }, status: 200 },
    ]);
  });

  it('answers 404 NotFound Status for unknown resources and objects', async () => {
    const unknown = await fetch(`${server.url}/apis/orca.dev/v1alpha1/namespaces/default/widgets`, { headers: { Authorization: `Bearer ${server.token}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    const missing = await rejection(custom.getNamespacedCustomObject({ ...PD, name: 'missing' }));
    expect(missing.code).toBe(404);
    expect(missing.status).toMatchObject({ reason: 'NotFound', message: 'processdefinitions.orca.dev "missing" not found', details: { name: 'missing' } });
  });

  it('writes a kubeconfig file client-node loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orca-kube-fake-'));
    try {
      const fromFile = new KubeConfig();
      fromFile.loadFromFile(server.writeKubeconfig(dir));
      expect(fromFile.getCurrentCluster()?.server).toBe(server.url);
      await fromFile.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'default' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('HTTPS', () => {
  it('serves TLS with a fresh self-signed certificate that the kubeconfig trusts (no verification skipped)', async () => {
    const secure = await startFakeApiServer({ tls: true });
    try {
      expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(secure.kubeconfig()).not.toContain('insecure-skip-tls-verify');
      const client = new KubeConfig();
      client.loadFromString(secure.kubeconfig());
      const api = client.makeApiClient(CustomObjectsApi);
      await api.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
      expect((await api.listNamespacedCustomObject(PD)).items).toHaveLength(1);
      const stranger = new KubeConfig();
      stranger.loadFromString(secure.kubeconfig().replace(/certificate-authority-data: .*/, 'certificate-authority-data: ""'));
      await expect(stranger.makeApiClient(CustomObjectsApi).listNamespacedCustomObject(PD)).rejects.toThrow(/certificate/);
    } finally {
      await secure.close();
    }
  });
});

describe('custom resources', () => {
  it('sets uid, creationTimestamp, resourceVersion and generation 1 on create, and drops status', async () => {
    const created = await custom.createNamespacedCustomObject({ ...PD, body: { ...processDefinition('a'), status: { version: 3 } } });
    expect(created.metadata).toMatchObject({ name: 'a', namespace: 'default', generation: 1, resourceVersion: server.resourceVersion() });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.status).toBeUndefined();
    const again = await rejection(custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') }));
    expect(again.code).toBe(409);
    expect(again.status).toMatchObject({ reason: 'AlreadyExists' });
  });

  it('bumps generation on spec changes only, never on metadata or status', async () => {
    const created = await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
    const labelled = await custom.replaceNamespacedCustomObject({
      ...PD,
      name: 'a',
      body: { ...created, metadata: { ...created.metadata, labels: { team: 'x' } } },
    });
    expect(labelled.metadata.generation).toBe(1);
    expect(Number(labelled.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));

    const annotated = await custom.patchNamespacedCustomObject(
      { ...PD, name: 'a', body: { metadata: { annotations: { 'orca.dev/redeploy': '1' } } } },
      mergePatchOptions(),
    );
    expect(annotated.metadata.generation).toBe(1);

    const status = await custom.patchNamespacedCustomObjectStatus({ ...PD, name: 'a', body: { status: { observedGeneration: 1 } } }, mergePatchOptions());
    expect(status.metadata.generation).toBe(1);
    expect(status.status).toEqual({ observedGeneration: 1 });

    const changed = await custom.patchNamespacedCustomObject({ ...PD, name: 'a', body: { spec: { bpmnXml: '<definitions id="2"/>' } } }, mergePatchOptions());
    expect(changed.metadata.generation).toBe(2);
    expect(changed.status).toEqual({ observedGeneration: 1 });
  });

  it('keeps the status subresource apart: main writes ignore status, status writes ignore everything else', async () => {
    await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
    await custom.patchNamespacedCustomObjectStatus({ ...PD, name: 'a', body: { status: { version: 1 } } }, mergePatchOptions());
    const current = await custom.getNamespacedCustomObject({ ...PD, name: 'a' });
    const replaced = await custom.replaceNamespacedCustomObject({ ...PD, name: 'a', body: { ...current, status: { version: 99 } } });
    expect(replaced.status).toEqual({ version: 1 });

    const statusWrite = await custom.replaceNamespacedCustomObjectStatus({
      ...PD,
      name: 'a',
      body: {
        ...replaced,
        metadata: { ...replaced.metadata, labels: { sneaky: 'yes' } },
        spec: { bpmnXml: 'changed', apiKeySecretRef: { name: 'other' } },
        status: { version: 2 },
      },
    });
    expect(statusWrite.status).toEqual({ version: 2 });
    expect(statusWrite.spec).toMatchObject({ bpmnXml: '<definitions/>' });
    expect(statusWrite.metadata.labels).toBeUndefined();
    expect(statusWrite.metadata.generation).toBe(1);
    const read = await custom.getNamespacedCustomObjectStatus({ ...PD, name: 'a' });
    expect(read.status).toEqual({ version: 2 });
  });

  it('writes nothing for a write that changes nothing: same resourceVersion, no event', async () => {
    const created = await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
    await custom.patchNamespacedCustomObjectStatus({ ...PD, name: 'a', body: { status: { version: 1 } } }, mergePatchOptions());
    const before = server.resourceVersion();
    const same = await custom.patchNamespacedCustomObjectStatus({ ...PD, name: 'a', body: { status: { version: 1 } } }, mergePatchOptions());
    expect(same.metadata.resourceVersion).toBe(before);
    expect(server.resourceVersion()).toBe(before);
    expect(Number(before)).toBe(Number(created.metadata.resourceVersion) + 1);
  });

  it('answers 409 Conflict to a PUT with a stale resourceVersion, and 422 to one without', async () => {
    const created = await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
    await custom.patchNamespacedCustomObject({ ...PD, name: 'a', body: { spec: { bpmnXml: 'v2' } } }, mergePatchOptions());
    const stale = await rejection(custom.replaceNamespacedCustomObject({ ...PD, name: 'a', body: { ...created, spec: { bpmnXml: 'v3' } } }));
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({ kind: 'Status', reason: 'Conflict', details: { name: 'a', group: 'orca.dev', kind: 'processdefinitions' } });
    expect(String(stale.status.message)).toContain('the object has been modified');

    const { resourceVersion: _rv, ...unversioned } = created.metadata as Record<string, unknown>;
    const blind = await rejection(custom.replaceNamespacedCustomObject({ ...PD, name: 'a', body: { ...created, metadata: unversioned } }));
    expect(blind.code).toBe(422);
    expect(blind.status).toMatchObject({ reason: 'Invalid' });
    expect(server.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a')?.spec).toMatchObject({ bpmnXml: 'v2' });

    const stalePatch = await rejection(
      custom.patchNamespacedCustomObject(
        { ...PD, name: 'a', body: { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { bpmnXml: 'v4' } } },
        mergePatchOptions(),
      ),
    );
    expect(stalePatch.code).toBe(409);
  });

  it('takes JSON patch (client-node 1.4 default) and merge patch, and refuses strategic merge with 415', async () => {
    await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
    const jsonPatched = await custom.patchNamespacedCustomObject({
      ...PD,
      name: 'a',
      body: [
        { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/name': 'orca' } },
        { op: 'replace', path: '/spec/bpmnXml', value: 'v2' },
      ],
    });
    expect(jsonPatched.metadata.labels).toEqual({ 'app.kubernetes.io/name': 'orca' });
    expect(jsonPatched.spec.bpmnXml).toBe('v2');

    const failedTest = await rejection(
      custom.patchNamespacedCustomObject({
        ...PD,
        name: 'a',
        body: [
          { op: 'replace', path: '/spec/bpmnXml', value: 'v3' },
          { op: 'test', path: '/metadata/name', value: 'other' },
        ],
      }),
    );
    expect(failedTest.code).toBe(422);
    expect(server.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a')?.spec).toMatchObject({ bpmnXml: 'v2' });

    const strategic = await rejection(
      custom.patchNamespacedCustomObject(
        { ...PD, name: 'a', body: { spec: { bpmnXml: 'v4' } } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(strategic.code).toBe(415);
    expect(strategic.status).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType' });

    const merged = await custom.patchNamespacedCustomObject(
      { ...PD, name: 'a', body: { metadata: { labels: { 'app.kubernetes.io/name': null } } } },
      mergePatchOptions(),
    );
    expect(merged.metadata.labels).toEqual({});
  });

  it('holds a deleted object with finalizers until the last one is removed', async () => {
    await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a', { finalizers: ['orca.dev/cleanup'] }) });
    const marked = await custom.deleteNamespacedCustomObject({ ...PD, name: 'a' });
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    const held = await custom.getNamespacedCustomObject({ ...PD, name: 'a' });
    expect(held.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    expect(held.metadata.generation).toBe(2);

    const added = await rejection(
      custom.patchNamespacedCustomObject({ ...PD, name: 'a', body: { metadata: { finalizers: ['orca.dev/cleanup', 'other/x'] } } }, mergePatchOptions()),
    );
    expect(added.code).toBe(422);
    expect(String(added.status.message)).toContain('no new finalizers can be added');

    const statusWhileDeleting = await custom.patchNamespacedCustomObjectStatus({ ...PD, name: 'a', body: { status: { version: 1 } } }, mergePatchOptions());
    expect(statusWhileDeleting.status).toEqual({ version: 1 });

    await custom.patchNamespacedCustomObject({ ...PD, name: 'a', body: { metadata: { finalizers: null } } }, mergePatchOptions());
    expect((await rejection(custom.getNamespacedCustomObject({ ...PD, name: 'a' }))).code).toBe(404);
  });

  it('deletes an object without finalizers at once', async () => {
    await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a') });
    const deleted = await custom.deleteNamespacedCustomObject({ ...PD, name: 'a' });
    expect(deleted.metadata.name).toBe('a');
    expect(server.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a')).toBeUndefined();
    expect((await rejection(custom.deleteNamespacedCustomObject({ ...PD, name: 'a' }))).code).toBe(404);
  });

  it('lists one namespace or all, with resourceVersion in the list metadata and selectors', async () => {
    await custom.createNamespacedCustomObject({ ...PD, body: processDefinition('a', { labels: { tier: 'gold' } }) });
    await custom.createNamespacedCustomObject({ ...PD, namespace: 'team-b', body: processDefinition('b') });
    const all = await custom.listClusterCustomObject({ group: 'orca.dev', version: 'v1alpha1', plural: 'processdefinitions' });
    expect(all.kind).toBe('ProcessDefinitionList');
    expect(all.metadata.resourceVersion).toBe(server.resourceVersion());
    expect(all.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a', 'b']);
    const teamB = await custom.listNamespacedCustomObject({ ...PD, namespace: 'team-b' });
    expect(teamB.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['b']);
    const gold = await custom.listClusterCustomObject({
      group: 'orca.dev',
      version: 'v1alpha1',
      plural: 'processdefinitions',
      labelSelector: 'tier in (gold,silver)',
    });
    expect(gold.items).toHaveLength(1);
    const byName = await custom.listClusterCustomObject({
      group: 'orca.dev',
      version: 'v1alpha1',
      plural: 'processdefinitions',
      fieldSelector: 'metadata.name=b',
    });
    expect(byName.items.map((item: { metadata: { namespace: string } }) => item.metadata.namespace)).toEqual(['team-b']);
    const bad = await rejection(custom.listNamespacedCustomObject({ ...PD, fieldSelector: 'spec.bpmnXml=x' }));
    expect(bad.code).toBe(400);
  });

  it('pages lists from one snapshot with limit and continue; the token expires on compaction', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) server.create(processDefinition(name));
    const first = await custom.listNamespacedCustomObject({ ...PD, limit: 2 });
    expect(first.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a', 'b']);
    expect(first.metadata).toMatchObject({ resourceVersion: '5', remainingItemCount: 3 });

    server.create(processDefinition('f'));
    server.patch('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'c', { spec: { bpmnXml: 'v2' } });
    server.delete('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'd');
    const second = await custom.listNamespacedCustomObject({ ...PD, limit: 2, _continue: first.metadata.continue });
    expect(
      second.items.map((item: { metadata: { name: string; resourceVersion: string } }) => `${item.metadata.name}@${item.metadata.resourceVersion}`),
    ).toEqual(['c@3', 'd@4']);
    expect(second.metadata.resourceVersion).toBe('5');
    const last = await custom.listNamespacedCustomObject({ ...PD, limit: 2, _continue: second.metadata.continue });
    expect(last.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['e']);
    expect(last.metadata.continue).toBeUndefined();

    const again = await custom.listNamespacedCustomObject({ ...PD, limit: 1 });
    server.compact();
    const expired = await rejection(custom.listNamespacedCustomObject({ ...PD, limit: 1, _continue: again.metadata.continue }));
    expect(expired.code).toBe(410);
    expect(expired.status).toMatchObject({ reason: 'Expired' });
  });

  it('runs an admission hook on custom resource writes: what it stores, or 422 with its reasons', async () => {
    const admitted = await startFakeApiServer({
      admit(object, old) {
        const spec = object.spec as Record<string, unknown>;
        if (!spec.apiKeySecretRef) return { ok: false, errors: ['spec.apiKeySecretRef: Required value'] };
        if (old && (old.spec as Record<string, unknown>).processId !== undefined && spec.processId !== (old.spec as Record<string, unknown>).processId) {
          return { ok: false, errors: ['spec: Invalid value: "object": spec.processId cannot be changed'] };
        }
        // Prunes what a schema with only observedGeneration in status would.
        const status = object.status as Record<string, unknown> | undefined;
        return { ok: true, stored: { ...object, ...(status ? { status: { observedGeneration: status.observedGeneration } } : {}) } };
      },
    });
    try {
      const client = new KubeConfig();
      client.loadFromString(admitted.kubeconfig());
      const api = client.makeApiClient(CustomObjectsApi);
      const refused = await rejection(api.createNamespacedCustomObject({ ...PD, body: { ...processDefinition('a'), spec: { bpmnXml: 'x' } } }));
      expect(refused.code).toBe(422);
      expect(refused.status).toMatchObject({
        reason: 'Invalid',
        message: 'ProcessDefinition.orca.dev "a" is invalid: spec.apiKeySecretRef: Required value',
        details: { causes: [{ message: 'spec.apiKeySecretRef: Required value' }] },
      });
      expect(admitted.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'a')).toBeUndefined();

      const created = await api.createNamespacedCustomObject({
        ...PD,
        body: { ...processDefinition('a'), spec: { ...processDefinition('a').spec, processId: 'order' } },
      });
      expect(created.metadata.uid).toBeDefined();
      const changed = await rejection(api.patchNamespacedCustomObject({ ...PD, name: 'a', body: { spec: { processId: 'other' } } }, mergePatchOptions()));
      expect(changed.code).toBe(422);
      const status = await api.patchNamespacedCustomObjectStatus(
        { ...PD, name: 'a', body: { status: { observedGeneration: 1, typo: true } } },
        mergePatchOptions(),
      );
      expect(status.status).toEqual({ observedGeneration: 1 });
      expect(status.metadata).toMatchObject({ name: 'a', uid: created.metadata.uid, generation: 1 });
    } finally {
      await admitted.close();
    }
  });

  it('reads plural, scope, status subresource and schema defaults from CRD files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orca-kube-fake-crd-'));
    try {
      const file = join(dir, 'widgets.yaml');
      writeFileSync(
        file,
        [
          'apiVersion: apiextensions.k8s.io/v1',
          'kind: CustomResourceDefinition',
          'metadata: {name: widgets.example.dev}',
          'spec:',
          '  group: example.dev',
          '  scope: Namespaced',
          '  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}',
          '  versions:',
          '    - name: v1',
          '      served: true',
          '      storage: true',
          '      subresources: {status: {}}',
          '      schema:',
          '        openAPIV3Schema:',
          '          type: object',
          '          properties:',
          '            spec:',
          '              type: object',
          '              properties:',
          '                deletionPolicy: {type: string, default: Retain}',
          '                ref: {type: object, properties: {key: {type: string, default: apiKey}}}',
          '',
        ].join('\n'),
      );
      const widgets = await startFakeApiServer({ crdFiles: [file] });
      try {
        const created = widgets.create({ apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { ref: {} } });
        expect(created.spec).toEqual({ deletionPolicy: 'Retain', ref: { key: 'apiKey' } });
        expect(created.metadata.generation).toBe(1);
        expect(widgets.types.find((type) => type.kind === 'Widget')).toMatchObject({ plural: 'widgets', namespaced: true, statusSubresource: true });
      } finally {
        await widgets.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('built-in types', () => {
  it('stores ConfigMaps and Secrets (stringData into base64 data), built-in list items without kind', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'model' }, data: { 'order.bpmn': '<definitions/>' } } });
    const secret = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'orca-key' }, stringData: { apiKey: 'k-123' } } });
    expect(secret.data).toEqual({ apiKey: Buffer.from('k-123').toString('base64') });
    expect(secret.stringData).toBeUndefined();
    expect(secret.metadata?.generation).toBeUndefined();
    const maps = await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(maps.items[0].data).toEqual({ 'order.bpmn': '<definitions/>' });
    const raw = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, { headers: { Authorization: `Bearer ${server.token}` } });
    const list = (await raw.json()) as { kind: string; items: Record<string, unknown>[] };
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items[0].kind).toBeUndefined();
    const gone = await core.deleteNamespacedConfigMap({ name: 'model', namespace: 'default' });
    expect(gone.status).toBe('Success');
  });

  it('creates core and events.k8s.io Events, with generateName', async () => {
    const coreEvent = await core.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { generateName: 'a.' },
        involvedObject: { apiVersion: 'orca.dev/v1alpha1', kind: 'ProcessDefinition', name: 'a', namespace: 'default' },
        reason: 'Deployed',
        message: 'version 1',
        type: 'Normal',
      },
    });
    expect(coreEvent.metadata.name).toMatch(/^a\.[0-9a-f]{5}$/);
    const events = kc.makeApiClient(EventsV1Api);
    const modern = await events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'a.1' },
        eventTime: new Date(),
        reason: 'Deployed',
        note: 'version 1',
        type: 'Normal',
        action: 'Deploy',
        reportingController: 'orca.dev/operator',
        reportingInstance: 'x',
      },
    });
    expect(modern.metadata?.resourceVersion).toBe(server.resourceVersion());
    const patched = await events.patchNamespacedEvent(
      { name: 'a.1', namespace: 'default', body: { series: { count: 2, lastObservedTime: new Date() } } },
      mergePatchOptions(),
    );
    expect(patched.series?.count).toBe(2);
    expect(server.list('v1', 'Event', 'default')).toHaveLength(1);
    expect(server.list('events.k8s.io/v1', 'Event', 'default')).toHaveLength(1);
  });

  it('keeps Leases under optimistic concurrency, as leader election needs', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({
      namespace: 'orca',
      body: {
        metadata: { name: 'orca-operator' },
        spec: { holderIdentity: 'pod-a', leaseDurationSeconds: 15, acquireTime: new Date(), renewTime: new Date() },
      },
    });
    const renewed = await leases.replaceNamespacedLease({
      name: 'orca-operator',
      namespace: 'orca',
      body: { ...lease, spec: { ...lease.spec, renewTime: new Date() } },
    });
    expect(Number(renewed.metadata?.resourceVersion)).toBeGreaterThan(Number(lease.metadata?.resourceVersion));
    const steal = await rejection(
      leases.replaceNamespacedLease({ name: 'orca-operator', namespace: 'orca', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'pod-b' } } }),
    );
    expect(steal.code).toBe(409);
    expect((await leases.readNamespacedLease({ name: 'orca-operator', namespace: 'orca' })).spec?.holderIdentity).toBe('pod-a');
    const taken = await rejection(
      leases.createNamespacedLease({ namespace: 'orca', body: { metadata: { name: 'orca-operator' }, spec: { holderIdentity: 'pod-b' } } }),
    );
    expect(taken.status).toMatchObject({ reason: 'AlreadyExists', code: 409 });
  });
});
