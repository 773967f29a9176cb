// Opening the store: a node-postgres pool when a URL is given, embedded
// PGlite otherwise (DESIGN §1 "Embedded default"; one process at a time on
// its data directory). Both speak the same SQL and the same drizzle API, so
// repositories never ask which one they have.
// Connection trouble surfaces as StoreUnavailableError within the configured
// timeouts rather than as a hang.
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { parseStoreOptions, type StoreOptions, type StoreOptionsInput } from './config.ts';
import { lockDataDir, pgliteDirectory } from './data-dir-lock.ts';
import type { Db } from './db.ts';
import { guard, rootMessage, StoreUnavailableError } from './errors.ts';
import { migratePg, migratePglite } from './migrate.ts';
import { newPool, openWriterPool, type WriterConnection } from './pg-pool.ts';

export interface Database {
  /** The drizzle handle for repositories. */
  db: Db;
  /**
   * The handle for the partition leaders' batch commits (commit-batch.ts):
   * on Postgres, connections of their own on which the planner may not
   * choose a sequential scan (see `openPg`); on PGlite, `db` itself.
   */
  writer: Db;
  kind: 'pg' | 'pglite';
  /** The schema holding Orca's tables. */
  schema: string;
  /**
   * On Postgres: how to open another connection like `writer`'s. Plain
   * data, so a worker thread can open its own (the shard's commit thread,
   * engine/partition/commit-thread.ts).
   */
  writerConnection?: WriterConnection;
  /** Applies pending migrations; safe to call from many processes at once. */
  migrate(): Promise<void>;
  /** Releases connections; further queries fail. Idempotent. */
  close(): Promise<void>;
}

export type OpenDatabaseOptions = StoreOptionsInput;

/** Opens (and checks) the store. Does not migrate: call `migrate()`. */
export async function openDatabase(input: OpenDatabaseOptions = {}): Promise<Database> {
  const options = parseStoreOptions(input);
  return options.url ? openPg(options, options.url) : openPglite(options);
}

async function openPg(options: StoreOptions, url: string): Promise<Database> {
  const pool = newPool(options, url, options.poolSize, []);
  // The batch commit is a prepared statement whose generic plan is made on
  // its sixth run, usually while the tables are still empty, and then kept:
  // on an empty table the planner prefers a sequential scan even for a
  // lookup by primary key, and that plan then walks every live and dead row
  // of `jobs` on each commit until autovacuum happens to analyze the table
  // (perf: a quarter of the commit's server CPU). Every table access of the
  // commit is a key lookup by design, so its connections forbid the
  // sequential scan outright; the rest of Orca keeps the planner's choice.
  // A shard has one commit statement in flight at a time (CommitGroup, run
  // on a connection of its own in the commit thread when there is one); the
  // pool serves the group when it runs here, and a commit made outside it
  // (store.commitBatch).
  const writerConnection: WriterConnection = { url, options };
  const writerPool = openWriterPool(writerConnection, 2);
  const db = drizzlePg(pool) as unknown as Db;
  const writer = drizzlePg(writerPool) as unknown as Db;
  let closed = false;
  const database: Database = {
    db,
    writer,
    kind: 'pg',
    schema: options.schema,
    writerConnection,
    migrate: () => guard(() => migratePg(pool, options.schema)),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([pool.end(), writerPool.end()]);
    },
  };
  try {
    // Fail at start, not at the first request: unreachable → StoreUnavailableError
    // (retry later); bad credentials or a missing database pass through as they are.
    await guard(() => db.execute(sql`select 1`));
  } catch (error) {
    await database.close();
    if (error instanceof StoreUnavailableError) throw error;
    throw new Error(`cannot open database: ${rootMessage(error)}`, { cause: error });
  }
  return database;
}

async function openPglite(options: StoreOptions): Promise<Database> {
  // Held from before PGlite reads the directory until it has closed it (data-dir-lock.ts).
  const directory = pgliteDirectory(options.dataDir);
  const lock = directory === undefined ? undefined : await lockDataDir(directory);
  let client: PGlite;
  try {
    client = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.pgliteTemplate });
    // PGlite is one session, so setting search_path once covers every query.
    await client.exec(`set search_path to ${options.schema}`);
  } catch (error) {
    await lock?.release();
    throw error;
  }
  const db = drizzlePglite(client) as unknown as Db;
  let closed = false;
  return {
    db,
    writer: db,
    kind: 'pglite',
    schema: options.schema,
    migrate: () => migratePglite(client, options.schema),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.close();
      } finally {
        await lock?.release();
      }
    },
  };
}
