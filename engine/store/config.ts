// Options for opening the store, validated with zod so a bad DATABASE_URL or
// schema name fails at start with a message naming the field.
import { z } from 'zod';

/** A plain lower-case SQL identifier: safe to put in search_path and DDL without quoting surprises. */
export const schemaName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63 characters)');

export const storeOptions = z.object({
  /** postgres:// URL; absent → embedded PGlite. */
  url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** PGlite data directory; 'memory://' keeps everything in memory. */
  dataDir: z.string().min(1).default('./.orca-data'),
  /** Schema holding Orca's tables (search_path); tests use one per run. */
  schema: schemaName.default('public'),
  /** node-postgres pool size. */
  poolSize: z.number().int().min(1).max(1000).default(10),
  /** How long to wait for a connection before giving up with StoreUnavailableError. */
  connectTimeoutMs: z.number().int().min(1).default(5_000),
  /** Server-side cap on one statement; the client gives up a little after it. */
  statementTimeoutMs: z.number().int().min(1).default(30_000),
  /** A transaction left idle this long is ended by the server (a crashed leader must not hold its row locks). */
  idleInTransactionTimeoutMs: z.number().int().min(1).default(60_000),
  applicationName: z.string().min(1).max(63).default('orca'),
  /**
   * Start embedded PGlite from this dump of a data directory instead of
   * running initdb (seconds on a small machine); store/testing uses it.
   */
  pgliteTemplate: z.instanceof(Blob).optional(),
});

export type StoreOptionsInput = z.input<typeof storeOptions>;
export type StoreOptions = z.output<typeof storeOptions>;

/** Parses options, turning zod issues into one readable error. */
export function parseStoreOptions(input: StoreOptionsInput): StoreOptions {
  const result = storeOptions.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`);
  throw new Error(`invalid store options: ${problems.join('; ')}`);
}
