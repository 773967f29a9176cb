import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { commitBatch, type InstanceWrite } from './commit-batch.ts';
import type { Database } from './database.ts';
import { rows, type Db } from './db.ts';
import { InvalidCursorError } from './errors.ts';
import { instancesRepository, parseVariableFilter, variableMatches } from './instances-repository.ts';
import { leasesRepository } from './leases-repository.ts';
import { instanceDoc, keyOf } from './test-fixtures.ts';

const testDb = createTestDatabase();
let database: Database;
let repo: ReturnType<typeof instancesRepository>;

const INJECTION = "x'; drop table instances; --";

// Partition 1: a small, varied set for the filter tests.
const docs: InstanceWrite[] = [
  { account: 'acme', document: instanceDoc(keyOf(1, 1), { variables: { orderId: 'A1', total: 42 } }) },
  { account: 'acme', document: instanceDoc(keyOf(1, 2), { variables: { orderId: '42', vip: true } }) },
  { account: 'acme', document: instanceDoc(keyOf(1, 3), { state: 'INCIDENT', variables: { orderId: 'A3', total: 42.0 } }) },
  { account: 'acme', document: instanceDoc(keyOf(1, 4), { state: 'COMPLETED', bpmnProcessId: 'invoice', variables: { orderId: INJECTION } }) },
  { account: 'acme', document: instanceDoc(keyOf(1, 5), { bpmnProcessId: 'invoice', variables: { note: null, big: 1e21 } }) },
  { account: 'other', document: instanceDoc(keyOf(1, 6), { variables: { orderId: 'A1' } }) },
];

beforeAll(async () => {
  database = await testDb.open();
  repo = instancesRepository(database.db);
  const leases = leasesRepository(database.db);
  const lease = await leases.acquireLease(1, 'test', 60_000);
  await commitBatch(database.db, { partition: 1, epoch: lease!.epoch, instances: docs });
});
afterAll(() => testDb.cleanup());

const keys = (page: { items: { key: string }[] }) => page.items.map((i) => i.key);

