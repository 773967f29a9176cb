// A private database for one test file. With DATABASE_URL set (CI), each
// call gets its own freshly named schema in that database, dropped with
// everything in it by cleanup(), so parallel runs and files never collide.
// Without it, each call gets its own in-memory PGlite (started from a cached
// initdb template, see the end of this file).
//
//   const testDb = createTestDatabase();
//   afterAll(() => testDb.cleanup());
//   const database = await testDb.open(); // migrated
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../database.ts';

export interface TestDatabase {
  /** The Postgres URL when running against real Postgres; undefined on PGlite. */
  url?: string;
  /** The schema this test database lives in. */
  schema: string;
  /**
   * A handle on the test database, migrated unless `migrate: false`. On
   * Postgres every call opens a new pool on the same schema; on PGlite every
   * call shares the one in-memory instance (its close() is then a no-op
   * until cleanup).
   */
  open(options?: { migrate?: boolean } & Omit<OpenDatabaseOptions, 'url' | 'schema' | 'dataDir'>): Promise<Database>;
  /** Closes every handle and, on Postgres, drops the schema. */
  cleanup(): Promise<void>;
}

export function createTestDatabase(): TestDatabase {
  const url = process.env.DATABASE_URL || undefined;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const opened: Database[] = [];
  let shared: Promise<Database> | undefined;

  async function open(options: { migrate?: boolean } & Omit<OpenDatabaseOptions, 'url' | 'schema' | 'dataDir'> = {}) {
    const { migrate = true, ...rest } = options;
    let database: Database;
    if (url) {
      database = await openDatabase({ ...rest, url, schema });
      opened.push(database);
    } else {
      shared ??= openPglite({ ...rest, dataDir: 'memory://', schema }).then((d) => {
        opened.push(d);
        return d;
      });
      const real = await shared;
      database = { ...real, close: async () => {} };
    }
    if (migrate) await database.migrate();
    return database;
  }

  async function cleanup() {
    await Promise.allSettled(opened.splice(0).map((d) => d.close()));
    shared = undefined;
    if (!url) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(`drop schema if exists "${schema}" cascade`);
    } finally {
      await client.end();
    }
  }

  return { url, schema, open, cleanup };
}

// PGlite's initdb takes seconds on a small machine and every test file would
// pay it. A freshly initialised (empty, unmigrated) data directory is the same
// every time for a given PGlite version, so it is dumped once to the temp
// directory and loaded from there afterwards.
const templatePath = path.join(tmpdir(), `orca-pglite-template-${pgliteVersion()}-${process.getuid?.() ?? 0}.tar`);

function pgliteVersion(): string {
  // The package does not export its package.json; find it beside the entry point.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** An initialised, empty PGlite data directory (a tar dump), cached in the temp directory; undefined on any trouble (then initdb runs). */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(templatePath)]);
  } catch {
    try {
      const fresh = await PGlite.create('memory://');
      const dump = await fresh.dumpDataDir('none');
      await fresh.close();
      // Write then rename, so a concurrent reader never sees half a file.
      const partial = `${templatePath}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
      await rename(partial, templatePath);
      return new Blob([await readFile(templatePath)]);
    } catch {
      return undefined;
    }
  }
}

async function openPglite(options: OpenDatabaseOptions): Promise<Database> {
  const template = await pgliteTemplate();
  if (template) {
    try {
      return await openDatabase({ ...options, pgliteTemplate: template });
    } catch {
      // A damaged template: forget it and start from initdb.
      await rm(templatePath, { force: true });
    }
  }
  return openDatabase(options);
}
