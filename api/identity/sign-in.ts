// Passwordless sign-in for people (docs/account.md): POST /api/login mails a
// one-time code and a link; the code (POST /api/login/verify) or the link's
// page (only on its POST: mail scanners open GET links) opens a session, an
// opaque `orcass_…` token sent as Authorization: Bearer on the dashboard,
// wallet and key routes, until it expires or is ended by a logout. Codes,
// link tokens and sessions are stored only as hashes and never logged. The
// caller never learns whether an address has an account: both answers to a
// request are the same and both mail the address (a code, or a note saying
// it has none), and every failed verify is one answer. Requests are limited
// per address and per caller address, verifies per caller address (token
// buckets, the agents' ones: in Redis when there is one); a caller address
// gets four times an e-mail address's budget, since many people may share
// one (NAT).
import { randomInt } from 'node:crypto';
import type { loginRepository } from '../../engine/index.ts';
import { MailUndeliverableError, type Mailer } from '../mail/index.ts';
import type { BucketLimits, TokenBuckets } from '../plugins/rate-limit-buckets.ts';
import { ApiError } from '../problem.ts';
import { normaliseEmail } from './index.ts';
import { loginCodeMessage, loginUnknownMessage } from './messages.ts';
import { hashSecret, kindOf, newId, newSecret, sameHash } from './secrets.ts';

/** Wrong codes a code survives; the next wrong one spends it. */
export const MAX_CODE_ATTEMPTS = 5;
const CODE_DIGITS = 8;
/** How many e-mail addresses' worth of sign-in requests one caller address may make. */
const CALLER_SHARE = 4;
/** Code tries a caller address may make per sign-in mail it may ask for: room for a typo. */
const VERIFIES_PER_MAIL = 2;
// One answer for every failed verify (unknown address, no live code, wrong,
// spent or expired code): telling them apart would tell which addresses
// have an account, and counting down the tries would too.
const CODE_REFUSED = 'The code is wrong, used up or expired. Ask for a new one with POST /api/login.';

export interface SignInConfig {
  publicUrl: () => string;
  sessionTtlSeconds: number;
  codeTtlSeconds: number;
  /** Sign-in mails per e-mail address; a caller address gets four times as many. */
  limits: BucketLimits;
  now?: () => Date;
}

export interface SignInOptions {
  repo: ReturnType<typeof loginRepository>;
  mailer: Mailer;
  buckets: (limits: BucketLimits) => TokenBuckets;
  config: SignInConfig;
}

export interface Session {
  token: string;
  expiresAt: Date;
}

export interface SignIn {
  readonly sessionTtlSeconds: number;
  /** Mails a code and link (or, for an address without an account, a note); RATE_LIMITED past the limits. */
  requestCode(email: string, callerAddress: string | undefined): Promise<void>;
  /** Opens a session for a right code; UNAUTHENTICATED (one answer) for a wrong, spent, expired or absent one; RATE_LIMITED past the caller's limit. */
  verify(email: string, code: string, callerAddress: string | undefined): Promise<Session>;
  /** Whether the link token can still be used (the GET page); uses nothing. */
  linkIsLive(token: string): Promise<boolean>;
  /** Uses the link token once and opens a session. */
  useLink(token: string): Promise<Session>;
  /** The account of a live session token, else null. */
  authenticate(token: string): Promise<string | null>;
  /** Ends the session; whether it was live. */
  logout(token: string): Promise<boolean>;
  close(): Promise<void>;
}

// A code is tried only against its own address's newest code, so the hash
// is keyed by the address: equal codes of two addresses hash apart.
const codeHash = (email: string, code: string) => hashSecret(`${email}\n${code}`);

