// Issue 23 over real HTTP: a deployed process whose gateway condition would
// loop for minutes or exhaust the heap ends in INCIDENT, naming the flow,
// the expression and the limit, while GET /healthz keeps answering; a
// decision whose FEEL hits a limit is a 400 problem naming the decision and
// the limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definitions as dmnDefinitions, literalDecision, tableDecision } from '../../engine/dmn/fixture.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { deployXml, instanceInState, mustDeploy, startInstance } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey } = await api.newAccount());
});

afterAll(async () => {
  await api?.close();
});

function gatewayProcess(id: string, condition: string): string {
  return processXml(
    id,
    start() +
      '<bpmn:exclusiveGateway id="gw" default="toSmall"/>' +
      service('big', `${id}-big`) +
      service('small', `${id}-small`) +
      end() +
      flow('f0', 'start', 'gw') +
      flow('toBig', 'gw', 'big', condition) +
      flow('toSmall', 'gw', 'small') +
      flow('f1', 'big', 'end') +
      flow('f2', 'small', 'end'),
  );
}

/** Runs `work` while asking GET /healthz over and over; returns its result and every status /healthz gave. */
async function whileProbingHealth<T>(work: () => Promise<T>): Promise<{ result: T; statuses: number[] }> {
  const statuses: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done) statuses.push((await api.call('GET', '/healthz')).status);
  })();
  try {
    return { result: await work(), statuses };
  } finally {
    done = true;
    await probe;
  }
}

async function incidentMessage(key: string): Promise<string> {
  const res = await api.call('GET', '/api/v1/incidents', { apiKey, query: { 'filter.processInstanceKey': key } });
  expect(res.status).toBe(200);
  expect(res.json.items).toHaveLength(1);
  expect(res.json.items[0]).toMatchObject({ elementId: 'gw', type: 'CONDITION_ERROR' });
  return res.json.items[0].message as string;
}

describe('a hostile gateway condition over HTTP', () => {
  it.each([
    ['range', '=count(for i in 1..100000000 return i) > 0', {}, /item limit/],
    ['double-for', '=count(for i in 1..10000, j in 1..10000 return i) > 0', {}, /item limit|time limit/],
    ['list-product', '=count(for a in L, b in L return a) > 0', { L: Array.from({ length: 5_000 }, (_, i) => i) }, /time limit/],
  ] as const)('%s: the instance ends in INCIDENT and /healthz answers throughout', async (id, condition, variables, limit) => {
    await mustDeploy(api, apiKey, gatewayProcess(id, condition));
    const { result: key, statuses } = await whileProbingHealth(async () => {
      const started = await startInstance(api, apiKey, id, variables);
      await instanceInState(api, apiKey, started, 'INCIDENT');
      return started;
    });
    expect(statuses.length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const message = await incidentMessage(key);
    expect(message).toContain("sequence flow 'toBig' leaving 'gw'");
    expect(message).toContain(condition.slice(1));
    expect(message).toMatch(limit);
    // The service is fine afterwards: an ordinary instance of another process still starts and runs.
    await mustDeploy(api, apiKey, gatewayProcess(`${id}-calm`, '=amount > 100'));
    const calm = await startInstance(api, apiKey, `${id}-calm`, { amount: 500 });
    expect((await api.call('GET', `/api/v1/process-instances/${calm}`, { apiKey })).json.state).toBe('ACTIVE');
  });
});

describe('a decision evaluated over REST', () => {
  it('is a 400 problem naming the decision and the limit when its FEEL builds too much', async () => {
    const deployed = await deployXml(
      api,
      apiKey,
      dmnDefinitions(literalDecision({ id: 'greedy', name: 'Greedy', text: 'count(for i in 1..100000000 return i) > 0' })),
      'greedy.dmn',
      '/api/v1/models',
    );
    expect(deployed.status).toBe(200);
    const res = await api.call('POST', '/api/v1/decisions/greedy/evaluate', { apiKey, json: { variables: {} } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({ status: 400, code: 'INVALID_INPUT', decisionId: 'greedy' });
    expect(res.json.detail).toContain("decision 'greedy' (Greedy)");
    expect(res.json.detail).toMatch(/item limit of one evaluation/);
  });

  it('is a 400 problem naming the time limit when an entry loops past the deadline, and /healthz answers meanwhile', async () => {
    const table = tableDecision({ id: 'slow', inputs: ['L'], outputs: ['out'], rules: [[['count(for a in ?, b in ? return a) > 0'], ['"many"']]] });
    expect((await deployXml(api, apiKey, dmnDefinitions(table), 'slow.dmn', '/api/v1/models')).status).toBe(200);
    const L = Array.from({ length: 5_000 }, (_, i) => i);
    const { result: res, statuses } = await whileProbingHealth(() =>
      api.call('POST', '/api/v1/decisions/slow/evaluate', { apiKey, json: { variables: { L } } }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_INPUT', decisionId: 'slow' });
    expect(res.json.detail).toContain("decision 'slow'");
    expect(res.json.detail).toMatch(/time limit of one evaluation/);
  });
});
