// Fixed SQL statements for the leader's hot path (commit-batch.ts,
// commands-repository.ts), run straight on the driver: no query builder and
// no per-call SQL rendering, one round trip each.
//
// A statement with a `name` is prepared once per node-postgres connection
// and, after a few runs, Postgres keeps its generic plan: that saves the
// planning that cost as much as executing a 10-command batch (EXPLAIN
// ANALYZE: ~1.5 ms to plan the commit statement). It is only safe for a
// statement whose plan cannot go wrong with the table sizes of the moment
// it was planned (an empty table early in life, say): every table access a
// key lookup with no other index to prefer. Even then, a lookup by a list
// of keys (`key = any (…)`) on a table that was empty at planning time is
// planned as a sequential scan, which is why the batch commit runs on the
// writer connections that forbid one (database.ts). A generic plan also does not
// know how many keys an array parameter holds, so a lookup by a list of
// keys is left unnamed and planned on every run. ANALYZE invalidates cached
// plans in any case. PGlite runs every statement unnamed. Any other handle
// (a drizzle transaction, a wrapped database) gets the same SQL through
// drizzle.
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { rows, type Db } from './db.ts';

export interface Statement {
  /** Prepare it under this name on node-postgres (see above); unique per statement text. */
  readonly name?: string;
  /** Positional parameters `$1`, `$2`, …; each may occur more than once. */
  readonly text: string;
}

/** Runs `statement` with `params` and returns its rows. Errors are the driver's (callers guard()). */
export async function runStatement<T>(db: Db, statement: Statement, params: readonly unknown[]): Promise<T[]> {
  const client = (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) {
    const result = statement.name
      ? await client.query({ name: statement.name, text: statement.text, values: params as unknown[] })
      : await client.query(statement.text, params as unknown[]);
    return result.rows as T[];
  }
  if (client instanceof PGlite) {
    const result = await client.query<T>(statement.text, params as unknown[]);
    return result.rows;
  }
  return rows<T>(db, asDrizzleSql(statement.text, params));
}

/** Whether a statement run on `db` is a transaction of its own (the pool, PGlite), not part of a caller's (a drizzle transaction). */
export function runsAlone(db: Db): boolean {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof pg.Pool || client instanceof PGlite;
}

/** The statement as a drizzle SQL object (it numbers parameters itself, one per occurrence). */
function asDrizzleSql(text: string, params: readonly unknown[]): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)), sql`${params[Number(match[1]) - 1]}`);
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks);
}
