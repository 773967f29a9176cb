// The job of an ad-hoc subprocess (Zeebe 8.8's job worker implementation)
// over real HTTP: POST /api/v1/jobs/{jobKey}/complete with a `result`
// (extension) activates inner elements with local variables and completes
// the subprocess; an element it cannot activate is a 400 naming the field
// that changes nothing; a malformed result is a 400 from the schema. The
// client library carries it too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrcaClient } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { activateOne, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';

let api: ApiFixture;
let apiKey: string;

const agentProcess = processXml(
  'agent',
  start() +
    '<bpmn:adHocSubProcess id="tools"><bpmn:extensionElements><zeebe:taskDefinition type="adhoc-agent"/>' +
    '<zeebe:adHoc outputCollection="results" outputElement="={tool: call.name, answer: answer}"/></bpmn:extensionElements>' +
    service('lookup', 'adhoc-lookup') +
    service('mail', 'adhoc-mail') +
    '</bpmn:adHocSubProcess>' +
    end() +
    flow('f1', 'start', 'tools') +
    flow('f2', 'tools', 'end'),
);

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
  await mustDeploy(api, apiKey, agentProcess);
}, 60_000);
afterAll(() => api?.close());

const complete = (jobKey: string, json: unknown) => api.call('POST', `/api/v1/jobs/${jobKey}/complete`, { apiKey, json });

describe('job result of an ad-hoc subprocess (extension)', () => {
  it('activates the named element with local variables, asks again when nothing is active, and completes when told', async () => {
    const key = await startInstance(api, apiKey, 'agent', { topic: 'loans' });
    const first = await activateOne(api, apiKey, 'adhoc-agent');
    expect(first.variables.topic).toBe('loans');
    const done = await complete(first.key, {
      variables: { thought: 'look it up' },
      result: { type: 'adHocSubProcess', activateElements: [{ elementId: 'lookup', variables: { call: { name: 'lookup' } } }] },
    });
    expect(done.status, done.text).toBe(204);
    const lookup = await activateOne(api, apiKey, 'adhoc-lookup');
    expect(lookup.variables.call).toEqual({ name: 'lookup' });
    expect((await complete(lookup.key, { variables: { answer: 42 } })).status).toBe(204);
    const second = await activateOne(api, apiKey, 'adhoc-agent');
    expect(second.variables.results).toEqual([{ tool: 'lookup', answer: 42 }]);
    expect((await complete(second.key, { result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true } })).status).toBe(204);
    const instance = await instanceInState(api, apiKey, key, 'COMPLETED');
    expect(instance.variables.results).toEqual([{ tool: 'lookup', answer: 42 }]);
  });

  it('an element it cannot activate is a 400 naming the field, and nothing changes', async () => {
    const key = await startInstance(api, apiKey, 'agent');
    const job = await activateOne(api, apiKey, 'adhoc-agent');
    const bad = await complete(job.key, { result: { type: 'adHocSubProcess', activateElements: [{ elementId: 'lookup' }, { elementId: 'nope' }] } });
    expectProblem(bad, 400);
    expect(bad.json.detail).toContain('result.activateElements[1].elementId');
    // The job is still there to complete.
    expect((await complete(job.key, { result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true } })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('a malformed result is refused by the schema; a result for a task’s job is a 400', async () => {
    const key = await startInstance(api, apiKey, 'agent');
    const job = await activateOne(api, apiKey, 'adhoc-agent');
    expectProblem(await complete(job.key, { result: { type: 'other' } }), 400, 'body.result.type');
    expectProblem(
      await complete(job.key, { result: { type: 'adHocSubProcess', activateElements: [{ variables: {} }] } }),
      400,
      /body\.result\.activateElements/,
    );
    await complete(job.key, { result: { type: 'adHocSubProcess', activateElements: [{ elementId: 'mail' }] } });
    const mail = await activateOne(api, apiKey, 'adhoc-mail');
    const wrong = await complete(mail.key, { result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true } });
    expectProblem(wrong, 400);
    expect(wrong.json.detail).toContain('result is for the job of an ad-hoc subprocess');
    expect((await complete(mail.key, {})).status).toBe(204);
    const again = await activateOne(api, apiKey, 'adhoc-agent');
    await complete(again.key, { result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true } });
    await instanceInState(api, apiKey, key, 'COMPLETED');
  });

  it('the client library completes with a result', async () => {
    const client = new OrcaClient({ url: api.baseUrl, apiKey });
    const { processInstanceKey } = await client.startInstance({ bpmnProcessId: 'agent' });
    const [job] = await client.activateJobs({ type: 'adhoc-agent', maxJobsToActivate: 1, worker: 'client' });
    await client.completeJob(job.key, { note: 'done' }, { result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true } });
    await instanceInState(api, apiKey, processInstanceKey, 'COMPLETED');
  });
});
