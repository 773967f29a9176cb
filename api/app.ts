// The whole service in one call: the durable engine, identity, credits and
// mail behind the HTTP server, built from one validated configuration
// (api/config.ts) whose `engine` section goes to the engine as it is.
// `orca start` and the API tests both come through here, so what they run
// is the same wiring. close() lets in-flight requests finish before the
// engine (and with it the store) goes away.
import type { Tracer } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { createEngine, type Engine, type EngineOptions } from '../engine/index.ts';
import { createAgents, type AgentsService } from './agents/index.ts';
import { createMailbox, type Mailbox } from './agents/mailbox.ts';
import { agentBuckets, type AgentBuckets } from './agents/buckets.ts';
import type { AppConfig } from './config.ts';
import type { ApiConfig, ApiContext } from './context.ts';
import { createCredits, type CreditsService } from './credits/index.ts';
import { createIdentity, type IdentityService } from './identity/index.ts';
import { createSignIn } from './identity/sign-in.ts';
import { consoleText, createMailer, type EchoedMail, type Mailer } from './mail/index.ts';
import { engineMetrics } from './metrics/engine-metrics.ts';
import { OrcaMetrics } from './metrics/orca-metrics.ts';
import { createPlatformApps, type PlatformApps } from './platform/index.ts';
import { buildServer, type ServerOptions } from './server.ts';
import { createWebhookEndpoints } from './webhooks/endpoints.ts';
import type { DispatcherOptions, WebhookDispatcher } from './webhooks/dispatcher.ts';
import { serviceDispatcher } from './webhooks/service.ts';

/**
 * What wires the service without being configuration (that is AppConfig,
 * api/config.ts): hooks for tests and embedders.
 */
export interface AppOptions {
  /**
   * Show whole messages (API keys included) once, when there is no SMTP:
   * true prints them to stdout, a function receives them (tests). The outbox
   * table never keeps their secrets. Default: only in the embedded default
   * (no DATABASE_URL, no SMTP_URL), where the console is the reader's own;
   * otherwise a message carrying a key cannot be delivered without SMTP.
   */
  mailEcho?: boolean | ((mail: EchoedMail) => void);
  /** Clock for token and link expiry (tests). */
  clock?: () => Date;
  logger?: ServerOptions['logger'];
  /** Shutdown grace and, for tests, rate limits whole instead of the configured ones (api/server.ts). */
  server?: Partial<Omit<ServerOptions, 'logger'>>;
  /** The engine's shard identity and test hooks. */
  engine?: EngineOptions;
  /**
   * Tracing on: the tracer of the OpenTelemetry SDK the caller started
   * (api/tracing/sdk.ts; `orca start` does when OTEL_* ask for it). It
   * traces requests and the engine; absent, nothing is traced.
   */
  tracer?: Tracer;
  /** Test hooks of the webhook dispatcher (clock, retry schedule, name resolution). */
  webhooks?: Partial<DispatcherOptions>;
}

export interface App {
  app: FastifyInstance;
  engine: Engine;
  identity: IdentityService;
  credits: CreditsService;
  agents: AgentsService;
  mailbox: Mailbox;
  platformApps: PlatformApps;
  /** What the routes were given: the same services as above. */
  ctx: ApiContext;
  mailer: Mailer;
  /** The service's metrics; undefined when they are off. */
  metrics: OrcaMetrics | undefined;
  /** The webhook dispatcher of this process (api/webhooks/service.ts); undefined where none runs. */
  webhookDispatcher: WebhookDispatcher | undefined;
  /** The server's base URL; empty until listen() resolves. */
  readonly url: string;
  /** Starts listening; resolves to the base URL. */
  listen(): Promise<string>;
  /** Stops taking requests, lets in-flight ones finish, then stops the engine. Idempotent. */
  close(): Promise<void>;
}

