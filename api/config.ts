// Orca's configuration as the service runs with it (docs/architecture.md,
// "Configuration"): one zod schema of nested sections, the engine's being
// its own schema (engine/config.ts), and the only place these settings and
// their defaults are written. `orca start` fills it from the environment
// (cli/config.ts names the variable behind each field); tests and benches
// build it with appConfig(), which fills the same defaults. A new setting is
// one field here (and, if the environment sets it, one line in
// cli/config.ts) plus the code that uses it. Test hooks (clock, mail echo,
// logger, server options) are not configuration: see AppOptions in app.ts.
import { z } from 'zod';
import { blankAsUnset, configProblems, engineConfigSchema, mergeOverrides, type ConfigOverrides } from '../engine/index.ts';

/** A switch as the environment writes it (on/off, true/false) or a boolean. */
const onOff = z.union([z.boolean(), z.enum(['on', 'off', 'true', 'false']).transform((v) => v === 'on' || v === 'true')]);

export const appConfigSchema = z.object({
  http: z
    .object({
      /** 0 picks a free port. */
      port: z.coerce.number().int().min(0).max(65535).default(8080),
      host: z.string().min(1).default('0.0.0.0'),
      /** Base URL for links in mail and the OpenAPI document's server; absent → the URL the server listens on. */
      publicUrl: z.string().url().optional(),
      /** Largest request body in bytes (models, JSON). */
      bodyLimit: z.coerce
        .number()
        .int()
        .min(1)
        .default(10 * 1024 * 1024),
    })
    .prefault({}),
  mail: z
    .object({
      /** smtp:// or smtps://; absent → mail goes to the mail_outbox table (without its secrets) and the log; see AppOptions.mailEcho. */
      smtpUrl: z.preprocess(blankAsUnset, z.string().optional()),
      /** From address of outgoing mail (default: the mailer's). */
      from: z.string().min(1).optional(),
    })
    .prefault({}),
  /** New accounts and their credentials (defaults: the identity service's, api/identity/). */
  accounts: z
    .object({
      /** Opening balance of a new account. */
      initialCredits: z.number().int().min(0).optional(),
      /** Bearer token life. */
      tokenTtlSeconds: z.number().int().min(1).optional(),
      /** Signup link life. */
      signupTtlSeconds: z.number().int().min(1).optional(),
      /** Sign-in session life (ORCA_SESSION_TTL_SECONDS; default 12 h). */
      sessionTtlSeconds: z.preprocess(
        blankAsUnset,
        z.coerce
          .number()
          .int()
          .min(60)
          .default(12 * 3_600),
      ),
      /** Life of a mailed sign-in code and its link. */
      loginCodeTtlSeconds: z.number().int().min(60).default(900),
      /** Sign-in mails an address, or a caller address, may ask for at once after a quiet spell; then loginPerHour. */
      loginBurst: z.number().int().min(1).default(5),
      loginPerHour: z.number().positive().default(20),
    })
    .prefault({}),
  /** Credit accounting (docs/account.md): charging, the credits.low event, operators' grants. */
  credits: z
    .object({
      /** Charged routes take credits (ORCA_CREDITS=off: they take none and never refuse for balance). */
      enabled: z.preprocess(blankAsUnset, z.union([z.boolean(), z.enum(['on', 'off']).transform((v) => v === 'on')]).default(true)),
      /** A charge taking the balance from at least this to below it sends credits.low (ORCA_CREDITS_LOW_THRESHOLD). */
      lowThreshold: z.preprocess(blankAsUnset, z.coerce.number().int().min(1).default(100)),
      /** Bearer token of POST /api/admin/credits (ORCA_ADMIN_TOKEN); unset: the route refuses every call. */
      adminToken: z.preprocess(blankAsUnset, z.string().min(16, 'must be at least 16 characters').optional()),
    })
    .prefault({}),
  /** Per-account rate limits, kept on the engine's Redis under its prefix. */
  rateLimit: z
    .object({
      /** Sustained requests per second per account (0: no limit); blank means the default. */
      perSecond: z.preprocess(blankAsUnset, z.coerce.number().min(0).default(1_000)),
      /** Requests an account may make at once after a quiet spell; blank means the default. */
      burst: z.preprocess(blankAsUnset, z.coerce.number().int().min(1).default(2_000)),
    })
    .prefault({}),
  /** Flood limits of orca.register and orca.connect, per account and per caller address (api/agents/rate-limits.ts). */
  agents: z
    .object({
      /** Registrations an account (or an address) may make at once after a quiet spell. */
      registerBurst: z.number().int().min(1).default(20),
      /** Registrations per minute after the burst. */
      registerPerMinute: z.number().positive().default(20),
      /** Sessions an account (or an address) may open at once after a quiet spell. */
      connectBurst: z.number().int().min(1).default(60),
      /** Sessions per minute after the burst. */
      connectPerMinute: z.number().positive().default(120),
    })
    .prefault({}),
  /** Prometheus metrics at GET /metrics on every role (docs/observability.md). */
  metrics: z
    .object({
      /** On unless turned off (ORCA_METRICS=off). */
      enabled: z.preprocess(blankAsUnset, z.union([z.boolean(), z.enum(['on', 'off']).transform((v) => v === 'on')]).default(true)),
      /** Node's default process metrics beside Orca's own. */
      processMetrics: z.boolean().default(true),
    })
    .prefault({}),
  /** The MCP endpoint at /mcp (docs/mcp.md). */
  mcp: z
    .object({
      /**
       * Origins a browser page may call /mcp from, comma-separated (ORCA_MCP_ALLOWED_ORIGINS). Unset, blank or `*`: any
       * origin (safe: /mcp uses no cookies, credentials travel only in tool arguments); the `null` origin is refused either way.
       */
      allowedOrigins: z.preprocess(
        blankAsUnset,
        z
          .union([
            z.array(z.string()),
            z.string().transform((text) =>
              text
                .split(',')
                .map((origin) => origin.trim())
                .filter((origin) => origin !== ''),
            ),
          ])
          .transform((origins) => (origins.includes('*') ? undefined : origins))
          .refine((origins) => origins === undefined || origins.every(isOrigin), 'must be `*` or origins like https://app.example.com, comma-separated')
          .optional(),
      ),
    })
    .prefault({}),
  /** Webhooks (docs/webhooks.md): how signing secrets are stored and which addresses endpoints may reach. */
  webhooks: z
    .object({
      /** 32 bytes as base64 (`openssl rand -base64 32`) sealing the stored signing secrets; unset: stored as they are. */
      secretKey: z.preprocess(
        blankAsUnset,
        z
          .string()
          .refine((key) => Buffer.from(key, 'base64').length === 32, 'must be 32 bytes as base64 (e.g. `openssl rand -base64 32`)')
          .optional(),
      ),
      /** Let endpoints reach loopback and private ranges (never link-local): for receivers inside the cluster. */
      allowPrivateNetworks: z.preprocess(
        blankAsUnset,
        z.union([z.boolean(), z.enum(['true', 'false', 'on', 'off']).transform((v) => v === 'true' || v === 'on')]).default(false),
      ),
      /** The dispatcher runs on every process leading partitions (roles all and engine); off: this process sends none. */
      dispatcher: z.preprocess(blankAsUnset, onOff.default(true)),
      /** A delivery attempt's whole deadline, ms (connect, answer and the read of its start). */
      timeoutMs: z.preprocess(blankAsUnset, z.coerce.number().int().min(1_000).max(60_000).default(15_000)),
      /** Attempts in flight at once to one endpoint, per dispatcher: a hanging endpoint holds only these. */
      perEndpoint: z.preprocess(blankAsUnset, z.coerce.number().int().min(1).max(256).default(64)),
      /** How long the delivery log keeps a finished delivery, ms (30 days); 0: for good. */
      logRetentionMs: z.preprocess(blankAsUnset, z.coerce.number().int().min(0).max(3_153_600_000_000).default(2_592_000_000)),
    })
    .prefault({}),
  engine: engineConfigSchema.prefault({}),
  /** The Kubernetes operator, `orca operator` (docs/operator.md); its port is http.port. */
  operator: z
    .object({
      /** The Orca API it deploys to (required by `orca operator` only). */
      orcaUrl: z.preprocess(blankAsUnset, z.url({ protocol: /^https?$/ }).optional()),
      /** Watch only this namespace; unset: all of them. */
      watchNamespace: z.preprocess(blankAsUnset, z.string().min(1).max(63).optional()),
      /** Namespace of the Lease `orca-operator`; unset: the watch namespace, else `default`. */
      leaseNamespace: z.preprocess(blankAsUnset, z.string().min(1).max(63).optional()),
      /** This replica's name in the Lease; unset: host name and process id. */
      identity: z.preprocess(blankAsUnset, z.string().min(1).max(253).optional()),
      /** Every resource is reconciled again this often (seconds); a resync deploys nothing unless something changed. */
      resyncSeconds: z.preprocess(blankAsUnset, z.coerce.number().int().min(1).max(86_400).default(300)),
    })
    .prefault({}),
});

export type AppConfig = z.output<typeof appConfigSchema>;

/** `scheme://host[:port]` exactly as a browser sends it in Origin. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return /^https?:$/.test(url.protocol) && url.origin === text;
  } catch {
    return false;
  }
}

/** The service configuration: the schema's defaults under `overrides` (merged in order). Throws naming each bad field. */
export function appConfig(...overrides: (ConfigOverrides<AppConfig> | undefined)[]): AppConfig {
  const parsed = appConfigSchema.safeParse(mergeOverrides(...overrides));
  if (!parsed.success) throw new Error(`Invalid configuration: ${configProblems(parsed.error).join('; ')}`);
  return parsed.data;
}
