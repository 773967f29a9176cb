// The fake API server with the CRD tests' admission plugged in
// (test/crds/admit.ts: pruning, defaults, the openAPIV3Schema and the CEL
// rules of crds/), so what a real API server would refuse — a status the
// schema does not allow, a second model source, a changed processId — is
// refused here too, through client-node, with 422 Invalid.
import { ApiException, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from '../../test/crds/admit.ts';
import { readCrds, type Resource } from '../../test/crds/crd-documents.ts';
import { mergePatchOptions } from '../kube/merge-patch.ts';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from './fake-api-server.ts';

const PD = { group: 'orca.dev', version: 'v1alpha1', namespace: 'default', plural: 'processdefinitions' };
const crds = readCrds().map(({ crd }) => crd);

async function refusal(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = JSON.parse(error.body as string) as { message: string; reason: string };
    expect(body.reason).toBe('Invalid');
    return { code: error.code, message: body.message };
  }
  throw new Error('expected the write to be refused');
}

function order(spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'orca.dev/v1alpha1',
    kind: 'ProcessDefinition',
    metadata: { name: 'order' },
    spec: { bpmnXml: '<definitions/>', apiKeySecretRef: { name: 'orca-api-key' }, processId: 'order', ...spec },
  };
}

const READY = { type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Deployed', message: 'version 1' };

describe('the fake API server admitting as crds/ says', () => {
  let server: FakeApiServer;
  let api: CustomObjectsApi;

  beforeAll(async () => {
    server = await startFakeApiServer({
      admit: (object, old) => {
        const verdict = admit(crds, object as unknown as Resource, old as unknown as Resource | undefined);
        return verdict.ok ? { ok: true, stored: verdict.stored as unknown as KubeObject } : verdict;
      },
    });
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig());
    api = kc.makeApiClient(CustomObjectsApi);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses a resource with both model sources, and one without the API key Secret', async () => {
    const both = await refusal(api.createNamespacedCustomObject({ ...PD, body: order({ configMapRef: { name: 'm', key: 'order.bpmn' } }) }));
    expect(both).toMatchObject({ code: 422, message: expect.stringContaining('set exactly one of spec.bpmnXml and spec.configMapRef') as unknown });
    const noKey = await refusal(api.createNamespacedCustomObject({ ...PD, body: order({ apiKeySecretRef: undefined }) }));
    expect(noKey.message).toContain('apiKeySecretRef');
    expect(server.list('orca.dev/v1alpha1', 'ProcessDefinition')).toEqual([]);
  });

  it('admits a valid resource with the schema defaults, and refuses a changed processId', async () => {
    const created = await api.createNamespacedCustomObject({ ...PD, body: order() });
    expect(created.spec).toMatchObject({ deletionPolicy: 'Retain', apiKeySecretRef: { name: 'orca-api-key', key: 'apiKey' } });
    expect(created.metadata).toMatchObject({ name: 'order', generation: 1 });
    const changed = await refusal(api.patchNamespacedCustomObject({ ...PD, name: 'order', body: { spec: { processId: 'other' } } }, mergePatchOptions()));
    expect(changed.message).toContain('spec.processId cannot be changed');
    expect(server.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'order')?.spec).toMatchObject({ processId: 'order' });
  });

  it('stores a status the schema allows, prunes fields it does not know, refuses one it forbids', async () => {
    const written = await api.patchNamespacedCustomObjectStatus(
      { ...PD, name: 'order', body: { status: { observedGeneration: 1, conditions: [READY], version: 1, typo: 'dropped' } } },
      mergePatchOptions(),
    );
    expect(written.status).toEqual({ observedGeneration: 1, conditions: [READY], version: 1 });
    const badReason = await refusal(
      api.patchNamespacedCustomObjectStatus(
        { ...PD, name: 'order', body: { status: { conditions: [{ ...READY, reason: 'not a reason' }] } } },
        mergePatchOptions(),
      ),
    );
    expect(badReason.message).toContain('conditions');
    const noMessage = await refusal(
      api.patchNamespacedCustomObjectStatus({ ...PD, name: 'order', body: { status: { conditions: [{ ...READY, message: null }] } } }, mergePatchOptions()),
    );
    expect(noMessage.message).toContain('message');
    expect(server.get('orca.dev/v1alpha1', 'ProcessDefinition', 'default', 'order')?.status).toEqual(written.status);
  });
});
