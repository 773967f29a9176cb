// Identity: accounts, their API keys, the 30-minute bearer tokens minted
// from a key, and signup by e-mail confirmation (SPEC.md "Authentication").
// The HTTP layer sees the fixed `Identity` interface (api/context.ts); the
// account routes reach the wider `IdentityService` through
// identityServiceOf(), so a server built with another Identity (a test
// double) simply does not offer signup, token and rotation routes.
import { type Db, identityRepository, type Notices, type Store } from '../../engine/index.ts';
import type { Identity } from '../context.ts';
import { MailUndeliverableError, type Mailer } from '../mail/index.ts';
import { ApiError } from '../problem.ts';
import { AuthCache } from './auth-cache.ts';
import { alreadyRegisteredMessage, confirmationMessage, welcomeMessage } from './messages.ts';
import { hashSecret, keyPrefixOf, kindOf, newId, newSecret, sameHash } from './secrets.ts';

export interface IdentityConfig {
  /** Base URL for links in mail; read at send time (it may be known only after listen). */
  publicUrl: string | (() => string);
  /** Opening balance of a new account (default 1,000). */
  initialCredits?: number;
  /** Life of a bearer token from POST /api/token (default 1800 = 30 minutes, SPEC.md "Limits"). */
  tokenTtlSeconds?: number;
  /** Life of a signup confirmation link (default 24 hours). */
  signupTtlSeconds?: number;
  /** The clock for token and link expiry; tests move it. */
  now?: () => Date;
  /** How long a successful authentication is kept (auth-cache.ts; default 1,000 ms, 0 = never). */
  authCacheMs?: number;
}

export interface IdentityService extends Identity {
  readonly tokenTtlSeconds: number;
  /** Settles once this pod hears other pods' key retirements (at once without notices; never rejects). */
  readonly listening: Promise<void>;
  /** Starts a signup: mails a confirmation link (or, for a known address, a note that changes nothing). */
  signup(email: string): Promise<void>;
  /** Uses a confirmation token: creates the account and mails its API key. Throws ApiError for a bad token. */
  confirmSignup(token: string): Promise<{ email: string; outcome: 'created' | 'exists' }>;
  /** A bearer token for an active API key, or null when the key is unknown or retired. */
  mintToken(apiKey: string): Promise<{ accessToken: string; expiresIn: number } | null>;
  /** Retires the key and every token minted from it, returning its successor; null when it is not an active key. */
  rotateKey(apiKey: string): Promise<{ account: string; newKey: string } | null>;
  /** Retires the account's active key `keyId` (a signed-in person's rotation), returning its successor; null when there is no such key. */
  rotateKeyById(account: string, keyId: string): Promise<{ keyId: string; prefix: string; newKey: string } | null>;
  /** The address the account signed up with. */
  emailOf(account: string): Promise<string | null>;
}

/** A message that could not go out, as the client hears of it: later, or not until the operator sets up mail. */
function mailFailure(error: unknown, transient: string): ApiError {
  if (error instanceof MailUndeliverableError) {
    return new ApiError(
      'UNAVAILABLE',
      'This server has no way to send mail (no SMTP_URL is set), so it cannot deliver a confirmation link or an API key. Ask its operator.',
    );
  }
  return new ApiError('UNAVAILABLE', transient, { retryAfterSeconds: 60 });
}

export interface CreateIdentityOptions {
  /** The store's identity repository; or `db`, to build one. */
  store?: Pick<Store, 'identity'>;
  db?: Db;
  mailer: Mailer;
  config: IdentityConfig;
  /** Where key retirements are announced to, and heard from, the other pods. */
  notices?: Notices;
}

/** The notice topic of a retired key; the message is the key's id. */
const KEY_RETIRED = 'auth-key-retired';

const services = new WeakSet<Identity>();

/** The full service behind an Identity made by createIdentity, else undefined. */
export function identityServiceOf(identity: Identity): IdentityService | undefined {
  return services.has(identity) ? (identity as IdentityService) : undefined;
}

