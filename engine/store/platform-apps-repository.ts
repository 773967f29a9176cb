// Apps registered on an account (POST /api/v1/platform/register) and their
// tokens, stored as sha256 hashes and found by an index probe on the hash.
// An app has one token column: rotating replaces it in one statement that
// names the old hash, so of two racing rotations exactly one finds it, and
// unregistering retires the app and its token together.
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { platformApps } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface PlatformAppRow {
  id: string;
  account: string;
  name: string;
  tokenHash: string;
  createdAt: Date;
  rotatedAt: Date | null;
}

const columns = {
  id: platformApps.id,
  account: platformApps.account,
  name: platformApps.name,
  tokenHash: platformApps.tokenHash,
  createdAt: platformApps.createdAt,
  rotatedAt: platformApps.rotatedAt,
};

export function platformAppsRepository(db: Db) {
  async function create(app: { id: string; account: string; name: string; tokenHash: string }): Promise<PlatformAppRow> {
    assertAccount(app.account);
    const [row] = await db.insert(platformApps).values(app).returning(columns);
    return row;
  }

  /** The registered (not deleted) app whose token has this hash. */
  async function findByToken(tokenHash: string): Promise<PlatformAppRow | null> {
    const [row] = await db
      .select(columns)
      .from(platformApps)
      .where(and(eq(platformApps.tokenHash, tokenHash), isNull(platformApps.deletedAt)));
    return row ?? null;
  }

  /** Replaces the live token `oldHash` by `nextHash`; null when `oldHash` is not (or no longer) live. */
  async function rotate(oldHash: string, nextHash: string, now: Date): Promise<PlatformAppRow | null> {
    const [row] = await db
      .update(platformApps)
      .set({ tokenHash: nextHash, rotatedAt: now })
      .where(and(eq(platformApps.tokenHash, oldHash), isNull(platformApps.deletedAt)))
      .returning(columns);
    return row ?? null;
  }

  /** Unregisters the app whose live token is `tokenHash`; null when there is none. */
  async function remove(tokenHash: string, now: Date): Promise<PlatformAppRow | null> {
    const [row] = await db
      .update(platformApps)
      .set({ deletedAt: now })
      .where(and(eq(platformApps.tokenHash, tokenHash), isNull(platformApps.deletedAt)))
      .returning(columns);
    return row ?? null;
  }

  return guarded({ create, findByToken, rotate, remove });
}
