import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/support/database.ts';
import { rows } from './db.ts';

const TABLES = [
  'access_tokens',
  'account_emails',
  'accounts',
  'api_keys',
  'commands',
  'decision_versions',
  'decisions',
  'definition_versions',
  'definitions',
  'history',
  'incidents',
  'instances',
  'jobs',
  'ledger',
  'mail_outbox',
  'partitions',
  'signups',
  'timers',
];

// One row per migration file in engine/store/migrations.
const MIGRATIONS = 2;

const testDb = createTestDatabase();
afterAll(() => testDb.cleanup());

describe('migrations', () => {
  it('apply concurrently from two handles on one fresh schema, and again idempotently', async () => {
    // On Postgres these are two pools (two "pods"); the advisory lock makes
    // one wait for the other. On PGlite both share the one embedded session.
    const [a, b] = await Promise.all([testDb.open({ migrate: false }), testDb.open({ migrate: false })]);
    await Promise.all([a.migrate(), b.migrate(), a.migrate()]);
    await a.migrate();
    await b.migrate();

    const tables = await rows<{ table_name: string }>(
      a.db,
      sql`select table_name from information_schema.tables where table_schema = ${testDb.schema} order by table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(['__drizzle_migrations', ...TABLES]);
    const applied = await rows<{ n: number }>(a.db, sql.raw(`select count(*)::int as n from "${testDb.schema}"."__drizzle_migrations"`));
    // One row per migration file, however many times migrate() ran.
    expect(applied[0].n).toBe(MIGRATIONS);
    // Nothing leaked into public.
    const leaked = await rows<{ n: number }>(
      a.db,
      sql`select count(*)::int as n from information_schema.tables where table_schema = 'public' and table_name = 'instances'`,
    );
    expect(leaked[0].n).toBe(0);
  });

  it.runIf(process.env.DATABASE_URL)('serialises on a session advisory lock that is released afterwards', async () => {
    const database = await testDb.open();
    const held = await rows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = ${0x6f726361}`,
    );
    expect(held[0].n).toBe(0);
  });
});
