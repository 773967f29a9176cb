// Deploying CMMN case definitions over real HTTP (issue #20): raw XML,
// multipart and POST /api/v1/models, versioned by checksum like processes;
// listing and reading them back with their XML; a refused document names
// each element, as a BPMN deploy's problems do.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseXml } from '../../engine/cmmn/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { deployMultipart, deployXml } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

const claim = readFileSync(new URL('../../examples/claim.cmmn', import.meta.url), 'utf8');

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
}, 60_000);
afterAll(() => api?.close());

describe('POST /api/v1/case-definitions', () => {
  it('versions a case by checksum: the same XML keeps its version, other XML (an older one too) is a new version', async () => {
    const v1 = caseXml('<planItem id="T" definitionRef="t"/><humanTask id="t" name="Do it"/>');
    const v2 = caseXml('<planItem id="T" definitionRef="t"/><humanTask id="t" name="Do it again"/>');
    const deploy = async (xml: string) => {
      const res = await deployXml(api, apiKey, xml, 'c.cmmn', '/api/v1/case-definitions');
      expect(res.status, res.text).toBe(200);
      return res.json;
    };
    expect(await deploy(v1)).toEqual({ id: 'c', deployments: [{ caseDefinitionId: 'c', version: 1, resourceName: 'c.cmmn', isNew: true }] });
    expect((await deploy(v1)).deployments[0]).toMatchObject({ version: 1, isNew: false });
    expect((await deploy(v2)).deployments[0]).toMatchObject({ version: 2, isNew: true });
    expect((await deploy(v1)).deployments[0]).toMatchObject({ version: 3, isNew: true });

    const definition = await api.call('GET', '/api/v1/case-definitions/c', { apiKey });
    expect(definition.status).toBe(200);
    expect(definition.json).toMatchObject({ id: 'c', caseDefinitionId: 'c', version: 3, latestVersion: 3 });
    expect(definition.json.deployments.map((d: { version: number }) => d.version)).toEqual([1, 2, 3]);

    const latestXml = await api.call('GET', '/api/v1/case-definitions/c/xml', { apiKey });
    expect(latestXml.status).toBe(200);
    expect(latestXml.headers.get('content-type')).toContain('application/xml');
    expect(latestXml.text).toBe(v1);
    const second = await api.call('GET', '/api/v1/case-definitions/c/xml', { apiKey, query: { version: '2' } });
    expect(second.text).toBe(v2);
    const missing = await api.call('GET', '/api/v1/case-definitions/c/xml', { apiKey, query: { version: '9' } });
    expect(missing.status).toBe(404);
    expect(missing.json.detail).toContain('no version 9');
  });

  it('takes a multipart upload, and lists definitions with their name and latest version', async () => {
    const { apiKey: own } = await api.newAccount();
    const res = await deployMultipart(api, own, claim, 'claim.cmmn', '/api/v1/case-definitions');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: 'claim', deployments: [{ caseDefinitionId: 'claim', version: 1, resourceName: 'claim.cmmn', isNew: true }] });

    const list = await api.call('GET', '/api/v1/case-definitions', { apiKey: own });
    expect(list.status).toBe(200);
    expect(list.json.items).toEqual([
      expect.objectContaining({ caseDefinitionId: 'claim', caseName: 'Claim', version: 1, latestVersion: 1, resourceName: 'claim.cmmn' }),
    ]);
    expect(list.json.items[0].checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers the warnings of what deploys but is ignored', async () => {
    const xml = caseXml(
      `<planItem id="T" definitionRef="t"><entryCriterion sentryRef="s"/></planItem>
       <planItem id="U" definitionRef="u"/>
       <sentry id="s"><planItemOnPart sourceRef="U"><standardEvent>suspend</standardEvent></planItemOnPart></sentry>
       <humanTask id="t"/><humanTask id="u"/>`,
    );
    const res = await deployXml(api, apiKey, xml.replace(/id="c"/, 'id="warned"'), 'warned.cmmn', '/api/v1/case-definitions');
    expect(res.status, res.text).toBe(200);
    expect(res.json.warnings).toEqual([expect.objectContaining({ code: 'CMMN_EVENT_NEVER_RAISED', elementId: expect.any(String) })]);
  });

  it('refuses an invalid document with a problem per element, and deploys nothing', async () => {
    const { apiKey: own } = await api.newAccount();
    const xml = caseXml(
      '<planItem id="T" definitionRef="nowhere"/><planItem id="M" definitionRef="m"><entryCriterion sentryRef="missing"/></planItem><milestone id="m"/>',
    );
    const res = await deployXml(api, own, xml, 'bad.cmmn', '/api/v1/case-definitions');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const ids = res.json.problems.map((p: { elementId: string | null }) => p.elementId);
    expect(ids).toEqual(expect.arrayContaining(['T', 'M']));
    for (const p of res.json.problems) expect(p.message.length).toBeGreaterThan(10);
    expect(res.json.errors[0].field).toBe('body');

    const list = await api.call('GET', '/api/v1/case-definitions', { apiKey: own });
    expect(list.json.items).toEqual([]);
    expect((await api.call('GET', '/api/v1/case-definitions/c', { apiKey: own })).status).toBe(404);
  });

  it('refuses hostile XML (a DOCTYPE with an entity) as the BPMN and DMN deploys do', async () => {
    const xml = caseXml('<humanTask id="t"/>').replace('<definitions', '<!DOCTYPE d [<!ENTITY x "boom">]>\n<definitions');
    const res = await deployXml(api, apiKey, xml, 'hostile.cmmn', '/api/v1/case-definitions');
    expect(res.status).toBe(400);
    expect(res.json.detail).toMatch(/DOCTYPE/i);
  });

  it('refuses a CMMN 1.0 document saying what to change', async () => {
    const xml = caseXml('<humanTask id="t"/>').replace('20151109', '20131201');
    const res = await deployXml(api, apiKey, xml, 'old.cmmn', '/api/v1/case-definitions');
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain('http://www.omg.org/spec/CMMN/20151109/MODEL');
  });
});

