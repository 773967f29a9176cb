// The shape of every secret the service hands out: 256 random bits,
// base64url, behind a prefix that says what it is (so a leaked string can be
// recognised by secret scanners, and authenticate() needs one lookup, not
// two). Only sha256 hashes are ever stored; lookups go by hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'orca_';
export const ACCESS_TOKEN_PREFIX = 'orcat_';
export const SIGNUP_TOKEN_PREFIX = 'orcas_';
export const AGENT_TOKEN_PREFIX = 'orcaag_';
export const AGENT_SESSION_PREFIX = 'orcaas_';
export const APP_TOKEN_PREFIX = 'orcaap_';
export const ACCOUNT_SESSION_PREFIX = 'orcass_';
export const LOGIN_LINK_PREFIX = 'orcal_';

// 32 bytes → 43 base64url characters.
const BODY = '[A-Za-z0-9_-]{43}';

export type SecretKind = 'apiKey' | 'accessToken' | 'signupToken' | 'agentToken' | 'agentSession' | 'appToken' | 'accountSession' | 'loginLink';

const PREFIXES: Record<SecretKind, string> = {
  apiKey: API_KEY_PREFIX,
  accessToken: ACCESS_TOKEN_PREFIX,
  signupToken: SIGNUP_TOKEN_PREFIX,
  agentToken: AGENT_TOKEN_PREFIX,
  agentSession: AGENT_SESSION_PREFIX,
  appToken: APP_TOKEN_PREFIX,
  accountSession: ACCOUNT_SESSION_PREFIX,
  loginLink: LOGIN_LINK_PREFIX,
};

// No prefix is a prefix of another one's (each ends in '_' and none ends early), so at most one matches.
const SHAPES = Object.entries(PREFIXES).map(([kind, prefix]) => [kind as SecretKind, new RegExp(`^${prefix}${BODY}$`)] as const);

export function newSecret(kind: SecretKind): string {
  return PREFIXES[kind] + randomBytes(32).toString('base64url');
}

/** What a presented credential claims to be; undefined for anything we never issue (no lookup needed). */
export function kindOf(credential: string): SecretKind | undefined {
  for (const [kind, shape] of SHAPES) if (shape.test(credential)) return kind;
  return undefined;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Equality of two hex hashes without an early exit. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What key lists show of a key: its prefix and 7 characters of its 256 random bits, too few to guess the rest from. */
export function keyPrefixOf(apiKey: string): string {
  return apiKey.slice(0, 12);
}

/** A random, non-secret identifier (account ids, key ids). */
export function newId(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}
