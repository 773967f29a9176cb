// OrcaClient.broadcastSignal (extension) against a real server: a broadcast
// completes the waiting signal catch event of every instance; a retry under
// the same idempotency key answers the first broadcast; an empty name is a
// 400 OrcaError naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaClient, OrcaError } from '../../client/index.ts';
import { definitions, end, flow, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually } from '../api/workflow-support.ts';

let api: ApiFixture;
let client: OrcaClient;

const model = definitions(
  '<bpmn:signal id="S" name="go"/><bpmn:process id="waiting" isExecutable="true">' +
    start() +
    '<bpmn:intermediateCatchEvent id="wait"><bpmn:signalEventDefinition signalRef="S"/></bpmn:intermediateCatchEvent>' +
    end() +
    flow('f1', 'start', 'wait') +
    flow('f2', 'wait', 'end') +
    '</bpmn:process>',
);

beforeAll(async () => {
  api = await apiFixture();
  const { apiKey } = await api.newAccount();
  client = new OrcaClient({ url: api.baseUrl, apiKey });
  await client.deploy({ name: 'waiting.bpmn', content: model });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await api?.close();
});

describe('OrcaClient.broadcastSignal', () => {
  it('reaches the waiting instances and answers with the signal key; a keyed retry answers the same', async () => {
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push((await client.startInstance({ bpmnProcessId: 'waiting' })).processInstanceKey);
    for (const key of keys) await eventually(async () => ((await client.getInstance(key)).activeElements.length > 0 ? true : undefined), 'the wait');
    const sent = await client.broadcastSignal('go', { level: 1 }, { idempotencyKey: 'go-1' });
    expect(sent).toEqual({ signalKey: expect.stringMatching(/^\d+$/), startedInstances: 0 });
    expect(await client.broadcastSignal('go', { level: 1 }, { idempotencyKey: 'go-1' })).toEqual(sent);
    for (const key of keys) {
      const done = await eventually(async () => {
        const instance = await client.getInstance(key);
        return instance.state === 'COMPLETED' ? instance : undefined;
      }, 'the instance to complete');
      expect(done.variables).toEqual({ level: 1 });
    }
  });

  it('an empty name is a 400 naming the field', async () => {
    const error = await client.broadcastSignal('').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OrcaError);
    expect([(error as OrcaError).status, (error as OrcaError).field]).toEqual([400, 'body.name']);
  });
});
