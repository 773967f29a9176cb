// The drizzle handle every repository takes, whichever driver is behind it,
// and the two helpers that paper over the drivers' differences for raw SQL.
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

/** A drizzle database or transaction on node-postgres or PGlite. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** Runs raw SQL and returns its rows (both drivers answer `{ rows }`). */
export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

// Postgres allows 65,535 bind parameters per statement; stay well below it.
const MAX_PARAMETERS = 30_000;

/** Splits rows so a multi-row statement stays under the bind-parameter limit. */
export function chunks<T>(items: readonly T[], parametersPerItem: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, parametersPerItem)));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Normalises an int8 from either driver (string, number or bigint) to a decimal string. */
export function keyString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  throw new TypeError(`expected an int8 value, got ${typeof value}`);
}