export async function createApp(config: AppConfig, options: AppOptions = {}): Promise<App> {
  const { port, host } = config.http;
  const metrics = config.metrics.enabled ? new OrcaMetrics({ processMetrics: config.metrics.processMetrics }) : undefined;
  const engine = await createEngine(config.engine, {
    ...options.engine,
    metrics: metrics && engineMetrics(metrics),
    tracer: options.tracer,
    credits: config.credits,
  });
  metrics?.watch(engine);
  let buckets: AgentBuckets | undefined;
  try {
    // Mutable: without PUBLIC_URL the links name the port we end up on.
    const apiConfig: ApiConfig = {
      publicUrl: (config.http.publicUrl ?? `http://localhost:${port}`).replace(/\/+$/, ''),
      bodyLimit: config.http.bodyLimit,
      mcpAllowedOrigins: config.mcp.allowedOrigins,
      adminToken: config.credits.adminToken,
    };
    const embeddedDefault = !config.engine.databaseUrl && !config.mail.smtpUrl;
    const echo = options.mailEcho ?? embeddedDefault;
    // The mailer logs through the server's logger, which exists only later.
    const logTo: { server?: FastifyInstance } = {};
    const mailer = createMailer({
      outbox: engine.store.mailOutbox,
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      log: (fields, message) => logTo.server?.log.info(fields, message),
      echo: typeof echo === 'function' ? echo : echo ? (mail) => void process.stdout.write(consoleText(mail)) : undefined,
    });
    const identity = createIdentity({
      store: engine.store,
      notices: engine.queues.notices,
      mailer,
      config: {
        publicUrl: () => apiConfig.publicUrl,
        ...config.accounts,
        now: options.clock,
      },
    });
    const credits = createCredits({
      store: engine.store,
      initialBalance: config.accounts.initialCredits,
      enabled: config.credits.enabled,
      lowThreshold: config.credits.lowThreshold,
      counted: metrics && { charged: (n) => metrics.creditsCharged.inc(n), refunded: (n) => metrics.creditsRefunded.inc(n) },
    });
    // Shared by every pod through the engine's Redis when there is one, as the request limit is.
    buckets = await agentBuckets(config.engine.redisUrl, config.engine.redisPrefix);
    const agents = createAgents({
      store: engine.store,
      identity,
      notices: engine.queues.notices,
      now: options.clock,
      buckets: buckets.factory,
      rateLimits: {
        register: { burst: config.agents.registerBurst, perSecond: config.agents.registerPerMinute / 60 },
        connect: { burst: config.agents.connectBurst, perSecond: config.agents.connectPerMinute / 60 },
      },
    });
    const signIn = createSignIn({
      repo: engine.store.login,
      mailer,
      buckets: (limits) => buckets!.factory('login', limits),
      config: {
        publicUrl: () => apiConfig.publicUrl,
        sessionTtlSeconds: config.accounts.sessionTtlSeconds,
        codeTtlSeconds: config.accounts.loginCodeTtlSeconds,
        limits: { burst: config.accounts.loginBurst, perSecond: config.accounts.loginPerHour / 3_600 },
        now: options.clock,
      },
    });
    const mailbox = createMailbox({ store: engine.store, now: options.clock });
    const platformApps = createPlatformApps({ store: engine.store, notices: engine.queues.notices, now: options.clock });
    const webhooks = createWebhookEndpoints({ store: engine.store, config: config.webhooks, now: options.clock });
    const ctx: ApiContext = { engine, identity, credits, agents, mailbox, platformApps, webhooks, signIn, config: apiConfig, metrics, now: options.clock };
    const app = await buildServer(ctx, {
      ...options.server,
      logger: options.logger,
      tracer: options.tracer,
      // The buckets belong beside this installation's other Redis keys.
      rateLimit: options.server?.rateLimit ?? { ...config.rateLimit, redisUrl: config.engine.redisUrl, prefix: config.engine.redisPrefix },
    });
    logTo.server = app;
    const webhookDispatcher = serviceDispatcher(config, engine, metrics, (error) => app.log.warn({ err: error }, 'webhook dispatcher'), options.webhooks);

    let url = '';
    let closing: Promise<void> | undefined;
    return {
      app,
      engine,
      identity,
      credits,
      agents,
      mailbox,
      platformApps,
      ctx,
      mailer,
      metrics,
      webhookDispatcher,
      get url() {
        return url;
      },
      async listen() {
        const address = await app.listen({ port, host });
        const actual = new URL(address);
        if (host === '0.0.0.0' || host === '::') actual.hostname = 'localhost';
        url = actual.origin;
        if (config.http.publicUrl === undefined) apiConfig.publicUrl = url;
        return url;
      },
      close() {
        closing ??= (async () => {
          try {
            await app.close();
          } finally {
            await webhookDispatcher?.stop();
            await agents.close();
            await signIn.close();
            platformApps.close();
            await buckets?.close();
            await mailer.close();
            await engine.close();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    await buckets?.close();
    await engine.close();
    throw error;
  }
}
