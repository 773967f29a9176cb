// The credential a request carries (SPEC.md "Authentication"): the API key
// in X-API-Key, or a bearer token exchanged for it at POST /api/token and
// renewed before it expires. Renewal is single-flight: concurrent requests
// share one exchange. A 401 on a token invalidates it, so the transport can
// renew once and repeat the request (nothing was done on a 401).
import { OrcaError, parseJson } from './errors.ts';
import type { HttpResponse, Sender } from './http.ts';

export type AuthMode = 'apiKey' | 'token' | 'none';

export interface Credentials {
  readonly mode: AuthMode;
  /**
   * Sets the credential header on `headers` (lower-case names): at once when
   * the credential is at hand (an API key, a token not due for renewal),
   * else once a token exchange answers (the promise).
   */
  apply(headers: Record<string, string>): void | Promise<void>;
  /** After a 401: forget the token sent in `headers` so the next apply() renews it. Whether a renewal is possible. */
  invalidate(headers: Record<string, string>): boolean;
}

export interface TokenOptions {
  baseUrl: string;
  apiKey: string;
  send: Sender;
  clock: () => number;
  /** Renew this long before expiry (default: a tenth of the token's life, at most 60 s). */
  renewBeforeMs?: number;
}

export function apiKeyCredentials(apiKey: string | undefined): Credentials {
  return {
    mode: apiKey === undefined ? 'none' : 'apiKey',
    apply(headers) {
      if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    },
    invalidate: () => false,
  };
}

interface Token {
  value: string;
  renewAt: number;
}

export function tokenCredentials(options: TokenOptions): Credentials {
  let current: Token | undefined;
  let exchanging: Promise<Token> | undefined;

  async function exchange(): Promise<Token> {
    const url = `${options.baseUrl}/api/token`;
    let response: HttpResponse;
    try {
      response = await options.send({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ api_key: options.apiKey }),
      });
    } catch (error) {
      throw OrcaError.transport('POST', url, error);
    }
    if (response.status < 200 || response.status > 299) throw OrcaError.fromResponse(response, options.clock());
    const { access_token, expires_in } = (parseJson(response.text) ?? {}) as { access_token?: unknown; expires_in?: unknown };
    if (typeof access_token !== 'string' || typeof expires_in !== 'number') {
      throw new OrcaError({
        status: response.status,
        code: 'BAD_RESPONSE',
        title: 'Unexpected answer',
        detail: 'POST /api/token answered without access_token and expires_in.',
      });
    }
    const lifeMs = expires_in * 1000;
    const early = options.renewBeforeMs ?? Math.min(60_000, lifeMs / 10);
    return { value: access_token, renewAt: options.clock() + lifeMs - early };
  }

  async function token(): Promise<Token> {
    if (current !== undefined && options.clock() < current.renewAt) return current;
    exchanging ??= exchange().finally(() => (exchanging = undefined));
    current = await exchanging;
    return current;
  }

  return {
    mode: 'token',
    apply(headers) {
      // Every request asks: a token at hand is set without a promise.
      if (current !== undefined && options.clock() < current.renewAt) headers.authorization = `Bearer ${current.value}`;
      else return token().then((fresh) => void (headers.authorization = `Bearer ${fresh.value}`));
    },
    invalidate(headers) {
      const sent = headers.authorization?.replace(/^Bearer\s+/i, '');
      if (current !== undefined && current.value === sent) current = undefined;
      return true;
    },
  };
}
