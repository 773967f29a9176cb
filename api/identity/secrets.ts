// The shape of every secret the service hands out: 256 random bits,
// base64url, behind a prefix that says what it is (so a leaked string can be
// recognised by secret scanners, and authenticate() needs one lookup, not
// two). Only sha256 hashes are ever stored; lookups go by hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'orca_';
export const ACCESS_TOKEN_PREFIX = 'orcat_';
export const SIGNUP_TOKEN_PREFIX = 'orcas_';

// 32 bytes → 43 base64url characters.
const BODY = '[A-Za-z0-9_-]{43}';
const API_KEY = new RegExp(`^${API_KEY_PREFIX}${BODY}$`);
const ACCESS_TOKEN = new RegExp(`^${ACCESS_TOKEN_PREFIX}${BODY}$`);
const SIGNUP_TOKEN = new RegExp(`^${SIGNUP_TOKEN_PREFIX}${BODY}$`);

export type SecretKind = 'apiKey' | 'accessToken' | 'signupToken';

export function newSecret(kind: SecretKind): string {
  const prefix = kind === 'apiKey' ? API_KEY_PREFIX : kind === 'accessToken' ? ACCESS_TOKEN_PREFIX : SIGNUP_TOKEN_PREFIX;
  return prefix + randomBytes(32).toString('base64url');
}

/** What a presented credential claims to be; undefined for anything we never issue (no lookup needed). */
export function kindOf(credential: string): SecretKind | undefined {
  if (API_KEY.test(credential)) return 'apiKey';
  if (ACCESS_TOKEN.test(credential)) return 'accessToken';
  if (SIGNUP_TOKEN.test(credential)) return 'signupToken';
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

/** A random, non-secret identifier (account ids, key ids). */
export function newId(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}
