// Partition leases with fencing epochs (DESIGN §1: one leader per partition,
// "a commit whose epoch is stale fails"). Taking a lease bumps the epoch;
// commit-batch.ts refuses any batch carrying an older one. All times come
// from the database clock, so pods with skewed clocks still agree on expiry.
import { sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { partitions } from './schema.ts';

export interface Lease {
  epoch: number;
  expiresAt: Date;
}

export interface LeaseInfo {
  partition: number;
  leader: string | null;
  epoch: number;
  expiresAt: Date | null;
  /** By the database clock, at the time of the query. */
  expired: boolean;
}

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError('lease ttlMs must be a positive number');
}

const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

export function leasesRepository(db: Db) {
  /**
   * Takes the partition when it is free, its lease has expired, or `owner`
   * already holds it (a restarted pod with the same identity must fence its
   * previous incarnation); the epoch goes up each time. Null when someone
   * else holds a live lease.
   */
  async function acquireLease(partition: number, owner: string, ttlMs: number): Promise<Lease | null> {
    checkTtl(ttlMs);
    const [row] = await rows<{ epoch: unknown; expires_at: unknown }>(
      db,
      sql`insert into ${partitions} as p ("id", "leader", "epoch", "lease_expires_at")
          values (${partition}::int, ${owner}::text, 1, now() + ${ttlMs}::float8 * interval '1 millisecond')
          on conflict ("id") do update
            set "leader" = excluded."leader",
                "epoch" = p."epoch" + 1,
                "lease_expires_at" = excluded."lease_expires_at"
            where p."leader" is null or p."lease_expires_at" is null
               or p."lease_expires_at" <= now() or p."leader" = excluded."leader"
          returning p."epoch" as epoch, p."lease_expires_at" as expires_at`,
    );
    return row ? { epoch: Number(row.epoch), expiresAt: toDate(row.expires_at) } : null;
  }

  /**
   * Extends the lease if `owner` still holds `epoch`. It may have lapsed:
   * as long as nobody took the partition meanwhile, nothing was lost.
   */
  async function renewLease(partition: number, owner: string, epoch: number, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const updated = await rows<{ id: number }>(
      db,
      sql`update ${partitions}
          set "lease_expires_at" = now() + ${ttlMs}::float8 * interval '1 millisecond'
          where "id" = ${partition}::int and "leader" = ${owner}::text and "epoch" = ${epoch}::int8
          returning "id"`,
    );
    return updated.length === 1;
  }

  /** Gives the partition up at once (graceful shutdown). The epoch stays, so the next leader's is higher. */
  async function releaseLease(partition: number, owner: string, epoch: number): Promise<boolean> {
    const updated = await rows<{ id: number }>(
      db,
      sql`update ${partitions}
          set "leader" = null, "lease_expires_at" = null
          where "id" = ${partition}::int and "leader" = ${owner}::text and "epoch" = ${epoch}::int8
          returning "id"`,
    );
    return updated.length === 1;
  }

  async function listLeases(): Promise<LeaseInfo[]> {
    const found = await rows<{ id: number; leader: string | null; epoch: unknown; expires_at: unknown; expired: boolean }>(
      db,
      sql`select "id", "leader", "epoch", "lease_expires_at" as expires_at,
                 ("lease_expires_at" is null or "lease_expires_at" <= now()) as expired
          from ${partitions} order by "id"`,
    );
    return found.map((r) => ({
      partition: Number(r.id),
      leader: r.leader,
      epoch: Number(r.epoch),
      expiresAt: r.expires_at === null ? null : toDate(r.expires_at),
      expired: r.expired,
    }));
  }

  return guarded({ acquireLease, renewLease, releaseLease, listLeases });
}
