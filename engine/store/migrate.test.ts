import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { rows } from './db.ts';
import { historyRepository } from './history-repository.ts';

const TABLES = [
  'access_tokens',
  'account_emails',
  'accounts',
  'api_keys',
  'command_attempts',
  'commands',
  'decision_versions',
  'decisions',
  'definition_versions',
  'definitions',
  'element_stats',
  'history',
  'incidents',
  'instances',
  'jobs',
  'ledger',
  'mail_outbox',
  'partitions',
  'request_keys',
  'signups',
  'timers',
];

const journal = JSON.parse(readFileSync(new URL('./migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: { tag: string }[] };
// One row per migration file in engine/store/migrations.
const MIGRATIONS = journal.entries.length;

/** The statements of one committed migration file, as the migrator splits them. */
function migrationStatements(tag: string): string[] {
  const text = readFileSync(new URL(`./migrations/${tag}.sql`, import.meta.url), 'utf8');
  return text
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const testDb = createTestDatabase();
afterAll(() => testDb.cleanup());
// Migrated by hand, file by file, to check an upgrade.
const upgradeDb = createTestDatabase();
afterAll(() => upgradeDb.cleanup());

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

  it('0002 keeps history written one record per row: each becomes a one-record row at its position', async () => {
    // The schema as 0000 and 0001 left it, with history in the old shape.
    const database = await upgradeDb.open({ migrate: false });
    const run = async (tag: string) => {
      for (const statement of migrationStatements(tag)) await database.db.execute(sql.raw(statement));
    };
    await database.db.execute(sql.raw(`create schema if not exists "${upgradeDb.schema}"`));
    await run('0000_init');
    await run('0001_identity_credits');
    for (const [position, elementId] of [
      [1, 'start'],
      [2, 'task'],
      [3, 'end'],
    ] as const) {
      await database.db.execute(
        sql`insert into history (account, partition, instance_key, position, record) values ('acme', 1, 42, ${position}, ${JSON.stringify({ type: 'ELEMENT_ACTIVATED', at: position, elementId })}::jsonb)`,
      );
    }
    await run('0002_history_per_batch');
    const page = await historyRepository(database.db).listHistory('acme', '42', { limit: 2 });
    expect(page.items.map((h) => [h.position, h.record.elementId])).toEqual([
      [1, 'start'],
      [2, 'task'],
    ]);
    const rest = await historyRepository(database.db).listHistory('acme', '42', { cursor: page.nextCursor! });
    expect(rest.items.map((h) => [h.position, h.record.elementId])).toEqual([[3, 'end']]);
    expect(rest.nextCursor).toBeNull();
  });

  it.runIf(process.env.DATABASE_URL)('serialises on a session advisory lock that is released afterwards', async () => {
    const database = await testDb.open();
    const held = await rows<{ n: number }>(database.db, sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = ${0x6f726361}`);
    expect(held[0].n).toBe(0);
  });
});
