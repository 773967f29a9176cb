// The service configuration from the environment (DESIGN §5): the one place
// that reads environment variables, each named here beside the field of the
// configuration it sets (api/config.ts, whose schema validates them and
// holds their defaults). Every bad value gets its own message naming its
// variable. Command-line flags override the environment (cli/start.ts).
import { appConfigSchema, type AppConfig } from '../api/config.ts';

/** A field of the configuration: its section and its name there. */
type ConfigField = { [S in keyof AppConfig]: readonly [S, keyof AppConfig[S] & string] }[keyof AppConfig];

/** Each variable and the configuration field it sets (docs/configuration.md's table lists exactly these). */
export const ENVIRONMENT = {
  PORT: ['http', 'port'],
  PUBLIC_URL: ['http', 'publicUrl'],
  DATABASE_URL: ['engine', 'databaseUrl'],
  REDIS_URL: ['engine', 'redisUrl'],
  ORCA_DATA_DIR: ['engine', 'dataDir'],
  ORCA_DB_SCHEMA: ['engine', 'schema'],
  ORCA_DB_APPLICATION_NAME: ['engine', 'dbApplicationName'],
  ORCA_REDIS_PREFIX: ['engine', 'redisPrefix'],
  ORCA_PARTITIONS: ['engine', 'partitions'],
  ORCA_ROLE: ['engine', 'role'],
  ORCA_LEASE_MS: ['engine', 'leaseMs'],
  ORCA_COMMAND_RETENTION_MS: ['engine', 'commandRetentionMs'],
  SMTP_URL: ['mail', 'smtpUrl'],
  ORCA_RATE_LIMIT_PER_SECOND: ['rateLimit', 'perSecond'],
  ORCA_RATE_LIMIT_BURST: ['rateLimit', 'burst'],
  ORCA_SESSION_TTL_SECONDS: ['accounts', 'sessionTtlSeconds'],
  ORCA_CREDITS: ['credits', 'enabled'],
  ORCA_CREDITS_LOW_THRESHOLD: ['credits', 'lowThreshold'],
  ORCA_ADMIN_TOKEN: ['credits', 'adminToken'],
  ORCA_METRICS: ['metrics', 'enabled'],
  ORCA_MCP_ALLOWED_ORIGINS: ['mcp', 'allowedOrigins'],
  ORCA_WEBHOOK_SECRET_KEY: ['webhooks', 'secretKey'],
  ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: ['webhooks', 'allowPrivateNetworks'],
  ORCA_WEBHOOK_DISPATCHER: ['webhooks', 'dispatcher'],
  ORCA_WEBHOOK_TIMEOUT_MS: ['webhooks', 'timeoutMs'],
  ORCA_WEBHOOK_PER_ENDPOINT: ['webhooks', 'perEndpoint'],
  ORCA_WEBHOOK_LOG_RETENTION_MS: ['webhooks', 'logRetentionMs'],
  ORCA_URL: ['operator', 'orcaUrl'],
  ORCA_OPERATOR_WATCH_NAMESPACE: ['operator', 'watchNamespace'],
  ORCA_OPERATOR_LEASE_NAMESPACE: ['operator', 'leaseNamespace'],
  ORCA_OPERATOR_IDENTITY: ['operator', 'identity'],
  ORCA_OPERATOR_RESYNC_SECONDS: ['operator', 'resyncSeconds'],
} as const satisfies Record<string, ConfigField>;

export type EnvironmentVariable = keyof typeof ENVIRONMENT;

export function loadConfig(env: Record<string, string | undefined>): { ok: true; config: AppConfig } | { ok: false; errors: string[] } {
  const input: Record<string, Record<string, string>> = {};
  for (const [name, [section, field]] of Object.entries(ENVIRONMENT)) {
    const value = env[name];
    if (value !== undefined) (input[section] ??= {})[field] = value;
  }
  const parsed = appConfigSchema.safeParse(input);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, errors: parsed.error.issues.map((issue) => `${variableAt(issue.path) ?? issue.path.join('.')}: ${issue.message}`) };
}

function variableAt(path: readonly PropertyKey[]): EnvironmentVariable | undefined {
  return (Object.keys(ENVIRONMENT) as EnvironmentVariable[]).find((name) => ENVIRONMENT[name].every((part, i) => path[i] === part));
}
