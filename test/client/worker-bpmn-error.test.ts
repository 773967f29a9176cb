// createWorker against a real server: a handler that throws a BpmnError
// throws that BPMN error for its job (extension route, with an
// Idempotency-Key), so the task's error boundary takes over with the
// variables; an uncaught code leaves the instance in INCIDENT; and
// OrcaClient.throwJobError answers a job that is gone with a 404 OrcaError.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BpmnError, createWorker, OrcaClient, OrcaError, type WorkerEvent } from '../../client/index.ts';
import { definitions, end, flow, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually } from '../api/workflow-support.ts';

let api: ApiFixture;
let client: OrcaClient;

/** start → check (job `stock-check`) → end; NO_STOCK on check → backorder (job `backorder`). */
const model = definitions(
  '<bpmn:error id="Err_Stock" errorCode="NO_STOCK"/>' +
    '<bpmn:process id="stock" isExecutable="true">' +
    start() +
    service('check', 'stock-check') +
    end() +
    '<bpmn:boundaryEvent id="onStock" attachedToRef="check"><bpmn:errorEventDefinition errorRef="Err_Stock"/></bpmn:boundaryEvent>' +
    service('backorder', 'backorder') +
    end('e2') +
    flow('f1', 'start', 'check') +
    flow('f2', 'check', 'end') +
    flow('b1', 'onStock', 'backorder') +
    flow('b2', 'backorder', 'e2') +
    '</bpmn:process>',
);

beforeAll(async () => {
  api = await apiFixture();
  const { apiKey } = await api.newAccount();
  client = new OrcaClient({ url: api.baseUrl, apiKey });
  await client.deploy({ name: 'stock.bpmn', content: model });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await api?.close();
});

describe('a handler throwing BpmnError', () => {
  it('throws the BPMN error for its job: the boundary catches it by code, with the variables; another code is an incident', async () => {
    const caught = (await client.startInstance({ bpmnProcessId: 'stock', variables: { sku: 'A' } })).processInstanceKey;
    const uncaught = (await client.startInstance({ bpmnProcessId: 'stock', variables: { sku: 'B' } })).processInstanceKey;
    const events: WorkerEvent[] = [];
    const checker = createWorker({
      client,
      type: 'stock-check',
      pollIntervalMs: [20, 50],
      onEvent: (event) => events.push(event),
      handler: (job) => {
        if (job.variables.sku === 'A') throw new BpmnError('NO_STOCK', 'none left', { restockDays: 3 });
        throw new BpmnError('RECALLED');
      },
    });
    const seen: Record<string, unknown>[] = [];
    const backorder = createWorker({ client, type: 'backorder', pollIntervalMs: [20, 50], handler: (job) => void seen.push(job.variables) });
    try {
      await eventually(async () => ((await client.getInstance(caught)).state === 'COMPLETED' ? true : undefined), 'the caught instance to complete');
      expect(seen).toEqual([{ sku: 'A', restockDays: 3 }]);
      const incident = await eventually(async () => {
        const instance = await client.getInstance(uncaught);
        return instance.state === 'INCIDENT' ? instance.incidents[0] : undefined;
      }, 'the uncaught instance to have an incident');
      expect(incident).toMatchObject({ type: 'UNHANDLED_ERROR_EVENT', elementId: 'check' });
      expect(incident.message).toContain("'RECALLED'");
      expect(checker.stats()).toMatchObject({ errored: 2, failed: 0, completed: 0 });
      expect(events.filter((e) => e.type === 'job-error-thrown')).toHaveLength(2);
      expect(events.filter((e) => e.type === 'outcome-refused')).toEqual([]);
    } finally {
      await checker.stop();
      await backorder.stop();
    }
  });

  it('OrcaClient.throwJobError: a job that is gone is a 404 OrcaError', async () => {
    const refused = await client.throwJobError('12345', { errorCode: 'NO_STOCK' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OrcaError);
    expect((refused as OrcaError).status).toBe(404);
  });
});
