import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './testing/database.ts';
import { rows } from './db.ts';
import { historyRepository } from './history-repository.ts';
import { encodeRecord } from './history-records.ts';
import { incidentsRepository } from './incidents-repository.ts';
import { statisticsRepository } from './statistics-repository.ts';
import { end, engineWith, flow, processXml, service, start } from '../runtime/testing.ts';

const TABLES = [
  'access_tokens',
  'account_emails',
  'account_sessions',
  'accounts',
  'agent_sessions',
  'agents',
  'api_keys',
  'buffered_messages',
  'case_definition_versions',
  'case_definitions',
  'case_instances',
  'command_attempts',
  'commands',
  'completed_tasks',
  'decision_versions',
  'decisions',
  'definition_versions',
  'definitions',
  'element_stats',
  'history',
  'incidents',
  'instances',
  'job_command_results',
  'jobs',
  'ledger',
  'login_codes',
  'mail_outbox',
  'mailbox_messages',
  'message_correlations',
  'partitions',
  'platform_apps',
  'request_keys',
  'signups',
  'timers',
  'webhook_batches',
  'webhook_deliveries',
  'webhook_endpoints',
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
const statsUpgradeDb = createTestDatabase();
afterAll(() => statsUpgradeDb.cleanup());

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

  it('0006 counts what was stored before it and gives old incidents their process', async () => {
    const database = await statsUpgradeDb.open({ migrate: false });
    const run = async (tag: string) => {
      for (const statement of migrationStatements(tag)) await database.db.execute(sql.raw(statement));
    };
    await database.db.execute(sql.raw(`create schema if not exists "${statsUpgradeDb.schema}"`));
    for (const tag of journal.entries.map((e) => e.tag).filter((t) => t < '0006')) await run(tag);
    // Three instances as the engine left them: completed, stuck on an incident, still active.
    const engine = engineWith(
      processXml('order', start() + service('task', 'charge', '', '1') + end() + flow('f1', 'start', 'task') + flow('f2', 'task', 'end')),
    );
    const keys = [engine.start('order'), engine.start('order'), engine.start('order')];
    engine.completeJob(engine.activate('charge', 1)[0].key);
    engine.failJob(engine.activate('charge', 1)[0].key, 0, 'declined');
    for (const key of keys) {
      const doc = engine.instance(key)!;
      await database.db.execute(
        sql`insert into instances (key, account, partition, bpmn_process_id, version, state, document, variables)
            values (${key}, 'acme', 1, 'order', 1, ${doc.state}, ${JSON.stringify(doc)}::jsonb, '{}'::jsonb)`,
      );
      await database.db.execute(
        sql`insert into history (account, partition, instance_key, position, records)
            values ('acme', 1, ${key}, 1, ${JSON.stringify(engine.history(key).map(encodeRecord))}::jsonb)`,
      );
      for (const incident of Object.values(doc.incidents)) {
        await database.db.execute(
          sql`insert into incidents (key, account, partition, instance_key, element_id, element_instance_key, type, message)
              values (${incident.key}, 'acme', 1, ${key}, ${incident.elementId}, ${incident.elementInstanceKey}, ${incident.type}, ${incident.message})`,
        );
      }
    }
    await run('0006_reads_stats');
    expect(await statisticsRepository(database.db).definitionStatistics('acme', 'order', 1)).toEqual({
      elements: [
        { elementId: 'end', active: 0, incidents: 0, completed: 1, canceled: 0 },
        { elementId: 'start', active: 0, incidents: 0, completed: 3, canceled: 0 },
        { elementId: 'task', active: 1, incidents: 1, completed: 1, canceled: 0 },
      ],
      instances: { active: 1, incidents: 1, completed: 1, canceled: 0 },
    });
    const incidents = await incidentsRepository(database.db).listIncidents('acme', { bpmnProcessId: 'order' });
    expect(incidents.items).toHaveLength(1);
  });

  it.runIf(process.env.DATABASE_URL)('serialises on a session advisory lock that is released afterwards', async () => {
    const database = await testDb.open();
    const held = await rows<{ n: number }>(database.db, sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = ${0x6f726361}`);
    expect(held[0].n).toBe(0);
  });
});
