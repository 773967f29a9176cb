// Platform apps (issue #18): an account registers an app with its API key
// (POST /api/v1/platform/register) and gets the app's token once; with that
// token the app reads its registration, rotates its token and unregisters,
// and does nothing else (the auth plugin admits it only on those routes).
// Tokens are made and hashed as identity's secrets are. Lookups are kept
// briefly as identity keeps keys (auth-cache.ts); a rotation or an
// unregistration is announced on the notices, so every pod drops the old
// token at once.
import { type Db, type Notices, type PlatformAppRow, platformAppsRepository, type Store } from '../../engine/index.ts';
import { nameProblem } from '../agents/index.ts';
import { AuthCache } from '../identity/auth-cache.ts';
import { hashSecret, kindOf, newId, newSecret, sameHash } from '../identity/secrets.ts';
import { ApiError } from '../problem.ts';

export interface PlatformApp {
  appId: string;
  account: string;
  name: string;
  createdAt: string;
  rotatedAt: string | null;
}

export interface PlatformApps {
  /** Registers an app on the account; its token is returned here only. INVALID_INPUT for a bad name. */
  register(account: string, name: string): Promise<PlatformApp & { token: string }>;
  /** The app behind a live app token, or null (any other credential included). For the auth hook: kept briefly. */
  authenticate(token: string): Promise<{ appId: string; account: string } | null>;
  /** The registration of the app whose live token this is, read afresh. UNAUTHENTICATED when it is not live. */
  describe(token: string): Promise<PlatformApp>;
  /** A new token for the app whose live token this is (returned once); the old one stops working at once. UNAUTHENTICATED when it is not live. */
  rotate(token: string): Promise<PlatformApp & { token: string }>;
  /** Unregisters the app; its token stops working at once. UNAUTHENTICATED when it is not live. */
  unregister(token: string): Promise<void>;
  /** Settles once this pod hears other pods' retirements (never rejects). */
  readonly listening: Promise<void>;
  close(): void;
}

export interface CreatePlatformAppsOptions {
  store?: Pick<Store, 'platformApps'>;
  db?: Db;
  notices?: Notices;
  /** How long a successful token lookup is kept (default 1,000 ms, as identity's; 0 = never). */
  authCacheMs?: number;
  now?: () => Date;
}

/** The notice topic of a retired app token; the message is the app's id. */
const APP_TOKEN_RETIRED = 'platform-app-token-retired';

function view(row: PlatformAppRow): PlatformApp {
  return { appId: row.id, account: row.account, name: row.name, createdAt: row.createdAt.toISOString(), rotatedAt: row.rotatedAt?.toISOString() ?? null };
}

const notLive = () => new ApiError('UNAUTHENTICATED', 'The app token is unknown, rotated away or its app was unregistered.');

export function createPlatformApps(options: CreatePlatformAppsOptions): PlatformApps {
  const repo = options.store?.platformApps ?? (options.db ? platformAppsRepository(options.db) : undefined);
  if (!repo) throw new TypeError('createPlatformApps needs a store or a db');
  const now = options.now ?? (() => new Date());
  // Token hash → app; `keyId` is the app's id, what a retirement evicts by.
  const cache = new AuthCache(options.authCacheMs ?? 1_000);
  let unsubscribe: (() => void) | undefined;
  const listening = (options.notices?.subscribe(APP_TOKEN_RETIRED, (appId) => cache.revokeKey(appId)) ?? Promise.resolve(undefined)).then(
    (stop) => void (unsubscribe = stop),
    () => undefined,
  );

  async function retired(appId: string): Promise<void> {
    cache.revokeKey(appId);
    await options.notices?.publish(APP_TOKEN_RETIRED, appId).catch(() => {});
  }

  return {
    listening,

    async register(account, name) {
      const problem = nameProblem(name);
      if (problem !== undefined) throw new ApiError('INVALID_INPUT', `The app name ${problem}.`, { errors: [{ field: 'body.name', message: problem }] });
      const token = newSecret('appToken');
      const row = await repo.create({ id: newId('app_'), account, name: name.trim(), tokenHash: hashSecret(token) });
      return { ...view(row), token };
    },

    async authenticate(token) {
      if (typeof token !== 'string' || kindOf(token) !== 'appToken') return null;
      const hash = hashSecret(token);
      const at = now().getTime();
      const hit = cache.get(hash, at);
      if (hit !== undefined) return { appId: hit.keyId, account: hit.account };
      const generation = cache.generation();
      const row = await repo.findByToken(hash);
      if (!row || !sameHash(row.tokenHash, hash)) return null;
      cache.set(hash, { account: row.account, keyId: row.id }, at, generation);
      return { appId: row.id, account: row.account };
    },

    async describe(token) {
      if (typeof token !== 'string' || kindOf(token) !== 'appToken') throw notLive();
      const row = await repo.findByToken(hashSecret(token));
      if (!row) throw notLive();
      return view(row);
    },

    async rotate(token) {
      if (typeof token !== 'string' || kindOf(token) !== 'appToken') throw notLive();
      const next = newSecret('appToken');
      const row = await repo.rotate(hashSecret(token), hashSecret(next), now());
      if (!row) throw notLive();
      await retired(row.id);
      return { ...view(row), token: next };
    },

    async unregister(token) {
      if (typeof token !== 'string' || kindOf(token) !== 'appToken') throw notLive();
      const row = await repo.remove(hashSecret(token), now());
      if (!row) throw notLive();
      await retired(row.id);
    },

    close() {
      unsubscribe?.();
    },
  };
}
