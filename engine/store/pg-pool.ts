// node-postgres pools as Orca opens them: its timeouts, its schema on the
// search path, and errors of idle connections kept from crashing the
// process. A module of its own, light to load: the commit thread
// (engine/partition/commit-thread-worker.ts) opens its connection with it.
import pg from 'pg';
import type { StoreOptions } from './config.ts';

/** What a writer connection is opened with (see openWriterPool); plain data, so it can cross to a worker thread. */
export interface WriterConnection {
  url: string;
  options: StoreOptions;
}

/** A pool for batch commits: connections on which the planner may not choose a sequential scan (see openPg). */
export function openWriterPool(connection: WriterConnection, max: number): pg.Pool {
  return newPool(connection.options, connection.url, max, ['-c enable_seqscan=off']);
}

export function newPool(options: StoreOptions, url: string, max: number, settings: string[]): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // The server cancels a runaway statement; the client stops waiting a
    // little later in case the server itself is gone.
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 5_000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
    application_name: options.applicationName,
    options: [`-c search_path=${options.schema}`, ...settings].join(' '),
    keepAlive: true,
  });
  // An idle client whose connection dies emits 'error' on the pool; without
  // a listener that would crash the process. The pool drops the client and
  // the next query opens a new connection (or fails with StoreUnavailableError).
  pool.on('error', () => {});
  // A client checked out for a transaction has no pool listener; if its
  // connection ends mid-query pg emits 'error' on the client itself, which
  // would crash the process. The query in flight fails with a connection
  // error instead, which guard() turns into StoreUnavailableError.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
