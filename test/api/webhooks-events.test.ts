// The webhook events the API writes, over real HTTP: a deploy that adds a
// version writes `deployment.created` (BPMN and DMN), an unchanged redeploy
// writes nothing (a keyed deploy retried, once); closing an incident writes `incident.closed` once. Each
// becomes a delivery row only for an enabled endpoint of the account
// subscribed to its type: none for an account without one, none for an
// endpoint subscribed to other types, none for another account.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../engine/store/index.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { activateOne, approvalDmn, deployXml, instanceInState, serviceProcess, startInstance, twoProcesses, type Json } from './workflow-support.ts';

let api: ApiFixture;
/** Subscribed to both events. */
let subscribed: { apiKey: string; endpointId: string };
/** Has an endpoint, subscribed to other events only. */
let elsewhere: { apiKey: string; endpointId: string };
/** Has no endpoint at all. */
let none: { apiKey: string; account: string };

async function accountWithEndpoint(events: string[]) {
  const { apiKey } = await api.newAccount();
  const res = await api.call('POST', '/api/v1/webhooks', { apiKey, json: { url: 'https://93.184.216.34/hook', events } });
  expect(res.status, res.text).toBe(201);
  return { apiKey, endpointId: res.json.id as string };
}

beforeAll(async () => {
  api = await apiFixture();
  subscribed = await accountWithEndpoint(['deployment.created', 'incident.closed']);
  elsewhere = await accountWithEndpoint(['process_instance.completed', 'incident.created']);
  none = await api.newAccount();
}, 60_000);
afterAll(() => api?.close());

async function deliveriesOf(endpointId: string, type: string): Promise<Json[]> {
  const res = await api.call('GET', `/api/v1/webhooks/${endpointId}/deliveries`, { apiKey: subscribed.apiKey, query: { limit: 1000 } });
  if (res.status === 200) return res.json.items.filter((d: Json) => d.type === type);
  // Another account's endpoint: read its rows directly.
  return rows(api.engine.store.db, sql`select * from webhook_deliveries where endpoint_id = ${endpointId} and type = ${type}`);
}

async function allDeliveries(type: string): Promise<{ account: string; endpoint_id: string }[]> {
  return rows(api.engine.store.db, sql`select account, endpoint_id from webhook_deliveries where type = ${type}`);
}

