// Reads of the messages buffered on a partition (extension, schema.ts
// buffered_messages), for its leader's recovery, in the order they were
// published. Expired rows come too: the leader's next batch deletes them
// (its expiry heap pops them at once), so a batch that failed after popping
// leaves none behind. Rows that expired at the epoch are not messages but
// the outbox rows of thrown signals (partition/leader/signals.ts). Written
// only through commit-batch.ts.
import { asc, eq } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { bufferedMessages } from './schema.ts';

export type BufferedMessageRecord = typeof bufferedMessages.$inferSelect;

export function messagesRepository(db: Db) {
  /** The messages buffered on `partition`, expired or not (bounded per account by LIMITS); served by the (partition, expires_at) index. */
  async function loadBufferedMessages(partition: number): Promise<BufferedMessageRecord[]> {
    return db
      .select()
      .from(bufferedMessages)
      .where(eq(bufferedMessages.partition, partition))
      .orderBy(asc(bufferedMessages.createdAt), asc(bufferedMessages.key));
  }

  return guarded({ loadBufferedMessages });
}
