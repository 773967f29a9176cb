// The tables the API writes, not the partition leaders: accounts' e-mail
// addresses, API keys and tokens, signups, the mail outbox, the credit
// ledger, and agents with their sessions, mailbox and platform apps. Part of
// the one schema (schema.ts exports them): changing this file means running
// `npx drizzle-kit generate` and committing the new migration.
import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

// ─── Identity, mail and credits (written by the API) ───────────────────────
// Secrets (API keys, access tokens, signup tokens) are never stored: only
// their sha256, which is also how they are looked up, so finding one is an
// index probe on a hash rather than a comparison an attacker could time.

/** The address an account signed up with; one account per address. */
export const accountEmails = pgTable(
  'account_emails',
  {
    account: text('account').primaryKey(),
    email: text('email').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('account_emails_email_uq').on(t.email)],
);

/** Account API keys. A retired key (rotation) never comes back. */
export const apiKeys = pgTable(
  'api_keys',
  {
    // A random, non-secret id: what access tokens and logs refer to.
    id: text('id').primaryKey(),
    hash: text('hash').notNull(),
    account: text('account').notNull(),
    // The key's first characters, shown in key lists so a person can tell
    // keys apart; too short to guess the rest from. Null for keys made
    // before it was kept.
    prefix: text('prefix'),
    createdAt: instant('created_at').notNull().defaultNow(),
    retiredAt: instant('retired_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.hash), index('api_keys_account_idx').on(t.account)],
);

/** Short-lived bearer tokens minted from a key (POST /api/token); valid only while their key is. */
export const accessTokens = pgTable(
  'access_tokens',
  {
    hash: text('hash').primaryKey(),
    account: text('account').notNull(),
    keyId: text('key_id').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('access_tokens_key_idx').on(t.keyId), index('access_tokens_expires_idx').on(t.expiresAt)],
);

/** Pending e-mail confirmations; `account` is set once confirming created it. */
export const signups = pgTable(
  'signups',
  {
    tokenHash: text('token_hash').primaryKey(),
    email: text('email').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    expiresAt: instant('expires_at').notNull(),
    confirmedAt: instant('confirmed_at'),
    account: text('account'),
  },
  (t) => [index('signups_email_idx').on(t.email)],
);

/** Every message the service sends; without SMTP this table is the mailbox. */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    sentAt: instant('sent_at'),
  },
  (t) => [index('mail_outbox_to_idx').on(t.to, t.id)],
);

/** Append-only credit movements; `amount` is negative for a charge, positive for a refund or grant. */
export const ledger = pgTable(
  'ledger',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    account: text('account').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    reason: text('reason').notNull(),
    reference: text('reference'),
    balanceAfter: bigint('balance_after', { mode: 'number' }).notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  // The account's ledger is read newest first, paged by id.
  (t) => [index('ledger_account_id_idx').on(t.account, t.id)],
);

// ─── Agents, their mailbox and platform apps (written by the API) ──────────
// As above, tokens and session ids are kept only as sha256 hashes and found
// by them. An agent holds one token at a time (its hash is a column of the
// agent), so a rotation that replaces it cannot leave two tokens live.

/** AI agents registered on an account (orca.register); `retiredAt` set when removed. */
export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    account: text('account').notNull(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    rotatedAt: instant('rotated_at'),
    retiredAt: instant('retired_at'),
  },
  (t) => [uniqueIndex('agents_token_hash_uq').on(t.tokenHash), index('agents_account_idx').on(t.account, t.id)],
);

/** Sessions opened with an agent's token (orca.connect); live until `endedAt`. */
export const agentSessions = pgTable(
  'agent_sessions',
  {
    // The sha256 of the session id the agent holds: the id is a credential.
    hash: text('hash').primaryKey(),
    agent: text('agent').notNull(),
    account: text('account').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    endedAt: instant('ended_at'),
  },
  (t) => [index('agent_sessions_agent_idx').on(t.agent)],
);

/** Messages between agents of one account; listed to their recipient until acknowledged. */
export const mailboxMessages = pgTable(
  'mailbox_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    account: text('account').notNull(),
    fromAgent: text('from_agent').notNull(),
    toAgent: text('to_agent').notNull(),
    body: jsonb('body').$type<unknown>().notNull(),
    // The sender's Idempotency-Key and the digest of what it sent under it.
    idempotencyKey: text('idempotency_key'),
    fingerprint: text('fingerprint'),
    createdAt: instant('created_at').notNull().defaultNow(),
    ackedAt: instant('acked_at'),
  },
  (t) => [
    uniqueIndex('mailbox_messages_idempotency_uq').on(t.fromAgent, t.idempotencyKey),
    // The recipient's list: unacknowledged first, each part in id order.
    index('mailbox_messages_inbox_idx').on(t.account, t.toAgent, t.id),
    index('mailbox_messages_unacked_idx')
      .on(t.account, t.toAgent, t.id)
      .where(sql`${t.ackedAt} is null`),
  ],
);

/** Apps registered on an account (POST /api/v1/platform/register); `deletedAt` set when unregistered. */
export const platformApps = pgTable(
  'platform_apps',
  {
    id: text('id').primaryKey(),
    account: text('account').notNull(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    rotatedAt: instant('rotated_at'),
    deletedAt: instant('deleted_at'),
  },
  (t) => [uniqueIndex('platform_apps_token_hash_uq').on(t.tokenHash), index('platform_apps_account_idx').on(t.account, t.id)],
);
