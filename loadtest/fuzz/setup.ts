// Before the fuzzing: the operations from the served OpenAPI document, and
// an account with something in it, so valid-shaped requests reach past a
// 404: the README's order model, a service-task model, a user-task model
// and a DMN decision deployed, a few instances of each started, a job held
// and another failed into an incident. What the server answers fills the
// pools the generators draw ids from.
import { readFileSync } from 'node:fs';
import { approvalDmn, serviceProcess, userTaskProcess } from '../../test/api/workflow-support.ts';
import { newPools, type FuzzContext } from './generate.ts';
import { operationsOf, type Operation } from './openapi.ts';
import { harvest } from './runner.ts';

const ORDER_BPMN = readFileSync(new URL('../../examples/order.bpmn', import.meta.url), 'utf8');

export async function readOperations(baseUrl: string): Promise<Operation[]> {
  const response = await fetch(`${baseUrl}/api/v1/openapi.json`, { signal: AbortSignal.timeout(15_000) });
  if (response.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
  return operationsOf(await response.json());
}

export async function prepare(baseUrl: string, apiKey: string): Promise<FuzzContext> {
  const ctx: FuzzContext = {
    pools: newPools(),
    credentials: { key: apiKey },
    models: {
      bpmn: [ORDER_BPMN, serviceProcess('fuzz-work', 'fuzz-work', 3), userTaskProcess('fuzz-review')],
      dmn: [approvalDmn('approval'), approvalDmn('fuzz-approval')],
    },
  };
  const call = async (method: string, path: string, body?: string, contentType = 'application/json') => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body,
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`setup: ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    const json: unknown = text === '' ? undefined : JSON.parse(text);
    harvest(path, json, ctx);
    return json as Record<string, unknown>;
  };

  const models: [string, string][] = [
    ['/api/v1/process-definitions?resourceName=order.bpmn', ctx.models.bpmn[0]],
    ['/api/v1/process-definitions?resourceName=fuzz-work.bpmn', ctx.models.bpmn[1]],
    ['/api/v1/process-definitions?resourceName=fuzz-review.bpmn', ctx.models.bpmn[2]],
    ['/api/v1/models?resourceName=approval.dmn', ctx.models.dmn[0]],
  ];
  for (const [path, xml] of models) await call('POST', path, xml, 'application/xml');
  ctx.pools.ids.set('process-definitions', ['order', 'fuzz-work', 'fuzz-review']);
  ctx.pools.ids.set('decisions', ['approval']);
  ctx.pools.jobTypes.push('ship', 'fuzz-work', 'userTask');

  for (const bpmnProcessId of ['order', 'fuzz-work', 'fuzz-review']) {
    for (let i = 0; i < 3; i++)
      await call('POST', '/api/v1/process-instances', JSON.stringify({ bpmnProcessId, variables: { orderId: `A${i}`, amount: 50 * i } }));
  }
  // Activation may lag the start by a moment: poll a little for the service task's jobs.
  let jobs: { key: string }[] = [];
  for (let i = 0; i < 100 && jobs.length < 2; i++) {
    const activated = await call('POST', '/api/v1/jobs/activate', JSON.stringify({ type: 'fuzz-work', maxJobsToActivate: 2, worker: 'fuzz-setup' }));
    jobs = [...jobs, ...(activated.jobs as { key: string }[])];
    if (jobs.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (jobs.length > 0)
    await call('POST', `/api/v1/jobs/${jobs[0].key}/fail`, JSON.stringify({ retries: 0, errorMessage: 'fuzz setup: an incident to look at' }));
  await call('GET', '/api/v1/tasks?limit=50');
  await call('GET', '/api/v1/incidents?limit=50');
  return ctx;
}
