// An account's webhook endpoints and their delivery log as the API reads and
// changes them (issue #19): create under a per-account cap, list, get,
// update, disable and enable, delete, rotate the signing secret, write a
// test event to one endpoint, list an endpoint's deliveries newest first (its
// delivery rows merged with its batch rows' entries, webhook-batch-log.ts)
// and send one again. Every query names the account; an endpoint of another
// account is not found. Secrets arrive and leave in their stored (sealed)
// form: sealing is the API's business (api/webhooks/signing-secret.ts).
// An endpoint's batching arrives complete (defaults filled, limits checked
// by api/webhooks/endpoints.ts) and is stored as it is.
import { and, asc, desc, eq, gt, lt, or, isNull, sql, type SQL } from 'drizzle-orm';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { webhookDeliveries, webhookEndpoints } from './schema.ts';
import { assertAccount } from './tenancy.ts';
import {
  batchEntryToDelivery,
  comparePositions,
  decodePosition,
  deliveryRowOf,
  encodePosition,
  getBatchEntry,
  isBatchDeliveryId,
  listBatchEntries,
  pruneDeliveryLog,
  type LoggedDelivery,
} from './webhook-batch-log.ts';
import type { WebhookEvent } from './webhook-outbox.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** How an endpoint's events are grouped into requests; null: one event per request. */
export type WebhookEndpointBatching = WebhookEndpointRow['batching'];

export type WebhookDeliveryRow = Omit<typeof webhookDeliveries.$inferSelect, 'id' | 'account' | 'claimedUntil'> & { id: string };

export interface NewWebhookEndpoint {
  id: string;
  account: string;
  url: string;
  description: string;
  events: string[];
  /** The stored (sealed) form. */
  secret: string;
  /** Absent or null: one event per request. */
  batching?: WebhookEndpointBatching;
}

export interface WebhookEndpointChange {
  url?: string;
  events?: string[];
  description?: string;
  /** Null turns batching off; absent leaves it as it is. */
  batching?: WebhookEndpointBatching;
}

/** What a redelivery found: the delivery made due again, none such, or one a dispatcher is sending right now. */
export type RedeliverOutcome = { status: 'pending'; delivery: WebhookDeliveryRow } | { status: 'not-found' } | { status: 'in-flight' };

const deliveryColumns = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  eventId: webhookDeliveries.eventId,
  type: webhookDeliveries.type,
  payload: webhookDeliveries.payload,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastError: webhookDeliveries.lastError,
  log: webhookDeliveries.log,
  createdAt: webhookDeliveries.createdAt,
  deliveredAt: webhookDeliveries.deliveredAt,
};

const toDelivery = ({ id, ...rest }: Omit<WebhookDeliveryRow, 'id'> & { id: number }): WebhookDeliveryRow => ({ id: String(id), ...rest });

/** Why deliveries still pending when their endpoint is disabled are given up. */
export const DISABLED_DELIVERY_ERROR = 'endpoint disabled';

