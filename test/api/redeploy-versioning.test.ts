// Redeploy versioning over real HTTP, as Zeebe does it: a deploy keeps the
// latest version only when its XML is that version's; an older version's XML
// deployed again becomes a new latest version (a rollback), which the next
// start runs and the next evaluation uses. BPMN and DMN alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, approvalDmn, deployXml, serviceProcess } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

describe('redeploying a process', () => {
  it("makes an older version's XML the latest again, as a new version the next start runs", async () => {
    const v1 = serviceProcess('rollback', 'work-v1');
    const v2 = serviceProcess('rollback', 'work-v2');
    const deploy = async (xml: string) => (await deployXml(api, apiKey, xml, 'rollback.bpmn')).json.deployments[0];
    expect(await deploy(v1)).toMatchObject({ version: 1, isNew: true });
    expect(await deploy(v2)).toMatchObject({ version: 2, isNew: true });
    expect(await deploy(v1)).toMatchObject({ version: 3, isNew: true });
    expect(await deploy(v1)).toMatchObject({ version: 3, isNew: false });

    const started = await api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'rollback' } });
    expect(started.json).toMatchObject({ bpmnProcessId: 'rollback', version: 3 });
    const job = await activateOne(api, apiKey, 'work-v1');
    expect(job.processInstanceKey).toBe(started.json.processInstanceKey);

    const definition = await api.call('GET', '/api/v1/process-definitions/rollback', { apiKey });
    const versions = definition.json.deployments.map((d: { version: number; checksum: string }) => [d.version, d.checksum]);
    expect(versions).toHaveLength(3);
    expect(versions[2][1]).toBe(versions[0][1]);
    expect(versions[1][1]).not.toBe(versions[0][1]);
  });
});

describe('redeploying a decision', () => {
  it("makes an older version's XML the latest again, as a new version the next evaluation uses", async () => {
    const v1 = approvalDmn('rollback-approval');
    const v2 = v1.replace('"manual"', '"review"');
    const deploy = async (xml: string) => (await deployXml(api, apiKey, xml, 'approval.dmn', '/api/v1/models')).json.decisions[0];
    const evaluate = async () =>
      (await api.call('POST', '/api/v1/decisions/rollback-approval/evaluate', { apiKey, json: { variables: { amount: 250 } } })).json;

    expect(await deploy(v1)).toMatchObject({ version: 1, isNew: true });
    expect(await deploy(v2)).toMatchObject({ version: 2, isNew: true });
    expect(await evaluate()).toMatchObject({ version: 2, result: 'review' });
    expect(await deploy(v1)).toMatchObject({ version: 3, isNew: true });
    expect(await evaluate()).toMatchObject({ version: 3, result: 'manual' });
    expect(await deploy(v1)).toMatchObject({ version: 3, isNew: false });
  });
});
