// What route modules get to work with. Identity and Credits are interfaces
// so the HTTP layer does not care how keys are stored or credits counted.
import type { Engine } from '../engine/index.ts';
import type { Mailbox } from './agents/mailbox.ts';
import type { AgentService } from './agents/types.ts';
import type { SignIn } from './identity/sign-in.ts';
import type { AuthKind } from './plugins/auth.ts';
import type { PlatformApps } from './platform/index.ts';
import type { OrcaMetrics } from './metrics/orca-metrics.ts';
import type { WebhookEndpoints } from './webhooks/endpoints.ts';

export interface Identity {
  /**
   * The account an API key or a short-lived bearer token belongs to, or null
   * when the credential is unknown, retired or expired. Constant-time
   * comparison; never logs the credential.
   */
  authenticate(credential: string): Promise<string | null>;
  /** Creates an account with its first API key (signup confirmation; tests). */
  createAccount(email: string): Promise<{ account: string; apiKey: string }>;
}

export interface Credits {
  /**
   * Takes `amount` credits from the account, writing a ledger row, or throws
   * ApiError('OUT_OF_CREDITS') having taken nothing. Returns an undo that
   * writes a refund row, for when the charged action then fails.
   */
  charge(account: string, amount: number, reason: string, reference?: string): Promise<() => Promise<void>>;
}

export interface ApiConfig {
  /** Base URL for links in mail (PUBLIC_URL). */
  publicUrl: string;
  /** Largest request body in bytes (models, JSON). */
  bodyLimit: number;
  /** Origins a browser may call /mcp from; undefined: any but `null` (api/mcp/cors.ts). */
  mcpAllowedOrigins?: readonly string[];
  /** ORCA_ADMIN_TOKEN: the operator's bearer token for POST /api/admin/credits; absent: that route refuses. */
  adminToken?: string;
}

export interface ApiContext {
  engine: Engine;
  identity: Identity;
  credits: Credits;
  /** AI agents: registration, tokens, sessions (api/agents/). */
  agents: AgentService;
  /** Messages between the agents of an account. */
  mailbox: Mailbox;
  /** Apps registered on an account and their tokens (api/platform/). */
  platformApps: PlatformApps;
  /** The account's webhook endpoints and their delivery log (api/webhooks/). */
  webhooks: WebhookEndpoints;
  /** People's sign-in and sessions (api/identity/sign-in.ts); absent: no sign-in routes. */
  signIn?: SignIn;
  config: ApiConfig;
  /** Absent when metrics are off (ORCA_METRICS=off): no /metrics route, nothing timed. */
  metrics?: OrcaMetrics;
  /** The injected clock (tests); absent: the system's. */
  now?: () => Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account; set by the auth hook on every route with an auth other than 'none'. */
    account: string;
    /** The agent whose token authenticated the request (auth 'agentToken'), else null. */
    agent: { agentId: string; account: string } | null;
    /** The platform app whose token authenticated the request (auth 'appToken'), else null. */
    platformApp: { appId: string; account: string } | null;
  }
  interface FastifyContextConfig {
    auth?: AuthKind;
  }
}
