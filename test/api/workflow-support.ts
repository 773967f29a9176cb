// Models and small helpers shared by the workflow, tasks, tenancy and
// bad-input API tests: BPMN and DMN documents, uploads (raw XML and
// multipart, built by hand so the exact bytes are under the test's control),
// and bounded polls for what the engine does asynchronously.
import { randomBytes } from 'node:crypto';
import { definitions, end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import type { ApiFixture, CallResult } from './api-fixture.ts';

export { eventually } from '../engine/engine-fixture.ts';

/** start → service task of `type` → end. */
export function serviceProcess(id: string, type: string, retries?: number): string {
  return processXml(
    id,
    start() + service('task', type, '', retries === undefined ? undefined : String(retries)) + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'),
  );
}

/** start → user task `review` → end. */
export function userTaskProcess(id: string): string {
  return processXml(id, start() + '<bpmn:userTask id="review" name="Review"/>' + end() + flow('f1', 'start', 'review') + flow('f2', 'review', 'end'));
}

/** Two processes in one file. */
export function twoProcesses(first: string, second: string): string {
  // Element ids are unique across the whole document, so each process prefixes its own.
  const body = (id: string) =>
    `<bpmn:process id="${id}" isExecutable="true">${start(`${id}-start`)}${service(`${id}-task`, `${id}-work`)}${end(`${id}-end`)}` +
    `${flow(`${id}-f1`, `${id}-start`, `${id}-task`)}${flow(`${id}-f2`, `${id}-task`, `${id}-end`)}</bpmn:process>`;
  return definitions(body(first) + body(second));
}

/**
 * A DMN 1.3 decision `approval`: amount < 100 → "auto", 100..1000 → "manual".
 * Above 1000 both of the last two rules match, which a UNIQUE table refuses:
 * a deliberate evaluation failure.
 */
export function approvalDmn(decisionId = 'approval'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="defs-${decisionId}" name="Approvals" namespace="http://orca.test/dmn">
  <decision id="${decisionId}" name="Approval">
    <decisionTable id="${decisionId}-table" hitPolicy="UNIQUE">
      <input id="in1"><inputExpression id="ie1" typeRef="number"><text>amount</text></inputExpression></input>
      <output id="out1" name="approval" typeRef="string"/>
      <rule id="r1"><inputEntry id="r1i"><text>&lt; 100</text></inputEntry><outputEntry id="r1o"><text>"auto"</text></outputEntry></rule>
      <rule id="r2"><inputEntry id="r2i"><text>[100..1000]</text></inputEntry><outputEntry id="r2o"><text>"manual"</text></outputEntry></rule>
      <rule id="r3"><inputEntry id="r3i"><text>&gt; 1000</text></inputEntry><outputEntry id="r3o"><text>"board"</text></outputEntry></rule>
      <rule id="r4"><inputEntry id="r4i"><text>&gt; 1000</text></inputEntry><outputEntry id="r4o"><text>"ceo"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`;
}

/** A multipart/form-data body with one file part (and any text fields), and its Content-Type. */
export function multipart(parts: { field: string; filename?: string; content: string | Buffer; contentType?: string }[]): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----orca-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.field}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : `Content-Type: ${part.contentType ?? 'application/xml'}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function deployXml(
  api: ApiFixture,
  apiKey: string,
  xml: string,
  resourceName = 'model.bpmn',
  path = '/api/v1/process-definitions',
): Promise<CallResult> {
  return api.call('POST', path, { apiKey, body: xml, headers: { 'content-type': 'application/xml' }, query: { resourceName } });
}

export function deployMultipart(
  api: ApiFixture,
  apiKey: string,
  xml: string | Buffer,
  filename = 'model.bpmn',
  path = '/api/v1/process-definitions',
  field = 'file',
): Promise<CallResult> {
  const { body, contentType } = multipart([{ field, filename, content: xml }]);
  return api.call('POST', path, { apiKey, body, headers: { 'content-type': contentType } });
}

/** Deploys and checks it worked: tests that are not about deploying should not have to. */
export async function mustDeploy(api: ApiFixture, apiKey: string, xml: string, path = '/api/v1/process-definitions'): Promise<void> {
  const res = await deployXml(api, apiKey, xml, path.endsWith('models') ? 'model.dmn' : 'model.bpmn', path);
  if (res.status !== 200) throw new Error(`deploy failed: ${res.status} ${res.text}`);
}

export async function startInstance(api: ApiFixture, apiKey: string, bpmnProcessId: string, variables: Record<string, unknown> = {}): Promise<string> {
  const res = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId, variables } });
  if (res.status !== 201) throw new Error(`start failed: ${res.status} ${res.text}`);
  return res.json.processInstanceKey as string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** Activates one job of `type`, polling (bounded) until the engine has queued one. */
export async function activateOne(api: ApiFixture, apiKey: string, type: string, ms = 10_000): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await api.call('POST', '/api/v1/jobs/activate', { apiKey, json: { type, maxJobsToActivate: 1, worker: 'test' } });
    if (res.status !== 200) throw new Error(`activate failed: ${res.status} ${res.text}`);
    if (res.json.jobs.length > 0) return res.json.jobs[0];
    if (Date.now() > deadline) throw new Error(`no job of type ${type} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The open human task of an instance, polling (bounded) until it is listed. */
export async function openTaskOf(api: ApiFixture, apiKey: string, instanceKey: string, ms = 10_000): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await api.call('GET', '/api/v1/tasks', { apiKey, query: { 'filter.processInstanceKey': instanceKey } });
    if (res.status !== 200) throw new Error(`task list failed: ${res.status} ${res.text}`);
    if (res.json.items.length > 0) return res.json.items[0];
    if (Date.now() > deadline) throw new Error(`no task for instance ${instanceKey} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls GET /process-instances/:key until its state is `state`. */
export async function instanceInState(api: ApiFixture, apiKey: string, key: string, state: string, ms = 10_000): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey });
    if (res.status === 200 && res.json.state === state) return res.json;
    if (Date.now() > deadline) throw new Error(`instance ${key} not ${state} within ${ms} ms (last: ${res.status} ${res.json?.state})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function balanceOf(api: ApiFixture, account: string): Promise<number> {
  return api.service.credits.balance(account);
}
