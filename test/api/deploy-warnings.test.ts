// Deploy-time warnings over real HTTP (extension): a BPMN deploy answers
// SPEC.md's `id` and `deployments` and, when the model has elements Orca
// runs differently from Camunda 8, `warnings` naming each with its code —
// on a repeated deploy too; a model without any gets no `warnings` at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions, end, flow, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { deployXml, serviceProcess } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

const camundaModel = definitions(
  '<bpmn:message id="m" name="approved"/>' +
    '<bpmn:process id="warned" isExecutable="true">' +
    start() +
    '<bpmn:scriptTask id="total"><bpmn:extensionElements><zeebe:script expression="=sum(items)" resultVariable="total"/></bpmn:extensionElements></bpmn:scriptTask>' +
    '<bpmn:userTask id="approve"><bpmn:extensionElements><zeebe:assignmentDefinition candidateGroups="managers"/></bpmn:extensionElements></bpmn:userTask>' +
    '<bpmn:receiveTask id="wait" messageRef="m"/>' +
    end() +
    flow('f1', 'start', 'total') +
    flow('f2', 'total', 'approve') +
    flow('f3', 'approve', 'wait') +
    flow('f4', 'wait', 'end') +
    '</bpmn:process>',
);

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

describe('deploy warnings', () => {
  it('lists each element that runs differently from Camunda 8, with its code and what happens instead', async () => {
    const res = await deployXml(api, apiKey, camundaModel, 'warned.bpmn');
    expect(res.status, res.text).toBe(200);
    expect(res.json.deployments).toEqual([{ bpmnProcessId: 'warned', version: 1, resourceName: 'warned.bpmn', isNew: true }]);
    expect(res.json.warnings.map((w: { elementId: string; code: string }) => [w.elementId, w.code])).toEqual([
      ['total', 'SCRIPT_TASK_IS_JOB'],
      ['approve', 'ASSIGNMENT_IGNORED'],
      ['wait', 'MESSAGE_WAIT_IS_JOB'],
    ]);
    expect(res.json.warnings[0].message).toContain("'script:total'");
    // The same model again: the same warnings, with the version kept.
    const again = await deployXml(api, apiKey, camundaModel, 'warned.bpmn');
    expect(again.json).toMatchObject({ deployments: [{ version: 1, isNew: false }], warnings: res.json.warnings });
  });

  it('answers a keyed retry with the same warnings', async () => {
    const send = () =>
      api.call('POST', '/api/v1/process-definitions', {
        apiKey,
        body: camundaModel.replace('id="warned"', 'id="warned-keyed"'),
        headers: { 'content-type': 'application/xml', 'idempotency-key': 'warn-1' },
        query: { resourceName: 'keyed.bpmn' },
      });
    const first = await send();
    const replay = await send();
    expect(first.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(first.json.warnings).toHaveLength(3);
  });

  it('leaves warnings out for a model that runs as in Camunda 8, and tags the field as an extension', async () => {
    const res = await deployXml(api, apiKey, serviceProcess('plain-warnings', 'work'), 'plain.bpmn');
    expect(res.json).toEqual({ id: 'plain-warnings', deployments: [{ bpmnProcessId: 'plain-warnings', version: 1, resourceName: 'plain.bpmn', isNew: true }] });
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
    const answer = doc.paths['/api/v1/process-definitions'].post.responses['200'].content['application/json'].schema;
    const schema = answer.$ref ? doc.components.schemas[answer.$ref.split('/').pop()] : answer;
    expect(schema.properties.warnings['x-orca-extension']).toBe(true);
    expect(schema.properties.deployments['x-orca-extension']).toBeUndefined();
  });
});
