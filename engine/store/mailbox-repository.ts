// The agent mailbox's rows (issue #18): messages between the agents of one
// account. Every read and write names the account and the agent it is for,
// so one agent never reaches another's messages. A recipient lists its
// unacknowledged messages first, then the acknowledged ones, each part in
// the order they were sent; a cursor is the part and the last id.
import { and, asc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor, isKey, type Page, type PageRequest, clampLimit } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { mailboxMessages } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface MailboxRow {
  id: string;
  account: string;
  from: string;
  to: string;
  body: unknown;
  fingerprint: string | null;
  createdAt: Date;
  ackedAt: Date | null;
}

export interface NewMailboxMessage {
  account: string;
  from: string;
  to: string;
  body: unknown;
  idempotencyKey?: string;
  fingerprint?: string;
}

const columns = {
  id: mailboxMessages.id,
  account: mailboxMessages.account,
  from: mailboxMessages.fromAgent,
  to: mailboxMessages.toAgent,
  body: mailboxMessages.body,
  fingerprint: mailboxMessages.fingerprint,
  createdAt: mailboxMessages.createdAt,
  ackedAt: mailboxMessages.ackedAt,
};

type Selected = Omit<MailboxRow, 'id'> & { id: number | string };
const toRow = (row: Selected): MailboxRow => ({ ...row, id: String(row.id) });

const POSITION = /^[ua]:(0|[1-9][0-9]{0,18})$/;

export function mailboxRepository(db: Db) {
  /**
   * Stores a message; with an idempotency key already used by the same
   * sender, stores nothing and returns the first message (`created` false)
   * for the caller to compare fingerprints.
   */
  async function insert(message: NewMailboxMessage): Promise<{ created: boolean; row: MailboxRow }> {
    assertAccount(message.account);
    const values = {
      account: message.account,
      fromAgent: message.from,
      toAgent: message.to,
      // As JSON text: drizzle would send a JS null as SQL NULL, not as the JSON value null.
      body: sql`${JSON.stringify(message.body)}::jsonb`,
      idempotencyKey: message.idempotencyKey ?? null,
      fingerprint: message.fingerprint ?? null,
    };
    const [inserted] = await db
      .insert(mailboxMessages)
      .values(values)
      .onConflictDoNothing({ target: [mailboxMessages.fromAgent, mailboxMessages.idempotencyKey] })
      .returning(columns);
    if (inserted) return { created: true, row: toRow(inserted) };
    const [first] = await db
      .select(columns)
      .from(mailboxMessages)
      .where(and(eq(mailboxMessages.fromAgent, message.from), eq(mailboxMessages.idempotencyKey, message.idempotencyKey!)));
    return { created: false, row: toRow(first) };
  }

  /** The recipient's messages: unacknowledged first, then acknowledged, each in sending order. */
  async function list(account: string, to: string, page: PageRequest): Promise<Page<MailboxRow>> {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const position = page.cursor ? decodeCursor(page.cursor, (p) => POSITION.test(p)) : 'u:0';
    const [part, after] = [position[0] as 'u' | 'a', Number(position.slice(2))];
    const mine = and(eq(mailboxMessages.account, account), eq(mailboxMessages.toAgent, to));
    const fetched: { part: 'u' | 'a'; row: MailboxRow }[] = [];
    if (part === 'u') {
      const unacked = await db
        .select(columns)
        .from(mailboxMessages)
        .where(and(mine, isNull(mailboxMessages.ackedAt), gt(mailboxMessages.id, after)))
        .orderBy(asc(mailboxMessages.id))
        .limit(limit + 1);
      for (const row of unacked) fetched.push({ part: 'u', row: toRow(row) });
    }
    if (fetched.length <= limit) {
      const acked = await db
        .select(columns)
        .from(mailboxMessages)
        .where(and(mine, isNotNull(mailboxMessages.ackedAt), gt(mailboxMessages.id, part === 'a' ? after : 0)))
        .orderBy(asc(mailboxMessages.id))
        .limit(limit + 1 - fetched.length);
      for (const row of acked) fetched.push({ part: 'a', row: toRow(row) });
    }
    const more = fetched.length > limit;
    const items = more ? fetched.slice(0, limit) : fetched;
    const last = items[items.length - 1];
    return { items: items.map((item) => item.row), nextCursor: more ? encodeCursor(`${last.part}:${last.row.id}`) : null };
  }

  /** Marks the recipient's message acknowledged (once: a second ack keeps the first instant); null when it is not theirs. */
  async function ack(account: string, to: string, id: string, now: Date): Promise<MailboxRow | null> {
    assertAccount(account);
    if (!isKey(id)) return null;
    const target = and(eq(mailboxMessages.account, account), eq(mailboxMessages.toAgent, to), eq(mailboxMessages.id, Number(id)));
    const [acked] = await db
      .update(mailboxMessages)
      .set({ ackedAt: now })
      .where(and(target, isNull(mailboxMessages.ackedAt)))
      .returning(columns);
    if (acked) return toRow(acked);
    const [row] = await db.select(columns).from(mailboxMessages).where(target);
    return row ? toRow(row) : null;
  }

  return guarded({ insert, list, ack });
}
