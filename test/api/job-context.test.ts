// What an activated job carries over real HTTP (REST activation through the
// partition leaders and queues): custom headers, element, process id and
// version and instance key on every job, and on a message wait's job the
// `message` extension field — the message name and the correlation key as
// evaluated when the wait began — tagged `extension` in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions, end, flow, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, mustDeploy, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

const model = definitions(
  '<bpmn:message id="m-paid" name="ctx-paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>' +
    '<bpmn:process id="ctx" isExecutable="true">' +
    start() +
    '<bpmn:serviceTask id="reserve"><bpmn:extensionElements><zeebe:taskDefinition type="ctx-reserve"/>' +
    '<zeebe:taskHeaders><zeebe:header key="warehouse" value="north"/></zeebe:taskHeaders></bpmn:extensionElements></bpmn:serviceTask>' +
    '<bpmn:receiveTask id="wait-paid" messageRef="m-paid"><bpmn:extensionElements><zeebe:taskHeaders><zeebe:header key="channel" value="web"/></zeebe:taskHeaders></bpmn:extensionElements></bpmn:receiveTask>' +
    end() +
    flow('f1', 'start', 'reserve') +
    flow('f2', 'reserve', 'wait-paid') +
    flow('f3', 'wait-paid', 'end') +
    '</bpmn:process>',
);

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, model);
}, 60_000);
afterAll(() => api?.close());

describe('activated jobs', () => {
  it('carry headers, element, process and instance on every job, and the message on a message wait', async () => {
    const key = await startInstance(api, apiKey, 'ctx', { orderId: 'O-9' });
    const reserve = await activateOne(api, apiKey, 'ctx-reserve');
    expect(reserve).toMatchObject({
      processInstanceKey: key,
      bpmnProcessId: 'ctx',
      processDefinitionVersion: 1,
      elementId: 'reserve',
      customHeaders: { warehouse: 'north' },
    });
    expect(reserve.elementInstanceKey).toMatch(/^\d+$/);
    expect(reserve).not.toHaveProperty('message');
    const completed = await api.call('POST', `/api/v1/jobs/${reserve.key}/complete`, { apiKey, json: { variables: { orderId: 'O-10' } } });
    expect(completed.status).toBe(204);

    const wait = await activateOne(api, apiKey, 'message:ctx-paid');
    expect(wait).toMatchObject({ elementId: 'wait-paid', customHeaders: { channel: 'web' }, message: { name: 'ctx-paid', correlationKey: 'O-10' } });
    // The message is not mixed into the custom headers.
    expect(wait.customHeaders).toEqual({ channel: 'web' });
  });

  it('tag the message field as an extension in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
    const answer = doc.paths['/api/v1/jobs/activate'].post.responses['200'].content['application/json'].schema;
    const resolve = (schema: { $ref?: string }) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);
    const job = resolve(resolve(answer).properties.jobs.items);
    expect(job.properties.message['x-orca-extension']).toBe(true);
    expect(job.properties.customHeaders['x-orca-extension']).toBeUndefined();
    expect(job.required).not.toContain('message');
  });
});
