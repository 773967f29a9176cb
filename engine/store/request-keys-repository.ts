// Keyed requests outside the partitions' command log (deploys): the first
// result under an account's key, with the fingerprint of the request that
// produced it. The key is claimed in the transaction that does the work, so
// it is stored exactly when that work committed; a concurrent request under
// the same key waits on the claim and then finds the first one's result
// instead of doing the work again.
import { sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { transaction, type Statement, type Tx } from './statement.ts';
import { assertAccount } from './tenancy.ts';

export type KeyedOutcome<T> =
  /** The work ran now, under this request's claim. */
  | { replayed: false; result: T }
  /** An earlier request under the key committed first: its fingerprint and result. */
  | { replayed: true; fingerprint: string; result: T };

const CLAIM: Statement = {
  name: 'request-keys-claim',
  text: 'insert into request_keys (account, request_key, fingerprint) values ($1, $2, $3) on conflict (account, request_key) do nothing returning 1 as claimed',
};
const EARLIER: Statement = { name: 'request-keys-earlier', text: 'select fingerprint, result from request_keys where account = $1 and request_key = $2' };
const STORE_RESULT: Statement = { name: 'request-keys-result', text: 'update request_keys set result = $3::jsonb where account = $1 and request_key = $2' };

export function requestKeysRepository(db: Db) {
  /**
   * Runs `work` once per (account, key): the first time in a transaction
   * that also stores its result; afterwards the stored result and
   * fingerprint come back without running it. `work` gets the transaction.
   */
  async function once<T>(account: string, key: string, fingerprint: string, work: (tx: Tx) => Promise<T>): Promise<KeyedOutcome<T>> {
    assertAccount(account);
    return transaction(db, async (tx): Promise<KeyedOutcome<T>> => {
      // On a conflict with a claim not yet committed, the insert waits for it: the work never runs twice at once.
      const claimed = await tx.run(CLAIM, [account, key, fingerprint]);
      if (claimed.length === 0) {
        const [earlier] = await tx.run<{ fingerprint: string; result: T }>(EARLIER, [account, key]);
        return { replayed: true, fingerprint: earlier.fingerprint, result: earlier.result };
      }
      const result = await work(tx);
      await tx.run(STORE_RESULT, [account, key, JSON.stringify(result)]);
      return { replayed: false, result };
    });
  }

  /** Forgets results older than `before` (the command log's retention); returns how many. */
  async function prune(before: Date): Promise<number> {
    const [row] = await rows<{ n: number }>(
      db,
      sql`with gone as (delete from request_keys where created_at < ${before.toISOString()}::timestamptz returning 1)
          select count(*)::int as n from gone`,
    );
    return Number(row?.n ?? 0);
  }

  return guarded({ once, prune });
}
