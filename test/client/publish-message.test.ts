// OrcaClient.publishMessage (extension) against a real server: a published
// message completes the waiting receive task of the instance whose
// correlation key matches; a second publish with the messageId of a
// buffered message is a 409 OrcaError (CONFLICT), and a bad body a 400
// naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaClient, OrcaError } from '../../client/index.ts';
import { definitions, end, flow, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually } from '../api/workflow-support.ts';

let api: ApiFixture;
let client: OrcaClient;

const model = definitions(
  '<bpmn:message id="M" name="approved"><bpmn:extensionElements><zeebe:subscription correlationKey="=requestId"/></bpmn:extensionElements></bpmn:message>' +
    '<bpmn:process id="approval" isExecutable="true">' +
    start() +
    '<bpmn:receiveTask id="wait" messageRef="M"/>' +
    end() +
    flow('f1', 'start', 'wait') +
    flow('f2', 'wait', 'end') +
    '</bpmn:process>',
);

beforeAll(async () => {
  api = await apiFixture();
  const { apiKey } = await api.newAccount();
  client = new OrcaClient({ url: api.baseUrl, apiKey });
  await client.deploy({ name: 'approval.bpmn', content: model });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await api?.close();
});

async function refusal(call: Promise<unknown>): Promise<OrcaError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrcaError);
  return error as OrcaError;
}

describe('OrcaClient.publishMessage', () => {
  it('correlates to the waiting instance and answers with the message key', async () => {
    const key = (await client.startInstance({ bpmnProcessId: 'approval', variables: { requestId: 'r-1' } })).processInstanceKey;
    await eventually(async () => ((await client.getInstance(key)).activeElements.length > 0 ? true : undefined), 'the wait');
    const published = await client.publishMessage({ name: 'approved', correlationKey: 'r-1', variables: { ok: true } });
    expect(published).toEqual({ messageKey: expect.stringMatching(/^\d+$/), startedInstances: 0 });
    const done = await client.getInstance(key);
    expect(done.state).toBe('COMPLETED');
    expect(done.variables).toMatchObject({ requestId: 'r-1', ok: true });
  });

  it('a repeated messageId while buffered is a CONFLICT; a bad body names its field', async () => {
    await client.publishMessage({ name: 'approved', correlationKey: 'r-2', timeToLive: 60_000, messageId: 'once' });
    const conflict = await refusal(client.publishMessage({ name: 'approved', correlationKey: 'r-2', timeToLive: 60_000, messageId: 'once' }));
    expect([conflict.status, conflict.code]).toEqual([409, 'CONFLICT']);
    const bad = await refusal(client.publishMessage({ name: 'approved', timeToLive: -5 }));
    expect([bad.status, bad.field]).toEqual([400, 'body.timeToLive']);
  });
});
