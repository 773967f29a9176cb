// The whole service in one call: the durable engine, identity, credits and
// mail behind the HTTP server. `orca start` and the API tests both come
// through here, so what they run is the same wiring. close() lets in-flight
// requests finish before the engine (and with it the store) goes away.
import type { FastifyInstance } from 'fastify';
import { createEngine, type Engine, type EngineConfig } from '../engine/partition/index.ts';
import type { ApiConfig, ApiContext } from './context.ts';
import { createCredits, type CreditsService } from './credits/index.ts';
import { createIdentity, type IdentityService } from './identity/index.ts';
import { createMailer, type Mailer } from './mail/index.ts';
import { rateLimitOptionsFromEnv } from './plugins/rate-limit.ts';
import { buildServer, type ServerOptions } from './server.ts';

export interface AppConfig {
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Default 0.0.0.0. */
  host?: string;
  databaseUrl?: string;
  redisUrl?: string;
  dataDir?: string;
  schema?: string;
  redisPrefix?: string;
  partitions?: number;
  role?: 'all' | 'api' | 'engine';
  /** Absent → mail goes to the mail_outbox table and the log. */
  smtpUrl?: string;
  /** From address of outgoing mail. */
  mailFrom?: string;
  /** Base URL for links in mail; default http://localhost:<port> once listening. */
  publicUrl?: string;
  /** Opening balance of a new account (default 1,000). */
  initialCredits?: number;
  /** Largest request body in bytes (default 10 MiB). */
  bodyLimit?: number;
  logger?: boolean;
  /** Rate limits and shutdown grace (api/server.ts). Default rate limits: from the environment, on this config's Redis and prefix. */
  server?: Omit<ServerOptions, 'logger'>;
  /**
   * Print whole outbox messages (API keys included) to stdout. Default: only
   * in the embedded default (no DATABASE_URL, no SMTP_URL), where nobody else
   * could read them.
   */
  mailEcho?: boolean;
  /** Bearer token life (default 1800 s). */
  tokenTtlSeconds?: number;
  /** Signup link life (default 24 h). */
  signupTtlSeconds?: number;
  /** Clock for token and link expiry (tests). */
  clock?: () => Date;
  /** Passed to the engine as they are. */
  leaseMs?: EngineConfig['leaseMs'];
  owner?: EngineConfig['owner'];
  replyTimeoutMs?: EngineConfig['replyTimeoutMs'];
  maxPendingCommands?: EngineConfig['maxPendingCommands'];
  commandRetentionMs?: EngineConfig['commandRetentionMs'];
}

export interface App {
  app: FastifyInstance;
  engine: Engine;
  identity: IdentityService;
  credits: CreditsService;
  mailer: Mailer;
  /** The server's base URL; empty until listen() resolves. */
  readonly url: string;
  /** Starts listening; resolves to the base URL. */
  listen(): Promise<string>;
  /** Stops taking requests, lets in-flight ones finish, then stops the engine. Idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export async function createApp(config: AppConfig = {}): Promise<App> {
  const port = config.port ?? 8080;
  const host = config.host ?? '0.0.0.0';
  const engine = await createEngine({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    dataDir: config.dataDir,
    schema: config.schema,
    redisPrefix: config.redisPrefix,
    partitions: config.partitions,
    role: config.role,
    leaseMs: config.leaseMs,
    owner: config.owner,
    replyTimeoutMs: config.replyTimeoutMs,
    maxPendingCommands: config.maxPendingCommands,
    commandRetentionMs: config.commandRetentionMs,
  });
  try {
    // Mutable: without PUBLIC_URL the links name the port we end up on.
    const apiConfig: ApiConfig = {
      publicUrl: (config.publicUrl ?? `http://localhost:${port}`).replace(/\/+$/, ''),
      bodyLimit: config.bodyLimit ?? DEFAULT_BODY_LIMIT,
    };
    const embeddedDefault = !config.databaseUrl && !config.smtpUrl;
    // The mailer logs through the server's logger, which exists only later.
    const logTo: { server?: FastifyInstance } = {};
    const mailer = createMailer({
      outbox: engine.store.mailOutbox,
      smtpUrl: config.smtpUrl,
      from: config.mailFrom,
      log: (fields, message) => logTo.server?.log.info(fields, message),
      echo: (config.mailEcho ?? embeddedDefault) ? (text) => void process.stdout.write(text) : undefined,
    });
    const identity = createIdentity({
      store: engine.store,
      notices: engine.queues.notices,
      mailer,
      config: {
        publicUrl: () => apiConfig.publicUrl,
        initialCredits: config.initialCredits,
        tokenTtlSeconds: config.tokenTtlSeconds,
        signupTtlSeconds: config.signupTtlSeconds,
        now: config.clock,
      },
    });
    const credits = createCredits({ store: engine.store, initialBalance: config.initialCredits });
    const ctx: ApiContext = { engine, identity, credits, config: apiConfig };
    const app = await buildServer(ctx, {
      ...config.server,
      logger: config.logger,
      // The buckets belong beside this installation's other Redis keys, not wherever the environment points.
      rateLimit: config.server?.rateLimit ?? { ...rateLimitOptionsFromEnv(process.env), redisUrl: config.redisUrl, prefix: config.redisPrefix ?? 'orca:' },
    });
    logTo.server = app;

    let url = '';
    let closing: Promise<void> | undefined;
    return {
      app,
      engine,
      identity,
      credits,
      mailer,
      get url() {
        return url;
      },
      async listen() {
        const address = await app.listen({ port, host });
        const actual = new URL(address);
        if (host === '0.0.0.0' || host === '::') actual.hostname = 'localhost';
        url = actual.origin;
        if (config.publicUrl === undefined) apiConfig.publicUrl = url;
        return url;
      },
      close() {
        closing ??= (async () => {
          try {
            await app.close();
          } finally {
            await mailer.close();
            await engine.close();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