describe('the deployment.created webhook event', () => {
  it('lists the new case definitions of a deploy as cases, and nothing for an unchanged redeploy', async () => {
    const { apiKey: own } = await api.newAccount();
    const hook = await api.call('POST', '/api/v1/webhooks', { apiKey: own, json: { url: 'https://93.184.216.34/hook', events: ['deployment.created'] } });
    expect(hook.status, hook.text).toBe(201);
    const deliveries = async () => {
      const res = await api.call('GET', `/api/v1/webhooks/${hook.json.id}/deliveries`, { apiKey: own, query: { limit: 1000 } });
      return res.json.items.filter((d: { type: string }) => d.type === 'deployment.created');
    };
    expect((await deployXml(api, own, claim, 'claim.cmmn', '/api/v1/case-definitions')).status).toBe(200);
    expect((await deployXml(api, own, claim, 'claim.cmmn', '/api/v1/models')).status).toBe(200);
    const events = await deliveries();
    expect(events).toHaveLength(1);
    expect(events[0].payload.data).toEqual({ deploymentId: 'claim', resources: [{ kind: 'case', id: 'claim', version: 1, resourceName: 'claim.cmmn' }] });
  });
});

describe('deploying a case with an Idempotency-Key', () => {
  it('answers a retry with the first body (isNew included), and refuses the key for another document', async () => {
    const { apiKey: own } = await api.newAccount();
    const send = (xml: string) =>
      api.call('POST', '/api/v1/case-definitions', {
        apiKey: own,
        body: xml,
        headers: { 'idempotency-key': 'case-deploy', 'content-type': 'application/xml' },
        query: { resourceName: 'k.cmmn' },
      });
    const first = await send(caseXml('<humanTask id="t"/>'));
    expect(first.status, first.text).toBe(200);
    expect(first.json.deployments[0]).toMatchObject({ caseDefinitionId: 'c', version: 1, isNew: true });
    const again = await send(caseXml('<humanTask id="t"/>'));
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    const other = await send(caseXml('<milestone id="m"/>'));
    expect(other.status).toBe(409);
    expect(other.json.errors[0].field).toBe('headers.Idempotency-Key');
    expect((await api.call('GET', '/api/v1/case-definitions/c', { apiKey: own })).json.deployments).toHaveLength(1);
  });
});

describe('POST /api/v1/models with a CMMN document', () => {
  it('deploys its cases beside DMN decisions, answered with `cases`', async () => {
    const { apiKey: own } = await api.newAccount();
    const res = await deployXml(api, own, claim, 'claim.cmmn', '/api/v1/models');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ cases: [{ caseDefinitionId: 'claim', version: 1, resourceName: 'claim.cmmn', isNew: true }] });
    const again = await deployXml(api, own, claim, 'claim.cmmn', '/api/v1/models');
    expect(again.json.cases[0]).toMatchObject({ version: 1, isNew: false });
    expect((await api.call('GET', '/api/v1/case-definitions/claim', { apiKey: own })).json.latestVersion).toBe(1);
    expect((await api.call('GET', '/api/v1/decisions', { apiKey: own })).json.items).toEqual([]);
  });
});
