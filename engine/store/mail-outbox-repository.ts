// The mail outbox: every message the service sends is a row. Without SMTP
// the table is the mailbox (the embedded default reads its welcome key from
// here); with SMTP it is the record of what was sent and when.
import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { mailOutbox } from './schema.ts';

export type OutboxMessage = typeof mailOutbox.$inferSelect;

export function mailOutboxRepository(db: Db) {
  async function add(message: { to: string; subject: string; body: string; sentAt?: Date | null }): Promise<number> {
    const [row] = await db
      .insert(mailOutbox)
      .values({ to: message.to, subject: message.subject, body: message.body, sentAt: message.sentAt ?? null })
      .returning({ id: mailOutbox.id });
    return Number(row.id);
  }

  async function markSent(id: number, at: Date): Promise<void> {
    await db.update(mailOutbox).set({ sentAt: at }).where(eq(mailOutbox.id, id));
  }

  /** Newest first; `to` narrows to one address. */
  async function list(options: { to?: string; limit?: number } = {}): Promise<OutboxMessage[]> {
    const conditions: SQL[] = [];
    if (options.to !== undefined) conditions.push(eq(mailOutbox.to, options.to));
    return db
      .select()
      .from(mailOutbox)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(desc(mailOutbox.id))
      .limit(Math.min(Math.max(1, options.limit ?? 100), 1000));
  }

  return guarded({ add, markSent, list });
}
