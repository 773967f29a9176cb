// The engine's part of Orca's configuration (docs/architecture.md,
// "Configuration"): one zod schema, the only place these settings and their
// defaults are written. The environment reaches it through cli/config.ts,
// which names the variable behind each field; tests and benches reach it
// through engineConfig(), which fills the same defaults. Fields accept the
// environment's strings as well as typed values, so both ways in share one
// validation. What wires an engine together without being configuration
// (its shard identity, test hooks) is EngineOptions, in partition/engine.ts.
import { z } from 'zod';
import { EngineError } from './partition/engine-error.ts';
import { MAX_PARTITIONS } from './partition/keys.ts';
import { schemaName } from './store/config.ts';

/** The environment's blank ('' or spaces) means "not set": the default applies. */
export const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** An optional URL whose scheme must be one of `schemes`; blank is unset. */
const optionalUrl = (schemes: string[]) =>
  z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      .refine((v) => schemes.some((p) => v.startsWith(p)), { message: `must be a URL starting with ${schemes.join(' or ')}` })
      .optional(),
  );

export const engineConfigSchema = z.object({
  /** PostgreSQL, the source of truth; absent → embedded PGlite in `dataDir`. */
  databaseUrl: optionalUrl(['postgres://', 'postgresql://']),
  /** Redis for queues, streams and replies; absent → in-process queues. */
  redisUrl: optionalUrl(['redis://', 'rediss://']),
  /** PGlite data directory when there is no databaseUrl ('memory://' for tests). */
  dataDir: z.string().min(1).default('./.orca-data'),
  /** Postgres schema holding Orca's tables (one per test run or per installation sharing a database). */
  schema: schemaName.default('public'),
  /** The application_name of Orca's Postgres connections: how pg_stat_activity tells them (and their backends' CPU) apart. */
  dbApplicationName: z.preprocess(blankAsUnset, z.string().min(1).max(63).default('orca')),
  /** Prefix of every Redis key and channel; several installations may share one Redis. */
  redisPrefix: z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      .refine((v) => v.length <= 100 && !/[{}\s]/.test(v), { message: 'must be at most 100 characters without "{", "}" or whitespace' })
      .default('orca:'),
  ),
  /** Instance keys carry their partition: every process of an installation uses the same number. */
  partitions: z.coerce.number().int().min(1).max(MAX_PARTITIONS).default(8),
  /** `all`: API and partition leaders; `api`: no leaders; `engine`: leaders only. */
  role: z.enum(['all', 'api', 'engine']).default('all'),
  /** A partition leader's lease, renewed every third of it. */
  leaseMs: z.coerce.number().int().min(300).max(600_000).default(5_000),
  /** How long a command's result answers retries with the same command key (default 24 hours, at least a minute). */
  commandRetentionMs: z.coerce
    .number()
    .int()
    .min(60_000)
    .max(30 * 24 * 3_600_000)
    .default(24 * 3_600_000),
  /** How long an API call waits for its committed reply before answering TIMEOUT. */
  replyTimeoutMs: z.coerce.number().int().min(1).default(10_000),
  /** A partition with more commands waiting than this refuses new starts (503, retryable). */
  maxPendingCommands: z.coerce.number().int().min(0).default(10_000),
});

export type EngineConfig = z.output<typeof engineConfigSchema>;

/** Any part of a configuration, nested objects included: what a test or bench sets over the defaults. */
export type ConfigOverrides<T> = { [K in keyof T]?: T[K] extends Record<string, unknown> ? ConfigOverrides<T[K]> : T[K] };

/** `layers` merged in order (later wins, nested objects merged field by field; an explicit undefined unsets). */
export function mergeOverrides<T>(...layers: (ConfigOverrides<T> | undefined)[]): ConfigOverrides<T> {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      const before = merged[key];
      merged[key] = isPlainObject(before) && isPlainObject(value) ? mergeOverrides(before, value) : value;
    }
  }
  return merged as ConfigOverrides<T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Each problem as `field.path: why`. */
export function configProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

/** The engine configuration: the schema's defaults under `overrides` (merged in order). Throws INVALID_ARGUMENT naming each bad field. */
export function engineConfig(...overrides: (ConfigOverrides<EngineConfig> | undefined)[]): EngineConfig {
  const parsed = engineConfigSchema.safeParse(mergeOverrides(...overrides));
  if (!parsed.success) throw new EngineError('INVALID_ARGUMENT', `Invalid engine configuration: ${configProblems(parsed.error).join('; ')}`);
  return parsed.data;
}