export function webhooksRepository(db: Db) {
  const mine = (account: string, id: string) => and(eq(webhookEndpoints.account, account), eq(webhookEndpoints.id, id));

  /**
   * Stores a new endpoint unless the account already has `cap` of them
   * (null then). One statement: the count and the insert see the same rows.
   */
  async function createEndpoint(endpoint: NewWebhookEndpoint, cap: number): Promise<WebhookEndpointRow | null> {
    assertAccount(endpoint.account);
    const inserted = await db.execute(sql`
      insert into ${webhookEndpoints} (id, account, url, description, events, secret, batching)
      select ${endpoint.id}, ${endpoint.account}, ${endpoint.url}, ${endpoint.description}, ${JSON.stringify(endpoint.events)}::jsonb, ${endpoint.secret},
             ${endpoint.batching ? JSON.stringify(endpoint.batching) : null}::jsonb
      where (select count(*) from ${webhookEndpoints} where account = ${endpoint.account}) < ${cap}
      returning id`);
    if ((inserted as unknown as { rows: unknown[] }).rows.length === 0) return null;
    return getEndpoint(endpoint.account, endpoint.id);
  }

  /** The account's endpoints, oldest first, paged by id. */
  async function listEndpoints(account: string, page: PageRequest = {}): Promise<Page<WebhookEndpointRow>> {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const after = page.cursor ? decodeCursor(page.cursor, (p) => /^ep_[0-9a-f]{24}$/.test(p)) : undefined;
    const fetched = await db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.account, account), after === undefined ? undefined : gt(webhookEndpoints.id, after)))
      .orderBy(asc(webhookEndpoints.id))
      .limit(limit + 1);
    return toPage(
      fetched,
      limit,
      (row) => row.id,
      (row) => row,
    );
  }

  async function getEndpoint(account: string, id: string): Promise<WebhookEndpointRow | null> {
    assertAccount(account);
    const [row] = await db.select().from(webhookEndpoints).where(mine(account, id));
    return row ?? null;
  }

  /** Changes the given fields (undefined ones are left alone); null when the account has no such endpoint. */
  async function updateEndpoint(account: string, id: string, change: WebhookEndpointChange): Promise<WebhookEndpointRow | null> {
    assertAccount(account);
    const [row] = await db
      .update(webhookEndpoints)
      .set({ ...change, updatedAt: sql`now()` })
      .where(mine(account, id))
      .returning();
    return row ?? null;
  }

  /**
   * Disables the endpoint with `reason`; what was still pending for it is
   * given up (failed), as when a receiver answers 410, so nothing is sent to
   * an endpoint its owner turned off. Disabling a disabled one keeps its
   * first reason. Null when the account has no such endpoint.
   */
  async function disableEndpoint(account: string, id: string, reason: string): Promise<WebhookEndpointRow | null> {
    assertAccount(account);
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set({ status: 'disabled', disabledReason: sql`coalesce(${webhookEndpoints.disabledReason}, ${reason})`, updatedAt: sql`now()` })
        .where(mine(account, id))
        .returning();
      if (!row) return null;
      await tx
        .update(webhookDeliveries)
        .set({ status: 'failed', lastError: DISABLED_DELIVERY_ERROR, claimedUntil: null })
        .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.status, 'pending')));
      return row;
    });
  }

  /** Enables the endpoint again, its reason and failing streak forgotten; null when the account has no such endpoint. */
  async function enableEndpoint(account: string, id: string): Promise<WebhookEndpointRow | null> {
    assertAccount(account);
    const [row] = await db
      .update(webhookEndpoints)
      .set({ status: 'enabled', disabledReason: null, failingSince: null, updatedAt: sql`now()` })
      .where(mine(account, id))
      .returning();
    return row ?? null;
  }

  /** Removes the endpoint and its delivery log; false when the account has no such endpoint. */
  async function deleteEndpoint(account: string, id: string): Promise<boolean> {
    assertAccount(account);
    return db.transaction(async (tx) => {
      const gone = await tx.delete(webhookEndpoints).where(mine(account, id)).returning({ id: webhookEndpoints.id });
      if (gone.length === 0) return false;
      await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
      return true;
    });
  }

  /**
   * Makes `secret` (stored form) the signing secret; the current one keeps
   * signing beside it until `previousUntil`. Null when the account has no such endpoint.
   */
  async function rotateSecret(account: string, id: string, secret: string, previousUntil: Date): Promise<WebhookEndpointRow | null> {
    assertAccount(account);
    const [row] = await db
      .update(webhookEndpoints)
      .set({ secret, previousSecret: sql`${webhookEndpoints.secret}`, previousSecretExpiresAt: previousUntil, updatedAt: sql`now()` })
      .where(mine(account, id))
      .returning();
    return row ?? null;
  }

  /**
   * Writes `event` as a delivery to this one endpoint, subscribed to its
   * type or not (the test event); null when the account has no such
   * endpoint. Due at once, like every new delivery.
   */
  async function enqueueTo(account: string, endpointId: string, event: WebhookEvent): Promise<WebhookDeliveryRow | null> {
    assertAccount(account);
    const inserted = await db.execute(sql`
      insert into ${webhookDeliveries} (endpoint_id, account, event_id, type, payload)
      select w.id, w.account, ${event.id}, ${event.type},
             jsonb_build_object('type', ${event.type}::text, 'timestamp', ${event.timestamp}::text, 'data', ${JSON.stringify(event.data)}::jsonb)
      from ${webhookEndpoints} w where w.account = ${account} and w.id = ${endpointId}
      on conflict (endpoint_id, event_id) do nothing
      returning id`);
    const [row] = (inserted as unknown as { rows: { id: number | string }[] }).rows;
    return row === undefined ? null : getDelivery(account, endpointId, String(row.id));
  }

  /**
   * The endpoint's delivery log, newest first: its delivery rows and the
   * outcomes its batch rows recorded (webhook-batch-log.ts), merged by
   * position, each source read from where the cursor stands; null when the
   * account has no such endpoint.
   */
  async function listDeliveries(account: string, endpointId: string, page: PageRequest = {}): Promise<Page<WebhookDeliveryRow> | null> {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const after = page.cursor ? decodePosition(decodeCursor(page.cursor, (p) => decodePosition(p) !== undefined)) : undefined;
    if ((await getEndpoint(account, endpointId)) === null) return null;
    let before: SQL | undefined;
    if (after?.k === 'd') before = sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) < (${after.t}::timestamptz, ${after.x}::bigint)`;
    else if (after?.k === 'b') before = sql`${webhookDeliveries.createdAt} <= ${after.t}::timestamptz`;
    const [own, batched] = await Promise.all([
      db
        .select({ ...deliveryColumns, t: sql<string>`to_char(${webhookDeliveries.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.account, account), before))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit + 1),
      listBatchEntries(db, account, endpointId, after, limit + 1),
    ]);
    const rowsOwn: LoggedDelivery[] = own.map(({ t, ...row }) => ({ ...toDelivery(row), position: { t, k: 'd', x: String(row.id) } }));
    // Both sources are in log order: a merge, up to one past the page (toPage's "more").
    const merged: LoggedDelivery[] = [];
    let i = 0;
    let j = 0;
    while (merged.length <= limit && (i < rowsOwn.length || j < batched.length)) {
      if (j >= batched.length || (i < rowsOwn.length && comparePositions(rowsOwn[i].position, batched[j].position) <= 0)) merged.push(rowsOwn[i++]);
      else merged.push(batched[j++]);
    }
    return toPage(
      merged,
      limit,
      (entry) => encodePosition(entry.position),
      ({ position: _, ...entry }) => entry,
    );
  }

  /** One delivery of the endpoint by id: a delivery row's (digits) or a batch entry's (b…), which resolves to its delivery row once it was sent again. */
  async function getDelivery(account: string, endpointId: string, id: string): Promise<WebhookDeliveryRow | null> {
    assertAccount(account);
    if (isBatchDeliveryId(id)) {
      const rowId = await deliveryRowOf(db, account, endpointId, id);
      if (rowId !== undefined) return getDelivery(account, endpointId, rowId);
      const entry = await getBatchEntry(db, account, endpointId, id);
      if (entry === null) return null;
      const { position: _, ...delivery } = entry;
      return delivery;
    }
    if (!isKey(id)) return null;
    const [row] = await db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.account, account), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, Number(id))));
    return row ? toDelivery(row) : null;
  }

  /**
   * Makes the delivery pending and due now, under the same webhook-id: one
   * more attempt, then retries from where its schedule stands. A delivery a
   * dispatcher holds right now (pending, claimed until later) is left alone:
   * it is being sent.
   */
  async function redeliver(account: string, endpointId: string, id: string): Promise<RedeliverOutcome> {
    assertAccount(account);
    if (isBatchDeliveryId(id)) {
      // A batch entry becomes a delivery row (due now); one that already has a row is redelivered as that row.
      const created = await batchEntryToDelivery(db, account, endpointId, id);
      const delivery = created === undefined ? null : await getDelivery(account, endpointId, created);
      if (delivery !== null) return { status: 'pending', delivery };
      const existing = await deliveryRowOf(db, account, endpointId, id);
      return existing === undefined ? { status: 'not-found' } : redeliver(account, endpointId, existing);
    }
    if (!isKey(id)) return { status: 'not-found' };
    const target = and(eq(webhookDeliveries.account, account), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, Number(id)));
    const [row] = await db
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: sql`now()`, claimedUntil: null })
      .where(
        and(target, or(sql`${webhookDeliveries.status} <> 'pending'`, isNull(webhookDeliveries.claimedUntil), lt(webhookDeliveries.claimedUntil, sql`now()`))),
      )
      .returning(deliveryColumns);
    if (row) return { status: 'pending', delivery: toDelivery(row) };
    return (await getDelivery(account, endpointId, id)) === null ? { status: 'not-found' } : { status: 'in-flight' };
  }

  return guarded({
    createEndpoint,
    listEndpoints,
    getEndpoint,
    updateEndpoint,
    disableEndpoint,
    enableEndpoint,
    deleteEndpoint,
    rotateSecret,
    enqueueTo,
    listDeliveries,
    getDelivery,
    redeliver,
    /** The delivery log past its retention, a bounded step (webhook-batch-log.ts pruneDeliveryLog). */
    pruneLog: (before: Date, limit: number) => pruneDeliveryLog(db, before, limit),
  });
}