describe('listInstances', () => {
  it('lists an account newest first (one start time here, so by key descending), without other accounts', async () => {
    expect(keys(await repo.listInstances('acme'))).toEqual([5, 4, 3, 2, 1].map((n) => keyOf(1, n)));
    expect(keys(await repo.listInstances('other'))).toEqual([keyOf(1, 6)]);
    expect(keys(await repo.listInstances('nobody'))).toEqual([]);
  });

  it('filters by state and by process', async () => {
    expect(keys(await repo.listInstances('acme', { state: 'INCIDENT' }))).toEqual([keyOf(1, 3)]);
    expect(keys(await repo.listInstances('acme', { state: 'ACTIVE' }))).toEqual([keyOf(1, 5), keyOf(1, 2), keyOf(1, 1)]);
    expect(keys(await repo.listInstances('acme', { bpmnProcessId: 'invoice' }))).toEqual([keyOf(1, 5), keyOf(1, 4)]);
    expect(keys(await repo.listInstances('acme', { bpmnProcessId: 'invoice', state: 'COMPLETED' }))).toEqual([keyOf(1, 4)]);
  });

  it('filters by a string variable', async () => {
    const page = await repo.listInstances('acme', { variable: { name: 'orderId', value: 'A1' } });
    expect(keys(page)).toEqual([keyOf(1, 1)]);
    expect(page.items[0].variables).toEqual({ orderId: 'A1', total: 42 });
  });

  it('matches a numeric-looking value as the number and as the string', async () => {
    expect(keys(await repo.listInstances('acme', { variable: { name: 'total', value: '42' } }))).toEqual([keyOf(1, 3), keyOf(1, 1)]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'total', value: '42.0' } }))).toEqual([keyOf(1, 3), keyOf(1, 1)]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'orderId', value: '42' } }))).toEqual([keyOf(1, 2)]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'big', value: '1000000000000000000000' } }))).toEqual([keyOf(1, 5)]);
  });

  it('matches booleans and null', async () => {
    expect(keys(await repo.listInstances('acme', { variable: { name: 'vip', value: 'true' } }))).toEqual([keyOf(1, 2)]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'vip', value: 'false' } }))).toEqual([]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'note', value: 'null' } }))).toEqual([keyOf(1, 5)]);
  });

  it('treats injection-shaped names and values as plain data', async () => {
    expect(keys(await repo.listInstances('acme', { variable: { name: 'orderId', value: INJECTION } }))).toEqual([keyOf(1, 4)]);
    expect(keys(await repo.listInstances('acme', { variable: { name: INJECTION, value: 'A1' } }))).toEqual([]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'orderId', value: '" OR 1=1 --' } }))).toEqual([]);
    expect(keys(await repo.listInstances('acme', { variable: { name: 'orderId', value: '1, "x": 2' } }))).toEqual([]);
    expect(keys(await repo.listInstances('acme', { bpmnProcessId: "order' or '1'='1" }))).toEqual([]);
    // Still there.
    expect(keys(await repo.listInstances('acme'))).toHaveLength(5);
  });

  it('only ever binds candidates as parameters, and only JSON numbers unquoted', () => {
    expect(variableMatches('n', '42')).toEqual(['{"n":"42"}', '{"n":42}']);
    expect(variableMatches('n', '42; drop')).toEqual(['{"n":"42; drop"}']);
    expect(variableMatches('n', '0x10')).toEqual(['{"n":"0x10"}']);
    expect(variableMatches('a"b', 'x"y')).toEqual(['{"a\\"b":"x\\"y"}']);
  });

  it('parses filter.variable at the first colon', () => {
    expect(parseVariableFilter('orderId:A1')).toEqual({ name: 'orderId', value: 'A1' });
    expect(parseVariableFilter('time:12:30')).toEqual({ name: 'time', value: '12:30' });
    expect(parseVariableFilter('empty:')).toEqual({ name: 'empty', value: '' });
    expect(parseVariableFilter(':A1')).toBeNull();
    expect(parseVariableFilter('orderId')).toBeNull();
  });

  it('pages with a cursor until nextCursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof repo.listInstances>> = await repo.listInstances('acme', { limit: 2, cursor });
      seen.push(...keys(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([5, 4, 3, 2, 1].map((n) => keyOf(1, n)));

    const filtered = await repo.listInstances('acme', { state: 'ACTIVE', limit: 2 });
    expect(keys(filtered)).toEqual([keyOf(1, 5), keyOf(1, 2)]);
    expect(keys(await repo.listInstances('acme', { state: 'ACTIVE', limit: 2, cursor: filtered.nextCursor }))).toEqual([keyOf(1, 1)]);
  });

  it('rejects a forged cursor', async () => {
    await expect(repo.listInstances('acme', { cursor: 'garbage' })).rejects.toBeInstanceOf(InvalidCursorError);
    const forged = Buffer.from(JSON.stringify({ p: '1; drop table instances' })).toString('base64url');
    await expect(repo.listInstances('acme', { cursor: forged })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('gets one instance with its document, and nothing for malformed or foreign keys', async () => {
    const found = await repo.getInstance('acme', keyOf(1, 3));
    expect(found).toMatchObject({ key: keyOf(1, 3), state: 'INCIDENT', partition: 1, account: 'acme' });
    expect(found!.document.variables[keyOf(1, 3)]).toEqual({ orderId: 'A3', total: 42 });
    expect(await repo.getInstance('acme', 'not-a-key')).toBeNull();
    expect(await repo.getInstance('acme', keyOf(1, 6))).toBeNull();
  });

  it('loads a partition for its new leader, optionally only live instances', async () => {
    const all = await repo.loadPartitionInstances(1);
    expect(all.map((i) => i.document.key)).toEqual([1, 2, 3, 4, 5, 6].map((n) => keyOf(1, n)));
    const live = await repo.loadPartitionInstances(1, { activeOnly: true });
    expect(live.map((i) => i.document.key)).toEqual([1, 2, 3, 5, 6].map((n) => keyOf(1, n)));
    expect(live.find((i) => i.document.key === keyOf(1, 6))!.account).toBe('other');
    expect(await repo.loadPartitionInstances(2)).toEqual([]);
  });
});

describe.runIf(process.env.DATABASE_URL)('variable filter plan (real Postgres)', () => {
  it('is served by the GIN index on variables', async () => {
    const lease = await leasesRepository(database.db).acquireLease(2, 'test', 60_000);
    const bulk: InstanceWrite[] = Array.from({ length: 2000 }, (_, i) => ({
      account: 'acme',
      document: instanceDoc(keyOf(2, i + 1), { variables: { orderId: `B${i}`, total: i } }),
    }));
    await commitBatch(database.db, { partition: 2, epoch: lease!.epoch, instances: bulk });
    await rows(database.db, sql`analyze instances`);

    // Capture the exact SQL and parameters the repository sends, then explain them.
    const [name, value] = ['orderId', 'B1234'];
    const sent: { query: string; params: unknown[] }[] = [];
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const logged = drizzlePg(pool, { logger: { logQuery: (query, params) => void sent.push({ query, params }) } }) as unknown as Db;
    await instancesRepository(logged).listInstances('acme', { variable: { name, value } });
    expect(sent).toHaveLength(1);
    const client = await pool.connect();
    let plan: string;
    try {
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      const explained = await client.query(`explain ${sent[0].query}`, sent[0].params);
      plan = explained.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(plan).toContain('instances_variables_gin');

    const page = await repo.listInstances('acme', { variable: { name, value } });
    expect(keys(page)).toEqual([keyOf(2, 1235)]);
  });
});
