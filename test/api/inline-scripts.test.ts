// Inline zeebe:script over real HTTP (extension): `?inlineScripts=true` on
// deploy makes a script task with a zeebe:script expression run inline in
// the partition leaders, the choice stored with the version (the same XML
// deployed with the other choice is a new version; the version view says
// it); a failing expression is an incident naming the element; without the
// option, the job and the warning as before; a bad value is a 400 naming
// query.inlineScripts that deploys nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { activateOne, instanceInState, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

const script = (id: string, expression: string) =>
  `<bpmn:scriptTask id="${id}"><bpmn:extensionElements><zeebe:script expression="${expression}" resultVariable="total"/></bpmn:extensionElements></bpmn:scriptTask>`;
const model = (id: string, expression: string) =>
  processXml(
    id,
    start() +
      script('sum', expression) +
      service('after', `${id}-after`) +
      end() +
      flow('f1', 'start', 'sum') +
      flow('f2', 'sum', 'after') +
      flow('f3', 'after', 'end'),
  );

const deploy = (xml: string, inlineScripts?: string) =>
  api.call('POST', '/api/v1/process-definitions', {
    apiKey,
    body: xml,
    headers: { 'content-type': 'application/xml' },
    query: inlineScripts === undefined ? { resourceName: 'inline.bpmn' } : { resourceName: 'inline.bpmn', inlineScripts },
  });

describe('inline zeebe:script on deploy', () => {
  it('runs the script inline with the option, stores the choice with the version, and without it waits as a job', async () => {
    const xml = model('summing', '=a + b');
    const inline = await deploy(xml, 'true');
    expect(inline.status, inline.text).toBe(200);
    expect(inline.json.deployments).toEqual([expect.objectContaining({ bpmnProcessId: 'summing', version: 1, isNew: true })]);
    expect(inline.json.warnings ?? []).not.toContainEqual(expect.objectContaining({ elementId: 'sum', code: 'SCRIPT_TASK_IS_JOB' }));
    const key = await startInstance(api, apiKey, 'summing', { a: 2, b: 3 });
    const after = await activateOne(api, apiKey, 'summing-after');
    expect(after).toMatchObject({ processInstanceKey: key, variables: { a: 2, b: 3, total: 5 } });
    expect((await api.call('POST', `/api/v1/jobs/${after.key}/complete`, { apiKey, json: {} })).status).toBe(204);
    await instanceInState(api, apiKey, key, 'COMPLETED');

    // The same XML with the option again keeps the version; without it, it is a new version that waits as a job.
    expect((await deploy(xml, 'true')).json.deployments[0]).toMatchObject({ version: 1, isNew: false });
    const plain = await deploy(xml);
    expect(plain.json.deployments[0]).toMatchObject({ version: 2, isNew: true });
    expect(plain.json.warnings).toContainEqual(expect.objectContaining({ elementId: 'sum', code: 'SCRIPT_TASK_IS_JOB' }));
    const waiting = await startInstance(api, apiKey, 'summing', { a: 1, b: 1 });
    const job = await activateOne(api, apiKey, 'script:sum');
    expect(job).toMatchObject({ processInstanceKey: waiting, customHeaders: { 'script.expression': 'a + b', 'script.resultVariable': 'total' } });

    const versions = (await api.call('GET', '/api/v1/process-definitions/summing', { apiKey })).json.deployments;
    expect(versions.map((v: { version: number; inlineScripts?: boolean }) => [v.version, v.inlineScripts ?? false])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('a failing expression is an incident naming the element', async () => {
    expect((await deploy(model('overflowing', '=count(for i in 1..100000000 return i)'), 'true')).status).toBe(200);
    const key = await startInstance(api, apiKey, 'overflowing');
    const instance = await instanceInState(api, apiKey, key, 'INCIDENT');
    expect(instance.incidents).toEqual([expect.objectContaining({ type: 'EXTRACT_VALUE_ERROR', elementId: 'sum' })]);
    expect(instance.incidents[0].message).toContain("The script of 'sum' failed");
  });

  it('refuses a value other than true or false with a 400 naming it, deploying nothing', async () => {
    expectProblem(await deploy(model('never', '=1'), 'yes'), 400, 'query.inlineScripts');
    expect((await api.call('GET', '/api/v1/process-definitions/never', { apiKey })).status).toBe(404);
  });

  it('is tagged extension in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json;
    const parameter = doc.paths['/api/v1/process-definitions'].post.parameters.find((p: { name: string }) => p.name === 'inlineScripts');
    expect(parameter.schema['x-orca-extension'] ?? parameter['x-orca-extension']).toBe(true);
  });
});
