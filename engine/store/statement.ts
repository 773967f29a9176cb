// Fixed SQL statements for the hot paths (the leader's commit-batch.ts and
// commands-repository.ts, deploys in versioned-resources.ts and
// request-keys-repository.ts), run straight on the driver: no query builder
// and no per-call SQL rendering, one round trip each; and the transaction
// those deploys run in, on the driver too.
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
import { is, sql, type SQL } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
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

/** The statements of one transaction, run on its connection. */
export interface Tx {
  run<T>(statement: Statement, params: readonly unknown[]): Promise<T[]>;
}

/**
 * Runs `work` in one transaction straight on the driver (a pool connection
 * with its named statements, or PGlite's transaction), so neither the
 * transaction nor its statements go through drizzle. Inside a caller's
 * drizzle transaction it is part of that one (no savepoint: a failure
 * aborts the caller's transaction anyway); on any other handle, a drizzle
 * transaction.
 */
export async function transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) return onPoolConnection(client, work);
  if (client instanceof PGlite)
    return client.transaction((t) => work({ run: async <R>(s: Statement, p: readonly unknown[]) => (await t.query<R>(s.text, p as unknown[])).rows }));
  const through = (handle: Db): Tx => ({ run: (s, p) => runStatement(handle, s, p) });
  return is(db, PgTransaction) ? work(through(db)) : db.transaction((tx) => work(through(tx)));
}

async function onPoolConnection<T>(pool: pg.Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  const connection = await pool.connect();
  let broken: Error | undefined;
  try {
    await connection.query('begin');
    const result = await work({
      run: async <R>(s: Statement, p: readonly unknown[]) =>
        (s.name ? await connection.query({ name: s.name, text: s.text, values: p as unknown[] }) : await connection.query(s.text, p as unknown[])).rows as R[],
    });
    await connection.query('commit');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is not handed to the next caller.
    await connection.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
    throw err;
  } finally {
    connection.release(broken);
  }
}
