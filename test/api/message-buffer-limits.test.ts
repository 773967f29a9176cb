// The message buffer's bounds (extension, docs/messages.md) through the
// partition leaders: an account may hold LIMITS.maxBufferedMessagesPerAccountPartition
// messages buffered on a partition (each keeps a copy of every buffered
// message, so that is the account's bound); past that a publish with a
// time to live is a 429 with Retry-After that buffers nothing, starts
// nothing and keeps no credit, while one with no time to live still goes
// through. Messages whose time to live ran out leave Postgres with the next
// batch of their partition, found by the expiry index, not a scan.
import { and, countDistinct, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../engine/limits.ts';
import { definitions, end, flow, service } from '../../engine/runtime/testing.ts';
import { bufferedMessages } from '../../engine/store/schema.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { expectProblem } from './hostile-support.ts';
import { balanceOf, eventually, mustDeploy } from './workflow-support.ts';

let api: ApiFixture;
let apiKey: string;
let account: string;

/** Started by the message `fill`: a publish of it charges 1 credit for the start it may make. */
const STARTED = definitions(
  '<bpmn:message id="Fill" name="fill"/>' +
    '<bpmn:process id="fill-started" isExecutable="true">' +
    '<bpmn:startEvent id="ms"><bpmn:messageEventDefinition messageRef="Fill"/></bpmn:startEvent>' +
    service('work', 'fill-work') +
    end() +
    flow('f1', 'ms', 'work') +
    flow('f2', 'work', 'end') +
    '</bpmn:process>',
);

const publish = (body: unknown) => api.call('POST', '/api/v1/messages', { apiKey, json: body });

/** Distinct messages buffered (each partition keeps its own copy of a message). */
async function buffered(name: string): Promise<number> {
  const [row] = await api.engine.store.db
    .select({ n: countDistinct(bufferedMessages.key) })
    .from(bufferedMessages)
    .where(and(eq(bufferedMessages.account, account), eq(bufferedMessages.name, name)));
  return Number(row.n);
}

async function instancesOf(bpmnProcessId: string): Promise<number> {
  const res = await api.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.bpmnProcessId': bpmnProcessId, limit: 100 } });
  expect(res.status, res.text).toBe(200);
  return res.json.items.length;
}

beforeAll(async () => {
  api = await apiFixture();
  ({ apiKey, account } = await api.newAccount());
  await mustDeploy(api, apiKey, STARTED);
}, 60_000);
afterAll(() => api?.close());

describe('the message buffer (extension)', () => {
  it('holds at most the limit per account and message partition: past it a buffered publish is a 429 that changes nothing', async () => {
    const limit = LIMITS.maxBufferedMessagesPerAccountPartition;
    // One name and key: one message partition. Straight to the engine (no start, no charge) to fill it quickly.
    const fill = (i: number) => api.engine.publishMessage(account, { name: 'fill', correlationKey: 'k', variables: { i }, timeToLive: 600_000 }, 0);
    for (let i = 0; i < limit; i += 500) {
      const outcomes = await Promise.all(Array.from({ length: Math.min(500, limit - i) }, (_, j) => fill(i + j)));
      expect(outcomes.every((o) => o.published)).toBe(true);
    }
    expect(await buffered('fill')).toBe(limit);
    const balance = await balanceOf(api, account);

    const refused = await publish({ name: 'fill', correlationKey: 'k', variables: { over: true }, timeToLive: 60_000 });
    expectProblem(refused, 429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.json.detail).toContain(`${limit} messages buffered`);
    expect(await buffered('fill')).toBe(limit);
    expect(await instancesOf('fill-started')).toBe(0);
    expect(await balanceOf(api, account)).toBe(balance);

    // A message that is not buffered is not held back by the bound; it starts its instance for its credit.
    const passing = await publish({ name: 'fill', correlationKey: 'k', variables: { now: true } });
    expect(passing.status, passing.text).toBe(201);
    expect(passing.json.startedInstances).toBe(1);
    expect(await buffered('fill')).toBe(limit);
    expect(await balanceOf(api, account)).toBe(balance - 1);
  }, 120_000);

  it('an expired message leaves Postgres with the next batch of its partition', async () => {
    // An account of its own: every partition keeps a copy of each buffered message, so the first test's account is full everywhere.
    ({ apiKey, account } = await api.newAccount());
    for (let i = 0; i < 3; i++) {
      const res = await publish({ name: 'brief', correlationKey: 'b', variables: { i }, timeToLive: 200 });
      expect(res.status, res.text).toBe(201);
    }
    expect(await buffered('brief')).toBe(3);
    await new Promise((r) => setTimeout(r, 300));
    // Any command on the message's partition builds a batch, which deletes what expired (every other partition's copy too, with its delivery).
    expect((await publish({ name: 'brief', correlationKey: 'b' })).status).toBe(201);
    await eventually(async () => ((await buffered('brief')) === 0 ? true : undefined), 'the expired messages deleted');
  });
});