async function deploy(apiKey: string, xml: string, resourceName = 'orders.bpmn', path?: string) {
  const res = await deployXml(api, apiKey, xml, resourceName, path);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

describe('deployment.created', () => {
  it('is written with a deploy that adds versions, once per deploy, not for an unchanged redeploy', async () => {
    const v1 = serviceProcess('orders', 'charge');
    const answer = await deploy(subscribed.apiKey, v1);
    let events = await deliveriesOf(subscribed.endpointId, 'deployment.created');
    expect(events).toHaveLength(1);
    expect(events[0].payload).toEqual({
      type: 'deployment.created',
      timestamp: expect.any(String),
      data: { deploymentId: answer.id, resources: [{ kind: 'process', id: 'orders', version: 1, resourceName: 'orders.bpmn' }] },
    });
    expect(events[0].status).toBe('pending');
    expect(events[0].eventId).toMatch(/^msg_process_orders_v1_\d+_deployment_created$/);

    await deploy(subscribed.apiKey, v1);
    expect(await deliveriesOf(subscribed.endpointId, 'deployment.created')).toHaveLength(1);

    await deploy(subscribed.apiKey, serviceProcess('orders', 'charge', 5));
    events = await deliveriesOf(subscribed.endpointId, 'deployment.created');
    expect(events).toHaveLength(2);
    expect(events[0].payload.data.resources).toEqual([{ kind: 'process', id: 'orders', version: 2, resourceName: 'orders.bpmn' }]);
    expect(events[0].eventId).not.toBe(events[1].eventId);
  });

  it('lists only the new resources of a document, and DMN decisions as decisions', async () => {
    await deploy(subscribed.apiKey, serviceProcess('billing', 'bill'));
    await deploy(subscribed.apiKey, twoProcesses('billing', 'shipping'), 'both.bpmn');
    const [both] = await deliveriesOf(subscribed.endpointId, 'deployment.created');
    expect(both.payload.data.deploymentId).toBe('billing');
    expect(both.payload.data.resources).toEqual([
      { kind: 'process', id: 'billing', version: 2, resourceName: 'both.bpmn' },
      { kind: 'process', id: 'shipping', version: 1, resourceName: 'both.bpmn' },
    ]);

    await deploy(subscribed.apiKey, approvalDmn('approval'), 'approval.dmn', '/api/v1/models');
    const [dmn] = await deliveriesOf(subscribed.endpointId, 'deployment.created');
    expect(dmn.payload.data).toEqual({ deploymentId: 'approval', resources: [{ kind: 'decision', id: 'approval', version: 1, resourceName: 'approval.dmn' }] });
  });

  it('is written in the transaction of a keyed deploy, once however often the request is retried', async () => {
    const send = () =>
      api.call('POST', '/api/v1/process-definitions', {
        apiKey: subscribed.apiKey,
        body: serviceProcess('keyed', 'k'),
        headers: { 'content-type': 'application/xml', 'idempotency-key': 'deploy-keyed-1' },
        query: { resourceName: 'keyed.bpmn' },
      });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const keyed = (await deliveriesOf(subscribed.endpointId, 'deployment.created')).filter((d) => d.payload.data.deploymentId === 'keyed');
    expect(keyed).toHaveLength(1);
  });

  it('writes nothing for an account without a subscribed endpoint', async () => {
    const before = await allDeliveries('deployment.created');
    await deploy(elsewhere.apiKey, serviceProcess('orders', 'charge'));
    await deploy(none.apiKey, serviceProcess('orders', 'charge'));
    await deploy(none.apiKey, approvalDmn('approval'), 'approval.dmn', '/api/v1/models');
    expect(await allDeliveries('deployment.created')).toEqual(before);
    expect(await deliveriesOf(elsewhere.endpointId, 'deployment.created')).toEqual([]);
  });

  it('is not written to a disabled endpoint', async () => {
    const { apiKey, endpointId } = await accountWithEndpoint(['deployment.created']);
    await api.call('POST', `/api/v1/webhooks/${endpointId}/disable`, { apiKey });
    await deploy(apiKey, serviceProcess('quiet', 'q'));
    expect(await rows(api.engine.store.db, sql`select 1 from webhook_deliveries where endpoint_id = ${endpointId}`)).toEqual([]);
  });
});

describe('incident.closed', () => {
  async function openIncident(apiKey: string, process: string): Promise<{ id: string; processInstanceKey: string }> {
    await deploy(apiKey, serviceProcess(process, `${process}-work`), `${process}.bpmn`);
    const instanceKey = await startInstance(api, apiKey, process);
    const job = await activateOne(api, apiKey, `${process}-work`);
    const failed = await api.call('POST', `/api/v1/jobs/${job.key}/fail`, { apiKey, json: { retries: 0, errorMessage: 'card declined' } });
    expect(failed.status).toBe(204);
    await instanceInState(api, apiKey, instanceKey, 'INCIDENT');
    const incidents = await api.call('GET', '/api/v1/incidents', { apiKey, query: { 'filter.processInstanceKey': instanceKey } });
    return { id: incidents.json.items[0].id, processInstanceKey: instanceKey };
  }

  it('is written once when the API closes an incident, with its keys', async () => {
    const incident = await openIncident(subscribed.apiKey, 'payment');
    expect(await deliveriesOf(subscribed.endpointId, 'incident.closed')).toEqual([]);
    const closed = await api.call('PATCH', `/api/v1/incidents/${incident.id}`, { apiKey: subscribed.apiKey });
    expect(closed.status).toBe(200);
    const events = await deliveriesOf(subscribed.endpointId, 'incident.closed');
    expect(events).toHaveLength(1);
    expect(events[0].eventId).toBe(`msg_${incident.id}_incident_closed`);
    expect(events[0].payload).toEqual({
      type: 'incident.closed',
      timestamp: closed.json.resolvedAt,
      data: { incidentKey: incident.id, processInstanceKey: incident.processInstanceKey, bpmnProcessId: 'payment' },
    });
    // Closing it again is answered, and reports nothing new.
    expect((await api.call('PATCH', `/api/v1/incidents/${incident.id}`, { apiKey: subscribed.apiKey })).status).toBe(200);
    expect(await deliveriesOf(subscribed.endpointId, 'incident.closed')).toHaveLength(1);
  });

  it('writes nothing for an account without a subscribed endpoint', async () => {
    const before = await allDeliveries('incident.closed');
    for (const apiKey of [elsewhere.apiKey, none.apiKey]) {
      const incident = await openIncident(apiKey, 'refund');
      expect((await api.call('PATCH', `/api/v1/incidents/${incident.id}`, { apiKey })).status).toBe(200);
    }
    expect(await allDeliveries('incident.closed')).toEqual(before);
  });
});
