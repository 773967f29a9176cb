// Service configuration from the environment (DESIGN §5), validated with
// zod at start so every bad value gets its own clear message. Command-line
// flags override the environment.
import { z } from 'zod';
import { schemaName } from '../engine/store/config.ts';

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine((v) => v === undefined || protocols.some((p) => v.startsWith(p)), { message: `must be a URL starting with ${protocols.join(' or ')}` });

export const serviceConfig = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  DATABASE_URL: optionalUrl(['postgres://', 'postgresql://']),
  REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  ORCA_DATA_DIR: z.string().min(1).default('./.orca-data'),
  ORCA_PARTITIONS: z.coerce.number().int().min(1).max(256).default(8),
  ORCA_ROLE: z.enum(['all', 'api', 'engine']).default('all'),
  ORCA_LEASE_MS: z.coerce.number().int().min(300).max(600_000).default(5_000),
  /** How long a command's result answers retries with the same command key (default 24 hours, at least a minute). */
  ORCA_COMMAND_RETENTION_MS: z.coerce.number().int().min(60_000).max(30 * 24 * 3_600_000).default(24 * 3_600_000),
  /** Postgres schema holding Orca's tables (one per test run or per installation sharing a database). */
  ORCA_DB_SCHEMA: schemaName.default('public'),
  /** Prefix of every Redis key and channel (default `orca:`); several installations may share one Redis. */
  ORCA_REDIS_PREFIX: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine((v) => v === undefined || (v.length <= 100 && !/[{}\s]/.test(v)), { message: 'must be at most 100 characters without "{", "}" or whitespace' }),
  SMTP_URL: z.string().optional(),
  PUBLIC_URL: z.string().url().optional(),
});

export type ServiceConfig = z.infer<typeof serviceConfig>;

export function loadConfig(env: Record<string, string | undefined>): { ok: true; config: ServiceConfig } | { ok: false; errors: string[] } {
  const parsed = serviceConfig.safeParse(env);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
}
