// The delete extension for process definitions and decisions (what the
// Kubernetes operator's deletionPolicy Delete uses), against a real server
// through the client: every version of the id goes, for that account only;
// 404 when unknown; 409 while an instance of it is alive or a timer start
// event of it is armed, and then nothing is removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaClient, OrcaError } from '../../client/index.ts';
import { definitions, end, flow } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { approvalDmn, serviceProcess } from './workflow-support.ts';

let api: ApiFixture;
let client: OrcaClient;
let other: OrcaClient;

beforeAll(async () => {
  api = await apiFixture();
  client = new OrcaClient({ url: api.baseUrl, apiKey: (await api.newAccount()).apiKey });
  other = new OrcaClient({ url: api.baseUrl, apiKey: (await api.newAccount()).apiKey });
}, 60_000);
afterAll(() => api?.close());

async function failure(promise: Promise<unknown>): Promise<OrcaError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrcaError);
  return error as OrcaError;
}

/** A process whose timer start event fires every hour. */
function timerStartProcess(id: string): string {
  const timer = '<bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition>';
  return definitions(
    `<bpmn:process id="${id}" isExecutable="true"><bpmn:startEvent id="start">${timer}</bpmn:startEvent>${end()}${flow('f1', 'start', 'end')}</bpmn:process>`,
  );
}

describe('DELETE /api/v1/process-definitions/{bpmnProcessId}', () => {
  it('removes every version of the id for this account only; then it is unknown and deploys from version 1 again', async () => {
    await client.deploy({ name: 'gone.bpmn', content: serviceProcess('gone', 'a') });
    await client.deploy({ name: 'gone.bpmn', content: serviceProcess('gone', 'b') });
    await other.deploy({ name: 'gone.bpmn', content: serviceProcess('gone', 'a') });
    expect((await client.getProcessDefinition('gone')).deployments.map((d) => d.version)).toEqual([1, 2]);

    await client.deleteProcessDefinition('gone');
    expect(await failure(client.getProcessDefinition('gone'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await failure(client.startInstance({ bpmnProcessId: 'gone' }))).toMatchObject({ status: 404 });
    expect((await other.getProcessDefinition('gone')).latestVersion).toBe(1);

    const again = await client.deploy({ name: 'gone.bpmn', content: serviceProcess('gone', 'b') });
    expect(again).toMatchObject({ deployments: [{ version: 1, isNew: true }] });
  });

  it('answers 404 for an unknown id', async () => {
    expect(await failure(client.deleteProcessDefinition('never-deployed'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('refuses with 409 while an instance is active, and removes nothing', async () => {
    await client.deploy({ name: 'busy.bpmn', content: serviceProcess('busy', 'busy-work') });
    const { processInstanceKey } = await client.startInstance({ bpmnProcessId: 'busy' });
    const refused = await failure(client.deleteProcessDefinition('busy'));
    expect(refused).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(refused.detail).toMatch(/active instances/);
    expect((await client.getProcessDefinition('busy')).latestVersion).toBe(1);

    await client.cancelInstance(processInstanceKey);
    await client.deleteProcessDefinition('busy');
    expect(await failure(client.getProcessDefinition('busy'))).toMatchObject({ status: 404 });
  });

  it('refuses with 409 while a timer start event is armed', async () => {
    await client.deploy({ name: 'ticker.bpmn', content: timerStartProcess('ticker') });
    // The deploy answers once the partition leader has armed the start timer.
    const refused = await failure(client.deleteProcessDefinition('ticker'));
    expect(refused).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(refused.detail).toMatch(/timer start event/);
    expect((await client.getProcessDefinition('ticker')).latestVersion).toBe(1);
  });

  it('is tagged as an extension in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
    expect(doc.paths['/api/v1/process-definitions/{bpmnProcessId}'].delete.tags).toContain('extension');
    expect(doc.paths['/api/v1/decisions/{decisionId}'].delete.tags).toContain('extension');
  });
});

describe('DELETE /api/v1/decisions/{decisionId}', () => {
  it('removes every version of the decision; then it is unknown; 404 for an unknown one', async () => {
    await client.deploy({ name: 'approval.dmn', content: approvalDmn('doomed') });
    expect((await client.getDecision('doomed')).version).toBe(1);
    await client.deleteDecision('doomed');
    expect(await failure(client.getDecision('doomed'))).toMatchObject({ status: 404 });
    expect(await failure(client.evaluateDecision('doomed', { amount: 1 }))).toMatchObject({ status: 404 });
    expect(await failure(client.deleteDecision('doomed'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
