// Reads of the messages buffered on a partition (extension, schema.ts
// buffered_messages), for its leader's recovery, in the order they were
// published. Expired rows come too: the leader's next batch deletes them
// (its expiry heap pops them at once), so a batch that failed after popping
// leaves none behind. Rows that expired at the epoch are not messages but
// the outbox rows of thrown signals (partition/leader/signals.ts). Written
// only through commit-batch.ts — except the claims of Zeebe's message
// cardinality (message_correlations), which a leader makes before it
// applies a correlation, each in a statement of its own.
import { asc, eq, sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { runStatement, type Statement } from './statement.ts';
import { guarded } from './errors.ts';
import { bufferedMessages } from './schema.ts';

/** A claim on a message for an instance of a process (message_correlations). */
export interface CorrelationClaim {
  messageKey: string;
  bpmnProcessId: string;
  instanceKey: string;
  partition: number;
  /** When the claim may be pruned (epoch ms). */
  expiresAt: number;
}

/** Who holds a (message, process) pair. */
export interface CorrelationHolder {
  messageKey: string;
  bpmnProcessId: string;
  instanceKey: string;
}

export type BufferedMessageRecord = typeof bufferedMessages.$inferSelect;

// Claims each (message, process) pair for the first instance named for it
// ($1: [{o, m, b, i, p, e}], o the order of preference), unless it is held;
// then every pair's holder as the statement saw it. Its commit does not wait
// for the WAL flush (synchronous_commit off for it alone): a claim matters
// only with what was done because of it — a correlation, or a refusal —
// which a later batch commits, and that commit's flush takes the claim's
// WAL record, written before it, along. Prepared once per connection.
const CLAIM: Statement = {
  name: 'orca_claim_message_correlations',
  text: `with firsts as (
  select distinct on (x.m, x.b) x.m, x.b, x.i, x.p, x.e
  from jsonb_to_recordset($1::jsonb) as x(o int, m int8, b text, i int8, p int, e timestamptz)
  order by x.m, x.b, x.o
), claimed as (
  insert into message_correlations (message_key, bpmn_process_id, instance_key, partition, expires_at)
  select m, b, i, p, e from firsts, (select set_config('synchronous_commit', 'off', true)) as no_flush_wait
  on conflict (message_key, bpmn_process_id) do nothing
  returning message_key, bpmn_process_id, instance_key
)
select message_key::text as "messageKey", bpmn_process_id as "bpmnProcessId", instance_key::text as "instanceKey" from claimed
union all
select c.message_key::text, c.bpmn_process_id, c.instance_key::text
from message_correlations c join firsts f on c.message_key = f.m and c.bpmn_process_id = f.b`,
};

export function messagesRepository(db: Db) {
  /** The messages buffered on `partition`, expired or not (bounded per account by LIMITS); served by the (partition, expires_at) index. */
  async function loadBufferedMessages(partition: number): Promise<BufferedMessageRecord[]> {
    return db
      .select()
      .from(bufferedMessages)
      .where(eq(bufferedMessages.partition, partition))
      .orderBy(asc(bufferedMessages.createdAt), asc(bufferedMessages.key));
  }

  /**
   * Claims each (message, process) pair of `wanted` for the first instance
   * `wanted` names for it, unless it is held; returns the holder of each
   * pair as this statement saw it. A pair another statement is claiming at
   * the same moment is waited for and then left out (refused).
   */
  async function claimCorrelations(wanted: readonly CorrelationClaim[]): Promise<CorrelationHolder[]> {
    if (wanted.length === 0) return [];
    const json = JSON.stringify(
      wanted.map((w, o) => ({ o, m: w.messageKey, b: w.bpmnProcessId, i: w.instanceKey, p: w.partition, e: new Date(w.expiresAt).toISOString() })),
    );
    return runStatement<CorrelationHolder>(db, CLAIM, [json]);
  }

  /** Deletes up to `limit` claims of `partition` that expired before `now`; how many. */
  async function pruneCorrelations(partition: number, now: number, limit: number): Promise<number> {
    const gone = await rows<{ n: number }>(
      db,
      sql`with gone as (
  delete from message_correlations where ctid = any (array(
    select ctid from message_correlations where partition = ${partition} and expires_at < ${new Date(now).toISOString()}::timestamptz limit ${limit}))
  returning 1
) select count(*)::int as n from gone`,
    );
    return gone[0]?.n ?? 0;
  }

  return guarded({ loadBufferedMessages, claimCorrelations, pruneCorrelations });
}