/** Addresses are compared case-insensitively: one account per mailbox. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Longer than anything we issue: not worth hashing.
const MAX_CREDENTIAL_LENGTH = 256;

export function createIdentity(options: CreateIdentityOptions): IdentityService {
  const repo = options.store?.identity ?? (options.db ? identityRepository(options.db) : undefined);
  if (!repo) throw new TypeError('createIdentity needs a store or a db');
  const { mailer, config } = options;
  const now = config.now ?? (() => new Date());
  const publicUrl = () => (typeof config.publicUrl === 'function' ? config.publicUrl() : config.publicUrl).replace(/\/+$/, '');
  const openingBalance = config.initialCredits ?? 1_000;
  const tokenTtlSeconds = config.tokenTtlSeconds ?? 1_800;
  const signupTtlSeconds = config.signupTtlSeconds ?? 24 * 3_600;
  const cache = new AuthCache(config.authCacheMs ?? 1_000);
  // Best effort: until it listens (or if it cannot), the cache's short life is the bound.
  const listening = (options.notices?.subscribe(KEY_RETIRED, (keyId) => cache.revokeKey(keyId)) ?? Promise.resolve()).then(
    () => undefined,
    () => undefined,
  );

  /** Evicts the key here and tells the other pods; the retirement is committed already. */
  async function retired(keyId: string): Promise<void> {
    cache.revokeKey(keyId);
    await options.notices?.publish(KEY_RETIRED, keyId).catch(() => {});
  }

  function newKey() {
    const secret = newSecret('apiKey');
    return { secret, id: newId('key_'), hash: hashSecret(secret), prefix: keyPrefixOf(secret) };
  }

  async function sendWelcome(email: string, apiKey: string): Promise<void> {
    const message = welcomeMessage(apiKey, publicUrl());
    await mailer.send({ to: email, ...message, secrets: [apiKey] });
  }

  const service: IdentityService = {
    tokenTtlSeconds,
    listening,

    async authenticate(credential) {
      if (typeof credential !== 'string' || credential.length > MAX_CREDENTIAL_LENGTH) return null;
      const kind = kindOf(credential);
      if (kind !== 'apiKey' && kind !== 'accessToken') return null;
      const hash = hashSecret(credential);
      const at = now();
      const kept = cache.get(hash, at.getTime());
      if (kept !== undefined) return kept.account;
      const generation = cache.generation();
      if (kind === 'apiKey') {
        const key = await repo.findKey(hash);
        if (!key || !sameHash(key.hash, hash)) return null;
        cache.set(hash, { account: key.account, keyId: key.id }, at.getTime(), generation);
        return key.account;
      }
      const token = await repo.findToken(hash, at);
      if (!token || !sameHash(token.hash, hash)) return null;
      cache.set(hash, { account: token.account, keyId: token.keyId }, at.getTime(), generation, token.expiresAt.getTime());
      return token.account;
    },

    async createAccount(email) {
      const key = newKey();
      const account = newId('acc_');
      const result = await repo.createAccount({
        account,
        email: normaliseEmail(email),
        openingBalance,
        key: { id: key.id, hash: key.hash, prefix: key.prefix },
      });
      if (!result.created) throw new ApiError('CONFLICT', 'An account already exists for this e-mail address.');
      return { account, apiKey: key.secret };
    },

    async signup(rawEmail) {
      const email = normaliseEmail(rawEmail);
      // Same answer to the caller either way; only the mailbox owner learns which.
      if ((await repo.accountOfEmail(email)) !== null) {
        await mailer.send({ to: email, ...alreadyRegisteredMessage(publicUrl()) }).catch(() => {
          throw new ApiError('UNAVAILABLE', 'The confirmation message could not be sent. Try again shortly.', { retryAfterSeconds: 60 });
        });
        return;
      }
      const token = newSecret('signupToken');
      await repo.createSignup({ tokenHash: hashSecret(token), email, expiresAt: new Date(now().getTime() + signupTtlSeconds * 1_000) });
      const link = `${publicUrl()}/api/signup/confirm?token=${encodeURIComponent(token)}`;
      try {
        await mailer.send({ to: email, ...confirmationMessage(link, Math.round(signupTtlSeconds / 3_600)), secrets: [token] });
      } catch (error) {
        // The unsent link simply expires unused.
        throw mailFailure(error, 'The confirmation message could not be sent. Try again shortly.');
      }
    },

    async confirmSignup(token) {
      if (kindOf(token) !== 'signupToken')
        throw new ApiError('NOT_FOUND', 'This confirmation link is not valid. Copy the whole link from the message, or sign up again.');
      const tokenHash = hashSecret(token);
      const key = newKey();
      const result = await repo.confirmSignup(tokenHash, now(), {
        account: newId('acc_'),
        openingBalance,
        key: { id: key.id, hash: key.hash, prefix: key.prefix },
      });
      switch (result.status) {
        case 'unknown':
          throw new ApiError('NOT_FOUND', 'This confirmation link is not valid. Copy the whole link from the message, or sign up again.');
        case 'expired':
          throw new ApiError('NOT_FOUND', 'This confirmation link has expired. Sign up again to get a new one.');
        case 'used':
          throw new ApiError('CONFLICT', 'This confirmation link has already been used; the API key was sent to your address then.');
        case 'exists':
          // Only a courtesy note; the answer says the same.
          await mailer.send({ to: result.email, ...alreadyRegisteredMessage(publicUrl()) }).catch(() => {});
          return { email: result.email, outcome: 'exists' };
        case 'created':
        case 'reissued':
          try {
            await sendWelcome(result.email, key.secret);
          } catch (error) {
            // The key exists only in the message that failed: withdraw it and
            // let the same link be used again once mail works.
            await repo.retireKey(key.id, now());
            await retired(key.id);
            await repo.releaseSignup(tokenHash);
            throw mailFailure(error, 'Your account is ready but the message with its API key could not be sent. Open the same link again shortly.');
          }
          return { email: result.email, outcome: 'created' };
      }
    },

    async mintToken(apiKey) {
      if (typeof apiKey !== 'string' || kindOf(apiKey) !== 'apiKey') return null;
      const hash = hashSecret(apiKey);
      const key = await repo.findKey(hash);
      if (!key || !sameHash(key.hash, hash)) return null;
      const accessToken = newSecret('accessToken');
      await repo.insertToken({
        hash: hashSecret(accessToken),
        account: key.account,
        keyId: key.id,
        expiresAt: new Date(now().getTime() + tokenTtlSeconds * 1_000),
      });
      return { accessToken, expiresIn: tokenTtlSeconds };
    },

    async rotateKey(apiKey) {
      if (typeof apiKey !== 'string' || kindOf(apiKey) !== 'apiKey') return null;
      const next = newKey();
      const rotated = await repo.rotateKey(hashSecret(apiKey), { id: next.id, hash: next.hash, prefix: next.prefix }, now());
      if (!rotated) return null;
      await retired(rotated.retiredKeyId);
      return { account: rotated.account, newKey: next.secret };
    },

    async rotateKeyById(account, keyId) {
      const next = newKey();
      const rotated = await repo.rotateKey({ account, keyId }, { id: next.id, hash: next.hash, prefix: next.prefix }, now());
      if (!rotated) return null;
      await retired(rotated.retiredKeyId);
      return { keyId: next.id, prefix: next.prefix, newKey: next.secret };
    },

    emailOf: (account) => repo.emailOf(account),
  };
  services.add(service);
  return service;
}
