// The reconciler's pure rules: when a deploy is due (never on a resync that
// changes nothing), how conditions carry lastTransitionTime, how sources and
// API keys resolve to a model or a reason, and the watch event filter.
import { describe, expect, it } from 'vitest';
import { needsReconcile } from '../../operator/controller.ts';
import type { KubeObject } from '../../operator/kube/api-client.ts';
import { conditionsFor } from '../../operator/reconcile/conditions.ts';
import { planDeploy } from '../../operator/reconcile/deploy-plan.ts';
import { DECISION_DEFINITION, PROCESS_DEFINITION } from '../../operator/reconcile/kinds.ts';
import { checksumOf, resolveApiKey, resolveModel, type ReadObject } from '../../operator/reconcile/source.ts';

describe('planDeploy', () => {
  const deployed = { deployedChecksum: 'c1', version: 3, redeployToken: 't1' };
  it('deploys a new model, a changed one and on a new redeploy token; otherwise only verifies', () => {
    expect(planDeploy({ sourceChecksum: 'c1', status: undefined, redeployToken: undefined })).toBe('NewModel');
    expect(planDeploy({ sourceChecksum: 'c2', status: deployed, redeployToken: 't1' })).toBe('ModelChanged');
    expect(planDeploy({ sourceChecksum: 'c1', status: deployed, redeployToken: 't2' })).toBe('RedeployRequested');
    expect(planDeploy({ sourceChecksum: 'c1', status: deployed, redeployToken: 't1' })).toBe('verify');
    expect(planDeploy({ sourceChecksum: 'c1', status: { deployedChecksum: 'c1', version: 1 }, redeployToken: undefined })).toBe('verify');
  });
});

describe('conditionsFor', () => {
  it('sets Ready/Reconciling/Stalled from the outcome and keeps lastTransitionTime unless the status flips', () => {
    const ready = conditionsFor({ state: 'ready', reason: 'Deployed', message: 'ok' }, 1, undefined, 'T1');
    expect(ready.map((c) => [c.type, c.status, c.lastTransitionTime, c.observedGeneration])).toEqual([
      ['Ready', 'True', 'T1', 1],
      ['Reconciling', 'False', 'T1', 1],
      ['Stalled', 'False', 'T1', 1],
    ]);
    const again = conditionsFor({ state: 'ready', reason: 'Deployed', message: 'ok' }, 2, ready, 'T2');
    expect(again.map((c) => c.lastTransitionTime)).toEqual(['T1', 'T1', 'T1']);
    const stalled = conditionsFor({ state: 'stalled', reason: 'InvalidModel', message: 'bad' }, 3, again, 'T3');
    expect(stalled.map((c) => [c.status, c.lastTransitionTime])).toEqual([
      ['False', 'T3'],
      ['False', 'T1'],
      ['True', 'T3'],
    ]);
  });
});

describe('resolveModel and resolveApiKey', () => {
  const objects: Record<string, KubeObject> = {
    'configmaps/models': { metadata: { name: 'models' }, data: { 'a.bpmn': '<a/>' }, binaryData: { 'b.bpmn': Buffer.from('<b/>').toString('base64') } },
    'secrets/key': { metadata: { name: 'key' }, data: { apiKey: Buffer.from('orca_k\n').toString('base64') } },
  };
  const read: ReadObject = async (what, _ns, name) => objects[`${what}/${name}`] ?? null;

  it('takes inline XML or a ConfigMap key (data or binaryData)', async () => {
    expect(await resolveModel(PROCESS_DEFINITION, { bpmnXml: '<x/>' }, 'ns', read)).toEqual({ ok: true, value: '<x/>' });
    expect(await resolveModel(PROCESS_DEFINITION, { configMapRef: { name: 'models', key: 'a.bpmn' } }, 'ns', read)).toEqual({ ok: true, value: '<a/>' });
    expect(await resolveModel(PROCESS_DEFINITION, { configMapRef: { name: 'models', key: 'b.bpmn' } }, 'ns', read)).toEqual({ ok: true, value: '<b/>' });
  });

  it('names what is wrong and whether waiting can help', async () => {
    const reason = async (spec: object) => {
      const r = await resolveModel(DECISION_DEFINITION, spec, 'ns', read);
      return r.ok ? 'ok' : `${r.outcome.reason}:${r.retry}`;
    };
    expect(await reason({ dmnXml: '<x/>', configMapRef: { name: 'models', key: 'a.bpmn' } })).toBe('InvalidSpec:false');
    expect(await reason({})).toBe('InvalidSpec:false');
    expect(await reason({ dmnXml: 'x'.repeat(204_801) })).toBe('ModelTooLarge:false');
    expect(await reason({ configMapRef: { name: 'absent', key: 'k' } })).toBe('ConfigMapNotFound:true');
    expect(await reason({ configMapRef: { name: 'models', key: 'absent' } })).toBe('ConfigMapKeyNotFound:true');
  });

  it('reads the API key (default key apiKey, whitespace trimmed) or names the missing Secret or key', async () => {
    expect(await resolveApiKey({ apiKeySecretRef: { name: 'key' } }, 'ns', read)).toEqual({ ok: true, value: 'orca_k' });
    const missing = await resolveApiKey({ apiKeySecretRef: { name: 'nope' } }, 'ns', read);
    expect(missing.ok ? '' : missing.outcome.reason).toBe('SecretNotFound');
    const noKey = await resolveApiKey({ apiKeySecretRef: { name: 'key', key: 'other' } }, 'ns', read);
    expect(noKey.ok ? '' : noKey.outcome.reason).toBe('SecretKeyNotFound');
  });

  it('checksums the exact XML as Orca does (sha256 hex)', () => {
    expect(checksumOf('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('reads process and decision ids from the model', () => {
    expect(PROCESS_DEFINITION.idsInModel('<bpmn:definitions><bpmn:process id="a" isExecutable="true"/><process id=\'b\'/></bpmn:definitions>')).toEqual([
      'a',
      'b',
    ]);
    expect(DECISION_DEFINITION.idsInModel('<definitions><decision name="x" id="d1"/></definitions>')).toEqual(['d1']);
  });
});

describe('needsReconcile (the event filter)', () => {
  const base: KubeObject = { metadata: { name: 'a', generation: 1, resourceVersion: '1', annotations: { x: '1' } } };
  it('reacts to generation, deletion and annotation changes, not to status writes', () => {
    expect(needsReconcile(base, { ...base, metadata: { ...base.metadata, resourceVersion: '2' }, status: { version: 1 } })).toBe(false);
    expect(needsReconcile(base, { ...base, metadata: { ...base.metadata, generation: 2 } })).toBe(true);
    expect(needsReconcile(base, { ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } })).toBe(true);
    expect(needsReconcile(base, { ...base, metadata: { ...base.metadata, annotations: { x: '2' } } })).toBe(true);
  });
});