export function createSignIn({ repo, mailer, buckets: open, config }: SignInOptions): SignIn {
  const now = config.now ?? (() => new Date());
  const byEmail = open(config.limits);
  const callerShare = (share: number): BucketLimits => ({ burst: config.limits.burst * share, perSecond: config.limits.perSecond * share });
  const byCaller = open(callerShare(CALLER_SHARE));
  // Verifies are limited per caller address only. An address's guesses are
  // already bounded by its codes (each spent after MAX_CODE_ATTEMPTS wrong
  // tries, and mailed within byEmail's budget), so a per-address limit would
  // add no safety, only a budget a stranger could spend to lock its owner out.
  const verifiesByCaller = open(callerShare(CALLER_SHARE * VERIFIES_PER_MAIL));

  async function limit(buckets: TokenBuckets, key: string, what: string): Promise<void> {
    let take;
    try {
      take = await buckets.take(key);
    } catch {
      // The limiter protects the service and is not a dependency of it.
      return;
    }
    if (take.allowed) return;
    const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
    throw new ApiError('RATE_LIMITED', `Too many ${what}; retry in ${seconds} s.`, { retryAfterSeconds: seconds });
  }

  async function openSession(email: string): Promise<Session> {
    const account = await repo.accountOfEmail(email);
    // Codes are only issued to addresses with an account; one deleted since is no longer one.
    if (account === null) throw new ApiError('UNAUTHENTICATED', CODE_REFUSED);
    const token = newSecret('accountSession');
    const at = now();
    const expiresAt = new Date(at.getTime() + config.sessionTtlSeconds * 1_000);
    await repo.createSession({ hash: hashSecret(token), account, now: at, expiresAt });
    return { token, expiresAt };
  }

  return {
    sessionTtlSeconds: config.sessionTtlSeconds,

    async requestCode(rawEmail, callerAddress) {
      const email = normaliseEmail(rawEmail);
      await limit(byEmail, `login:email:${email}`, 'sign-in requests for this e-mail address');
      if (callerAddress !== undefined) await limit(byCaller, `login:address:${callerAddress}`, 'sign-in requests for this caller address');
      const publicUrl = config.publicUrl().replace(/\/+$/, '');
      const sendFailed = (error: unknown) =>
        error instanceof MailUndeliverableError
          ? new ApiError('UNAVAILABLE', 'This server has no way to send mail (no SMTP_URL is set), so it cannot send a sign-in code. Ask its operator.')
          : new ApiError('UNAVAILABLE', 'The sign-in message could not be sent. Try again shortly.', { retryAfterSeconds: 60 });
      if ((await repo.accountOfEmail(email)) === null) {
        // Mailed like a code, and answered like one, so the caller cannot tell the difference.
        await mailer.send({ to: email, ...loginUnknownMessage(publicUrl) }).catch((error: unknown) => {
          throw sendFailed(error);
        });
        return;
      }
      const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
      const link = newSecret('loginLink');
      const at = now();
      await repo.createCode({
        id: newId('lc_'),
        email,
        codeHash: codeHash(email, code),
        linkHash: hashSecret(link),
        now: at,
        expiresAt: new Date(at.getTime() + config.codeTtlSeconds * 1_000),
      });
      const url = `${publicUrl}/api/login/link?token=${encodeURIComponent(link)}`;
      try {
        await mailer.send({ to: email, ...loginCodeMessage(code, url, Math.round(config.codeTtlSeconds / 60)), secrets: [code, link] });
      } catch (error) {
        // The unsent code simply expires unused.
        throw sendFailed(error);
      }
    },

    async verify(rawEmail, code, callerAddress) {
      const email = normaliseEmail(rawEmail);
      // Before the lookup, so a refused try costs the code nothing.
      if (callerAddress !== undefined) await limit(verifiesByCaller, `login-verify:address:${callerAddress}`, 'sign-in codes tried from this caller address');
      const result = await repo.useCode(email, codeHash(email, code.trim()), now(), MAX_CODE_ATTEMPTS);
      if (result.status === 'ok') return openSession(email);
      throw new ApiError('UNAUTHENTICATED', CODE_REFUSED);
    },

    async linkIsLive(token) {
      return kindOf(token) === 'loginLink' && repo.linkIsLive(hashSecret(token), now());
    },

    async useLink(token) {
      const used = kindOf(token) === 'loginLink' ? await repo.useLink(hashSecret(token), now()) : null;
      if (!used) throw new ApiError('NOT_FOUND', 'This sign-in link is used up or expired. Ask for a new one with POST /api/login.');
      return openSession(used.email);
    },

    async authenticate(token) {
      if (kindOf(token) !== 'accountSession') return null;
      const hash = hashSecret(token);
      const session = await repo.findSession(hash, now());
      return session && sameHash(session.hash, hash) ? session.account : null;
    },

    async logout(token) {
      if (kindOf(token) !== 'accountSession') return false;
      return repo.endSession(hashSecret(token), now());
    },

    close: async () => {
      await Promise.all([byEmail.close(), byCaller.close(), verifiesByCaller.close()]);
    },
  };
}
