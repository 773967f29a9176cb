// Authentication for the workflow REST API (SPEC.md "Authentication"): the
// account API key (or a short-lived token minted from it) in X-API-Key,
// Authorization: Bearer, or the query parameter api_key. Routes declare
// auth 'apiKey' or 'none'; there is no third way in.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Identity } from '../context.ts';
import { ApiError } from '../problem.ts';

/**
 * The WWW-Authenticate challenge of every 401 (RFC 9110 §11.6.1): the key
 * or a token as a bearer credential (RFC 6750), or the key in X-API-Key.
 */
export const AUTH_CHALLENGE = 'Bearer realm="orca", ApiKey realm="orca", header="X-API-Key"';

export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (typeof query?.api_key === 'string' && query.api_key !== '') return query.api_key;
  return undefined;
}

export function registerAuth(app: FastifyInstance, identity: Identity): void {
  app.decorateRequest('account', '');
  app.addHook('preHandler', async (request) => {
    const auth = request.routeOptions.config?.auth;
    if (auth !== 'apiKey') return;
    const credential = credentialOf(request);
    if (credential === undefined) {
      throw new ApiError('UNAUTHENTICATED', 'Send your API key in the X-API-Key header, as Authorization: Bearer, or as the api_key query parameter.');
    }
    const account = await identity.authenticate(credential);
    if (account === null) throw new ApiError('UNAUTHENTICATED', 'The API key or token is unknown, retired or expired.');
    request.account = account;
  });
}
