// Authentication (SPEC.md "Authentication"). Routes declare one of four
// kinds and there is no other way in:
// - 'apiKey': the workflow REST API — the account API key (or a short-lived
//   token minted from it) in X-API-Key, Authorization: Bearer, or the query
//   parameter api_key;
// - 'agentToken': the agent mailbox — an agent's token as Authorization:
//   Bearer only (api/agents/); an account key or token is refused there;
// - 'appToken': a platform app's own calls — its app token as
//   Authorization: Bearer only (api/platform/); refused everywhere else,
//   as agent tokens are, since each kind's lookup knows only its own shape;
// - 'session': the dashboard, wallet and account-key routes — a person's
//   sign-in session (api/identity/sign-in.ts) as Authorization: Bearer
//   only; an API key or token is refused there, and a session everywhere
//   else (the identity lookup knows no session's shape);
// - 'adminToken': the operator's routes — the server's ORCA_ADMIN_TOKEN as
//   Authorization: Bearer, compared in constant time; 403 for every call
//   while the server has none;
// - 'none'.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AgentService } from '../agents/types.ts';
import type { Identity } from '../context.ts';
import { kindOf } from '../identity/secrets.ts';
import type { SignIn } from '../identity/sign-in.ts';
import type { PlatformApps } from '../platform/index.ts';
import { ApiError } from '../problem.ts';

export type AuthKind = 'none' | 'apiKey' | 'agentToken' | 'appToken' | 'session' | 'adminToken';

/**
 * The WWW-Authenticate challenge of every 401 (RFC 9110 §11.6.1): the key
 * or a token as a bearer credential (RFC 6750), or the key in X-API-Key.
 */
export const AUTH_CHALLENGE = 'Bearer realm="orca", ApiKey realm="orca", header="X-API-Key"';
/** The challenge of the agent mailbox's 401s. */
export const AGENT_CHALLENGE = 'Bearer realm="orca-agents"';
/** The challenge of a platform app's routes' 401s. */
export const APP_CHALLENGE = 'Bearer realm="orca-platform-apps"';

/** The challenge of the signed-in person's routes' 401s. */
export const SESSION_CHALLENGE = 'Bearer realm="orca-account"';

/** The challenge of the operator's routes' 401s. */
export const ADMIN_CHALLENGE = 'Bearer realm="orca-admin"';

/** What a 401 on a route of this kind names as the way in. */
export function challengeFor(auth: AuthKind | undefined): string {
  if (auth === 'session') return SESSION_CHALLENGE;
  if (auth === 'adminToken') return ADMIN_CHALLENGE;
  return auth === 'agentToken' ? AGENT_CHALLENGE : auth === 'appToken' ? APP_CHALLENGE : AUTH_CHALLENGE;
}

export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  return bearerOf(request) ?? queryKeyOf(request);
}

/** The Authorization: Bearer credential, if that header carries one. */
export function bearerOf(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

function queryKeyOf(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.api_key === 'string' && query.api_key !== '' ? query.api_key : undefined;
}

export interface Authenticators {
  identity: Identity;
  agents: Pick<AgentService, 'authenticateToken'>;
  platformApps: Pick<PlatformApps, 'authenticate'>;
  /** People's sessions; absent (a server built with test doubles): session routes refuse everyone. */
  signIn?: Pick<SignIn, 'authenticate'>;
  config?: { adminToken?: string };
}

/** Equality of a presented token and the configured one, in time that depends on neither. */
function sameToken(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

const NEEDS_SESSION =
  'This route takes a sign-in session as Authorization: Bearer (POST /api/login, then POST /api/login/verify), not an API key or access token.';

export function registerAuth(app: FastifyInstance, { identity, agents, platformApps, signIn, config }: Authenticators): void {
  app.decorateRequest('account', '');
  app.decorateRequest('agent', null);
  app.decorateRequest('platformApp', null);
  app.addHook('preHandler', async (request) => {
    const auth = request.routeOptions.config?.auth;
    if (auth === 'apiKey') {
      const credential = credentialOf(request);
      if (credential === undefined) {
        throw new ApiError('UNAUTHENTICATED', 'Send your API key in the X-API-Key header, as Authorization: Bearer, or as the api_key query parameter.');
      }
      const account = await identity.authenticate(credential);
      if (account === null) throw new ApiError('UNAUTHENTICATED', 'The API key or token is unknown, retired or expired.');
      request.account = account;
    } else if (auth === 'agentToken') {
      const token = bearerOf(request);
      if (token === undefined)
        throw new ApiError('UNAUTHENTICATED', "Send the agent's token as Authorization: Bearer (the token orca.register or orca.rotate_token returned).");
      const agent = await agents.authenticateToken(token);
      if (agent === null) {
        throw new ApiError(
          'UNAUTHENTICATED',
          'The agent token is unknown or was rotated away. The mailbox takes an agent token, not an account API key or token.',
        );
      }
      request.agent = agent;
      request.account = agent.account;
    } else if (auth === 'appToken') {
      const token = bearerOf(request);
      if (token === undefined)
        throw new ApiError('UNAUTHENTICATED', "Send the app's token as Authorization: Bearer (the token POST /api/v1/platform/register returned).");
      const platformApp = await platformApps.authenticate(token);
      if (platformApp === null) {
        throw new ApiError(
          'UNAUTHENTICATED',
          'The app token is unknown, rotated away or its app was unregistered. These routes take an app token, not an account API key.',
        );
      }
      request.platformApp = platformApp;
      request.account = platformApp.account;
    } else if (auth === 'session') {
      const token = bearerOf(request);
      if (token === undefined) throw new ApiError('UNAUTHENTICATED', NEEDS_SESSION);
      const kind = kindOf(token);
      if (kind === 'apiKey' || kind === 'accessToken') throw new ApiError('UNAUTHENTICATED', NEEDS_SESSION);
      const account = signIn ? await signIn.authenticate(token) : null;
      if (account === null) throw new ApiError('UNAUTHENTICATED', 'The sign-in session is unknown, ended or expired. Sign in again with POST /api/login.');
      request.account = account;
    } else if (auth === 'adminToken') {
      const expected = config?.adminToken;
      if (expected === undefined)
        throw new ApiError('FORBIDDEN', 'This server has no operator token (ORCA_ADMIN_TOKEN is unset), so its admin routes are closed.');
      const token = bearerOf(request);
      if (token === undefined || !sameToken(token, expected))
        throw new ApiError('UNAUTHENTICATED', "Send the server's operator token (ORCA_ADMIN_TOKEN) as Authorization: Bearer.");
    }
  });
}
