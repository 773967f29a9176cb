// The command log keeps each command's result for the retention (a retry
// with the same key gets the original result) and no longer: a shard prunes
// its partitions' old rows, so the log does not grow forever. Keyed deploys'
// results (request_keys) go on the same horizon.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../engine/partition/index.ts';
import { end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { rows } from '../../engine/store/index.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-retention';
const oneTask = processXml('one', start() + service('task', 'work') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end'));

let fixture: EngineFixture;
let engine: Engine;

beforeAll(async () => {
  fixture = await engineFixture();
  engine = await fixture.start({ partitions: 1, leaseMs: 300 }, { commandRetentionMs: 1_000 });
  await engine.deploy(ACCOUNT, oneTask, 'one.bpmn');
});
afterAll(() => fixture.cleanup());

const logged = async (key: string) =>
  (await rows<{ n: number }>(engine.store.db, sql`select count(*)::int as n from commands where command_key = ${`${ACCOUNT}:${key}`}`))[0].n;

it('answers a retry within the retention with the original result, and forgets the key after it', async () => {
  const first = await engine.startInstance(ACCOUNT, 'one', {}, { commandKey: 'order-1' });
  expect(await engine.startInstance(ACCOUNT, 'one', {}, { commandKey: 'order-1' })).toEqual(first);
  expect(await logged('order-1')).toBe(1);
  await eventually(async () => ((await logged('order-1')) === 0 ? true : undefined), 'the command log to drop the old result');
  // Past the retention the key is new again.
  const later = await engine.startInstance(ACCOUNT, 'one', {}, { commandKey: 'order-1' });
  expect(later.processInstanceKey).not.toBe(first.processInstanceKey);
});

it('forgets a keyed deploy after the retention too', async () => {
  const xml = processXml('retained', start() + end() + flow('f1', 'start', 'end'));
  const keyed = { commandKey: 'deploy-1', fingerprint: 'fp' };
  const first = await engine.deploy(ACCOUNT, xml, 'retained.bpmn', keyed);
  expect(first).toEqual([{ bpmnProcessId: 'retained', version: 1, isNew: true }]);
  expect(await engine.deploy(ACCOUNT, xml, 'retained.bpmn', keyed)).toEqual(first);
  const kept = async () => (await rows<{ n: number }>(engine.store.db, sql`select count(*)::int as n from request_keys where account = ${ACCOUNT}`))[0].n;
  expect(await kept()).toBe(1);
  await eventually(async () => ((await kept()) === 0 ? true : undefined), 'request_keys to drop the old result');
  // Past the retention the key is new: the deploy runs again and finds its model deployed.
  expect(await engine.deploy(ACCOUNT, xml, 'retained.bpmn', keyed)).toEqual([{ bpmnProcessId: 'retained', version: 1, isNew: false }]);
});
