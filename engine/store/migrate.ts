// Applies the committed SQL migrations (engine/store/migrations, generated
// by drizzle-kit from schema.ts) at start-up. On Postgres the work happens on
// one dedicated connection holding a session advisory lock, so pods starting
// together queue up instead of racing to create the same tables; PGlite is a
// single in-process session, where a promise chain does the same job.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePgliteDb } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));
const MIGRATIONS_TABLE = '__drizzle_migrations';

/** First half of the advisory lock key ("orca" in ASCII); the second half is the schema's hash. */
export const MIGRATION_LOCK_KEY = 0x6f726361;

export async function migratePg(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    // Migrations may legitimately run longer than the pool's statement cap,
    // and waiting for another pod's migration is the point of the lock.
    await client.query('set statement_timeout = 0');
    await client.query('select pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_KEY, schema]);
    try {
      await client.query(`create schema if not exists "${schema}"`);
      await migrateNodePg(drizzlePg(client), {
        migrationsFolder: MIGRATIONS_FOLDER,
        migrationsSchema: schema,
        migrationsTable: MIGRATIONS_TABLE,
      });
    } finally {
      // If the connection is gone the server has dropped the lock already;
      // don't let a failed unlock hide the error that got us here.
      await client.query('select pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_KEY, schema]).catch(() => {});
    }
  } finally {
    // Destroy rather than return the connection: it carries session settings,
    // and if anything failed midway the server drops any lock still held.
    client.release(true);
  }
}

const pgliteQueues = new WeakMap<PGlite, Promise<unknown>>();

export function migratePglite(client: PGlite, schema: string): Promise<void> {
  const previous = pgliteQueues.get(client) ?? Promise.resolve();
  const run = previous
    .catch(() => {})
    .then(async () => {
      await client.exec(`create schema if not exists "${schema}"`);
      await migratePgliteDb(drizzlePglite(client), {
        migrationsFolder: MIGRATIONS_FOLDER,
        migrationsSchema: schema,
        migrationsTable: MIGRATIONS_TABLE,
      });
    });
  pgliteQueues.set(client, run);
  return run;
}

/** How many committed migrations are not applied in the connected schema (readiness checks). */
export async function pendingMigrations(db: Db): Promise<number> {
  const journal = JSON.parse(readFileSync(new URL('./migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };
  // The migrator keeps its table in the target schema, which is the connection's search_path.
  const [row] = await rows<{ n: number }>(db, sql`select count(*)::int as n from "__drizzle_migrations"`);
  return Math.max(0, journal.entries.length - Number(row?.n ?? 0));
}
