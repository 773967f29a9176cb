// Fixed SQL statements for the leader's hot path (commit-batch.ts,
// commands-repository.ts), run straight on the driver: no query builder and
// no per-call SQL rendering, one round trip each. They are deliberately not
// prepared by name: a named statement soon runs a cached generic plan, made
// for the table sizes of the moment it was planned (an empty table early in
// life means sequential scans), and kept while the tables grow; unnamed, each
// run is planned for the tables as they are. Any other handle (a drizzle
// transaction, a wrapped database) gets the same SQL through drizzle.
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { rows, type Db } from './db.ts';

export interface Statement {
  /** Positional parameters `$1`, `$2`, …; each may occur more than once. */
  readonly text: string;
}

/** Runs `statement` with `params` and returns its rows. Errors are the driver's (callers guard()). */
export async function runStatement<T>(db: Db, statement: Statement, params: readonly unknown[]): Promise<T[]> {
  const client = (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) {
    const result = await client.query(statement.text, params as unknown[]);
    return result.rows as T[];
  }
  if (client instanceof PGlite) {
    const result = await client.query<T>(statement.text, params as unknown[]);
    return result.rows;
  }
  return rows<T>(db, asDrizzleSql(statement.text, params));
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
