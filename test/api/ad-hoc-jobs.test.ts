// The job of an ad-hoc subprocess (Zeebe 8.8's job worker implementation)
// over real HTTP: POST /api/v1/jobs/{jobKey}/complete with a `result`
// (extension) activates inner elements with local variables and completes
// the subprocess; an element it cannot activate is a 400 naming the field
// that changes nothing; a malformed result is a 400 from the schema. The
// client library carries it too. Camunda's AI Email Support Agent (from the
// shared models beside the checkout; skipped without them) runs through its
// agent over HTTP.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompletionWithResult, createWorker, OrcaClient } from '../../client/index.ts';
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
    expectProblem(bad, 400, 'body.result.activateElements[1].elementId');
    expect(bad.json.detail).toContain("'nope' is not an element ad-hoc subprocess 'tools' can activate");
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
    expectProblem(wrong, 400, 'body.result');
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

  it("a worker's handler completes with a result: the agent calls a tool, is asked again, and ends it", async () => {
    const client = new OrcaClient({ url: api.baseUrl, apiKey });
    const { processInstanceKey } = await client.startInstance({ bpmnProcessId: 'agent' });
    const asked: number[] = [];
    const agent = createWorker({
      client,
      type: 'adhoc-agent',
      requestTimeout: 1_000,
      handler: (job) => {
        asked.push(Number(job.key));
        return asked.length === 1
          ? new CompletionWithResult({ type: 'adHocSubProcess', activateElements: [{ elementId: 'lookup', variables: { call: { name: 'lookup' } } }] })
          : new CompletionWithResult({ type: 'adHocSubProcess', isCompletionConditionFulfilled: true }, { verdict: 'answered' });
      },
    });
    const tool = createWorker({ client, type: 'adhoc-lookup', requestTimeout: 1_000, handler: () => ({ answer: 42 }) });
    try {
      await instanceInState(api, apiKey, processInstanceKey, 'COMPLETED');
    } finally {
      await Promise.all([agent.stop(), tool.stop()]);
    }
    expect(asked).toHaveLength(2);
    const instance = await client.getInstance(processInstanceKey);
    expect(instance.variables).toMatchObject({ verdict: 'answered', results: [{ tool: 'lookup', answer: 42 }] });
  });
});

describe('activating elements of a running ad-hoc subprocess (extension)', () => {
  const activate = (key: string, json: unknown) => api.call('POST', `/api/v1/process-instances/${key}/ad-hoc-activities`, { apiKey, json });

  it('starts a path at each element named, beside the agent; a bad element or key is refused and changes nothing', async () => {
    const key = await startInstance(api, apiKey, 'agent');
    const job = await activateOne(api, apiKey, 'adhoc-agent');
    const detail = (await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey })).json;
    const tools = detail.activeElements.find((e: { elementId: string }) => e.elementId === 'tools').elementInstanceKey;

    expectProblem(await activate(key, { adHocSubProcessInstanceKey: tools, elements: [{ elementId: 'nope' }] }), 400, 'body.elements[0].elementId');
    expectProblem(await activate(key, { adHocSubProcessInstanceKey: tools, elements: [] }), 400, 'body.elements');
    expectProblem(await activate(key, { adHocSubProcessInstanceKey: key, elements: [{ elementId: 'mail' }] }), 404);
    expect((await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type: 'adhoc-mail', maxJobsToActivate: 5, worker: 't' } })).json.jobs).toEqual(
      [],
    );

    const done = await activate(key, { adHocSubProcessInstanceKey: tools, elements: [{ elementId: 'mail', variables: { to: 'ops' } }] });
    expect(done.status, done.text).toBe(204);
    const mail = await activateOne(api, apiKey, 'adhoc-mail');
    expect(mail.variables.to).toBe('ops');
    expect((await complete(mail.key, {})).status).toBe(204);
    expect((await complete(job.key, { result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true } })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');
    expectProblem(await activate(key, { adHocSubProcessInstanceKey: tools, elements: [{ elementId: 'mail' }] }), 409);
  });

  it('the client library activates them too', async () => {
    const client = new OrcaClient({ url: api.baseUrl, apiKey });
    const { processInstanceKey } = await client.startInstance({ bpmnProcessId: 'agent' });
    const detail = await client.getInstance(processInstanceKey);
    const tools = detail.activeElements.find((e) => e.elementId === 'tools')!.elementInstanceKey;
    await client.activateAdHocElements(processInstanceKey, tools, [{ elementId: 'lookup' }]);
    const [lookup] = await client.activateJobs({ type: 'adhoc-lookup', maxJobsToActivate: 1, worker: 'client', requestTimeout: 5_000 });
    expect(lookup.processInstanceKey).toBe(processInstanceKey);
    await client.cancelInstance(processInstanceKey);
  });
});

const agentFile = fileURLToPath(new URL('../../../shared/bpmn/tut-ai-email-support-agent.bpmn', import.meta.url));

describe.skipIf(!existsSync(agentFile))('AI Email Support Agent over HTTP', () => {
  it('an email starts it; the agent calls the email tool, is asked again, says it is done, and the instance moves on', async () => {
    await mustDeploy(api, apiKey, readFileSync(agentFile, 'utf8'));
    const currentEmail = { fromAddress: 'ana@example.com', subject: 'Loan rate', messageId: '<m1>', plainTextBody: 'What is my rate?' };
    const published = await api.call('POST', '/api/v1/messages', {
      apiKey,
      json: { name: '3c562193-4e24-4d28-8407-3f6079e80f0e', variables: { currentEmail } },
    });
    expect(published.status, published.text).toBe(201);
    expect(published.json.startedInstances).toBe(1);
    const fetch = await activateOne(api, apiKey, 'io.camunda:embeddings-vector-database:1');
    const key: string = fetch.processInstanceKey;
    expect((await complete(fetch.key, { variables: { customerPreviousConversationContext: 'none' } })).status).toBe(204);

    const agent = await activateOne(api, apiKey, 'io.camunda.agenticai:aiagent-job-worker:1');
    const toolCall = { _meta: { id: 'call-1', name: 'Reply_with_email_to_customer' }, emailContent: 'Your rate is 4.2%.' };
    const asked = await complete(agent.key, {
      result: { type: 'adHocSubProcess', activateElements: [{ elementId: 'Reply_with_email_to_customer', variables: { toolCall } }] },
    });
    expect(asked.status, asked.text).toBe(204);
    const email = await activateOne(api, apiKey, 'io.camunda:email:1');
    expect(email.variables.data.smtpAction.body).toBe('Your rate is 4.2%.');
    expect((await complete(email.key, {})).status).toBe(204);
    const reply = await activateOne(api, apiKey, 'event:message:Event_WaitForResponse');
    expect((await complete(reply.key, { variables: { responseEmail: 'Thanks!' } })).status).toBe(204);

    const again = await activateOne(api, apiKey, 'io.camunda.agenticai:aiagent-job-worker:1');
    expect(again.variables.toolCallResults).toEqual([{ id: 'call-1', name: 'Reply_with_email_to_customer', content: null }]);
    const done = await complete(again.key, {
      variables: { agent: { responseText: 'Resolved.' } },
      result: { type: 'adHocSubProcess', isCompletionConditionFulfilled: true },
    });
    expect(done.status, done.text).toBe(204);
    const memory = await activateOne(api, apiKey, 'io.camunda:embeddings-vector-database:1');
    expect(memory).toMatchObject({ processInstanceKey: key, elementId: 'Activity_0tn95r9' });
    expect(memory.variables.agent).toEqual({ responseText: 'Resolved.' });
  });
});
