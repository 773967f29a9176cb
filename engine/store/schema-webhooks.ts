// The tables of webhooks and of people's sign-in: an account's webhook
// endpoints, the delivery outbox every event is written to (in the same
// transaction as the change it reports; the dispatcher works it off), and
// the one-time login codes and sessions of the account login. Part of the
// one schema (schema.ts exports them): changing this file means running
// `npx drizzle-kit generate` and committing the new migration.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

// ─── Webhooks ───────────────────────────────────────────────────────────────

/** Where an account wants its events sent, and which. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    account: text('account').notNull(),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** Event types the endpoint is subscribed to (webhook-outbox.ts WEBHOOK_EVENT_TYPES). */
    events: jsonb('events').$type<string[]>().notNull(),
    // The signing secret has to be read back to sign, so it cannot be kept
    // as a hash like the credentials are (webhooks/secrets decides its
    // stored form). After a rotation the previous one still signs, beside
    // the new, until it expires: receivers switch without a gap.
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: instant('previous_secret_expires_at'),
    /** 'enabled' or 'disabled'; only enabled endpoints are written deliveries. */
    status: text('status').notNull().default('enabled'),
    disabledReason: text('disabled_reason'),
    /** When the endpoint's current run of failed deliveries began (null: its last attempt succeeded). */
    failingSince: instant('failing_since'),
    /** Null: one event per request; else events go out as JSON arrays (docs/webhooks.md, batched delivery). */
    batching: jsonb('batching').$type<{ maxEvents: number; maxWaitMs: number }>(),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('webhook_endpoints_account_idx').on(t.account, t.id),
    // What every event-writing statement joins on: the account's enabled endpoints.
    index('webhook_endpoints_enabled_idx')
      .on(t.account)
      .where(sql`${t.status} = 'enabled'`),
  ],
);

/**
 * The outbox: one row per (event, endpoint), written with the change the
 * event reports, and the delivery log of that pair (`log`: every attempt).
 * `eventId` is the `webhook-id`: the same for every endpoint and attempt, so
 * receivers can deduplicate, and derived from the object the event is about
 * (webhook-outbox.ts webhookEventId), so a replayed write cannot invent a
 * second delivery (the unique index).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    endpointId: text('endpoint_id').notNull(),
    account: text('account').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    /** What is sent: `{type, timestamp, data}`. */
    payload: jsonb('payload').$type<{ type: string; timestamp: string; data: Record<string, unknown> }>().notNull(),
    /** 'pending', 'delivered' or 'failed' (retries exhausted, or its endpoint was disabled). */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull().defaultNow(),
    /** A dispatcher holds the delivery until then; past it, another may take it (that one crashed). */
    claimedUntil: instant('claimed_until'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /** Every attempt: `{at, statusCode?, durationMs, error?}`, oldest first. */
    log: jsonb('log')
      .$type<{ at: string; statusCode?: number; durationMs: number; error?: string }[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: instant('created_at').notNull().defaultNow(),
    deliveredAt: instant('delivered_at'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_uq').on(t.endpointId, t.eventId),
    // The endpoint's delivery log, newest first by (created_at, id), merged with its batch rows' entries.
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt, t.id),
    // What the dispatcher claims: pending work by when it is due.
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt, t.id)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/**
 * The outbox of the partition leaders' batches: one row per committed batch
 * that had an event some enabled endpoint wants (`events`: the batch's
 * webhook events, as WebhookEvent), written by the batch statement instead
 * of a delivery row per event and endpoint. The leader's own dispatcher
 * takes the events in memory and holds the row (`claimed_until`, set by
 * the statement) while it sends them; once every delivery has succeeded or
 * become a retrying delivery row, it sets `delivered_at` and `outcomes`
 * (`[{e: endpoint, i: event id, c: status code, ms, at}]`) and `endpoints`;
 * each outcome is an entry of that endpoint's delivery log
 * (webhook-batch-log.ts). A row whose
 * hold lapsed undelivered (its dispatcher died) is taken over by any
 * dispatcher: turned into delivery rows and deleted, in one statement.
 */
export const webhookBatches = pgTable(
  'webhook_batches',
  {
    /** The leader's batch key (`<partition>:<epoch>:<seq>`): a batch statement sent again adds nothing. */
    key: text('key').primaryKey(),
    partition: integer('partition').notNull(),
    events: jsonb('events').$type<{ i: string; a: string; ty: string; ts: string; d: Record<string, unknown> }[]>().notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    claimedUntil: instant('claimed_until'),
    deliveredAt: instant('delivered_at'),
    outcomes: jsonb('outcomes').$type<{ e: string; i: string; c: number; ms: number; at: string }[]>(),
    /** The distinct endpoints of `outcomes`, set with them: what the endpoint's delivery log finds the row by. */
    endpoints: text('endpoints').array(),
  },
  (t) => [
    // An endpoint's delivery log: the delivered rows with an outcome of it. Entries
    // per distinct endpoint of a batch, written when the dispatcher marks it
    // delivered, never by the batch statement (the predicate is false then).
    index('webhook_batches_endpoints_idx')
      .using('gin', t.endpoints)
      .where(sql`${t.deliveredAt} is not null`),
    // The same log in time order (an endpoint in most batches pages through this)
    // and the retention's prune, oldest first: one entry per delivered batch.
    index('webhook_batches_delivered_idx')
      .on(t.createdAt)
      .where(sql`${t.deliveredAt} is not null`),
    // What a takeover claims and the backlog counts: undelivered rows, oldest first.
    index('webhook_batches_undelivered_idx')
      .on(t.createdAt)
      .where(sql`${t.deliveredAt} is null`),
  ],
);

// ─── Account sign-in for people ─────────────────────────────────────────────
// As with the other credentials, codes, link tokens and session tokens are
// kept only as sha256 hashes and found by them.

/** One-time sign-in codes sent by e-mail (POST /api/login); usable once, until they expire. */
export const loginCodes = pgTable(
  'login_codes',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    codeHash: text('code_hash').notNull(),
    /** The link in the mail carries its own token; its page consumes the code only on a POST. */
    linkHash: text('link_hash').notNull(),
    /** Wrong codes tried against it; it is spent after a few. */
    attempts: integer('attempts').notNull().default(0),
    createdAt: instant('created_at').notNull().defaultNow(),
    expiresAt: instant('expires_at').notNull(),
    consumedAt: instant('consumed_at'),
  },
  (t) => [
    index('login_codes_email_idx').on(t.email, t.createdAt),
    uniqueIndex('login_codes_link_uq').on(t.linkHash),
    // The periodic prune (login-prune.ts) deletes the expired ones oldest first, a bounded number at a time.
    index('login_codes_expires_idx').on(t.expiresAt),
  ],
);

/** Sign-in sessions of people (dashboard and wallet); live until they expire or `endedAt` (logout). */
export const accountSessions = pgTable(
  'account_sessions',
  {
    hash: text('hash').primaryKey(),
    account: text('account').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    expiresAt: instant('expires_at').notNull(),
    endedAt: instant('ended_at'),
  },
  (t) => [
    index('account_sessions_account_idx').on(t.account),
    // The periodic prune (login-prune.ts) deletes the expired ones oldest first, a bounded number at a time.
    index('account_sessions_expires_idx').on(t.expiresAt),
  ],
);
