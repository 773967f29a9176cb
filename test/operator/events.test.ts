// Events are aggregated as client-go's recorder does: the same reason and
// message on one object becomes one Event whose count is bumped at most once
// a minute, so a retry storm writes a handful of requests, not thousands.
import { describe, expect, it } from 'vitest';
import { eventRecorder } from '../../operator/events.ts';
import type { KubeApi, KubeRequest } from '../../operator/kube/api-client.ts';

function recordingApi(): { api: KubeApi; sent: KubeRequest[] } {
  const sent: KubeRequest[] = [];
  const api: KubeApi = {
    request: async (request) => {
      sent.push(request);
      return undefined as never;
    },
    watch: async () => {},
    close: () => {},
  };
  return { api, sent };
}

describe('eventRecorder', () => {
  it('writes one Event per object, reason and message, and bumps its count at most once a minute', async () => {
    const { api, sent } = recordingApi();
    let now = Date.UTC(2026, 0, 1);
    const events = eventRecorder({ api, component: 'orca-operator', instance: 'test', now: () => now });
    const object = { apiVersion: 'orca.dev/v1alpha1', kind: 'ProcessDefinition', metadata: { name: 'a', namespace: 'ns', uid: 'u1' } };
    for (let i = 0; i < 1000; i++) {
      events.record(object, 'Warning', 'DeployFailed', 'OrcaUnreachable: no answer');
      now += 100;
    }
    events.record(object, 'Normal', 'Deployed', 'Deployed version 1');
    await events.flush();
    const creates = sent.filter((r) => r.method === 'POST');
    const bumps = sent.filter((r) => r.method === 'PATCH');
    expect(creates).toHaveLength(2);
    expect(creates[0]).toMatchObject({
      path: '/api/v1/namespaces/ns/events',
      body: { reason: 'DeployFailed', type: 'Warning', count: 1, involvedObject: { uid: 'u1', kind: 'ProcessDefinition' } },
    });
    // 1000 records over 100 s: one bump per minute that passed.
    expect(bumps).toHaveLength(1);
    expect(bumps[0]).toMatchObject({ contentType: 'application/merge-patch+json', body: { count: 601 } });
  });
});
