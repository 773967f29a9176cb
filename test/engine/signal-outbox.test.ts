// A signal an instance threw survives its leader: the batch that moved the
// instance on also wrote the signal's outbox row, and a leader that stopped
// before every partition confirmed the delivery leaves the row to the next
// one, whose recovery delivers it. Here the row is what such a batch left
// (written straight into Postgres while no engine runs); the engine that
// starts next brings the signal to the waiting instances of every
// partition and deletes the row. Real Postgres only: the row is written
// from outside the engine, which PGlite's single connection does not allow.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOfKey } from '../../engine/partition/keys.ts';
import { definitions, end, flow, start } from '../../engine/runtime/testing.ts';
import { engineFixture, eventually, type EngineFixture } from './engine-fixture.ts';

const ACCOUNT = 'acct-signal-outbox';
const waiter = definitions(
  '<bpmn:signal id="Go" name="go"/><bpmn:process id="waiter" isExecutable="true">' +
    start() +
    '<bpmn:intermediateCatchEvent id="waitGo"><bpmn:signalEventDefinition signalRef="Go"/></bpmn:intermediateCatchEvent>' +
    end() +
    flow('f1', 'start', 'waitGo') +
    flow('f2', 'waitGo', 'end') +
    '</bpmn:process>',
);

let fixture: EngineFixture;
beforeAll(async () => {
  fixture = await engineFixture();
});
afterAll(() => fixture.cleanup());

describe.skipIf(!process.env.DATABASE_URL)('a thrown signal whose delivery a leader did not finish (needs DATABASE_URL)', () => {
  it('is delivered by the next leader to every partition, once, and its outbox row goes', async () => {
    let engine = await fixture.start();
    await engine.deploy(ACCOUNT, waiter, 'waiter.bpmn');
    const keys: string[] = [];
    while (keys.length < 8 || new Set(keys.map((k) => partitionOfKey(k))).size < 3)
      keys.push((await engine.startInstance(ACCOUNT, 'waiter')).processInstanceKey);
    await engine.close();

    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const table = `"${fixture.config.schema}".buffered_messages`;
    try {
      await db.query(
        `insert into ${table} (partition, key, account, name, correlation_key, variables, message_id, expires_at) values (2, $1, $2, 'go', '', $3, null, to_timestamp(0))`,
        ['4611686018427387905', ACCOUNT, JSON.stringify({ from: 'outbox' })],
      );
      engine = await fixture.start();
      for (const key of keys) {
        const row = await eventually(async () => {
          const found = await engine.store.instances.getInstance(ACCOUNT, key);
          return found?.state === 'COMPLETED' ? found : undefined;
        }, `instance ${key} to complete`);
        expect(row.document.variables[key]).toEqual({ from: 'outbox' });
      }
      await eventually(async () => ((await db.query(`select 1 from ${table}`)).rowCount === 0 ? true : undefined), 'the outbox row to go');
    } finally {
      await db.end();
    }
  });
});
