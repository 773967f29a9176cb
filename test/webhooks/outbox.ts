// Test helpers around the outbox: an endpoint row as H1's routes would
// write it (its secret sealed as configured), events enqueued the way the
// engine writes them, and the delivery rows read back.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../engine/index.ts';
import { enqueueWebhookEvents, webhookEventId, type WebhookEvent } from '../../engine/store/webhook-outbox.ts';
import { rows } from '../../engine/store/db.ts';
import { webhookEndpoints } from '../../engine/store/schema.ts';
import { newSigningSecret, secretSealer } from '../../api/webhooks/signing-secret.ts';

export interface TestEndpoint {
  id: string;
  account: string;
  secret: string;
}

export async function addEndpoint(
  db: Db,
  url: string,
  options: {
    account?: string;
    secret?: string;
    secretKey?: string;
    previousSecret?: string;
    previousSecretExpiresAt?: Date;
    failingSince?: Date;
    batching?: { maxEvents: number; maxWaitMs: number };
  } = {},
): Promise<TestEndpoint> {
  const sealer = secretSealer(options.secretKey);
  const endpoint = {
    id: `ep_${randomBytes(6).toString('hex')}`,
    account: options.account ?? `acct-${randomBytes(4).toString('hex')}`,
    secret: options.secret ?? newSigningSecret(),
  };
  await db.insert(webhookEndpoints).values({
    id: endpoint.id,
    account: endpoint.account,
    url,
    events: ['process_instance.completed'],
    secret: sealer.seal(endpoint.secret),
    previousSecret: options.previousSecret === undefined ? null : sealer.seal(options.previousSecret),
    previousSecretExpiresAt: options.previousSecretExpiresAt ?? null,
    failingSince: options.failingSince ?? null,
    batching: options.batching ?? null,
  });
  return endpoint;
}

let sequence = 0;

/** `count` process_instance.completed events of `account`, enqueued; their ids. */
export async function enqueueCompleted(db: Db, account: string, count = 1): Promise<string[]> {
  const events: WebhookEvent[] = [];
  for (let i = 0; i < count; i++) {
    const key = String(4503599627370496n + BigInt(Date.now() % 1_000_000) * 1000n + BigInt(sequence++));
    events.push({
      id: webhookEventId('process_instance.completed', key),
      account,
      type: 'process_instance.completed',
      timestamp: new Date().toISOString(),
      data: { processInstanceKey: key, bpmnProcessId: 'order', version: 1 },
    });
  }
  await enqueueWebhookEvents(db, events);
  return events.map((e) => e.id);
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  log: { at: string; statusCode?: number; durationMs: number; error?: string }[];
  next_attempt_at: Date;
  claimed_until: Date | null;
  delivered_at: Date | null;
}

export async function deliveriesOf(db: Db, endpointId: string): Promise<DeliveryRow[]> {
  const found = await rows<DeliveryRow>(
    db,
    sql`select id::text as id, endpoint_id, event_id, status, attempts, last_status_code, last_error, log, next_attempt_at, claimed_until, delivered_at
        from webhook_deliveries where endpoint_id = ${endpointId} order by id`,
  );
  return found.map((r) => ({
    ...r,
    next_attempt_at: new Date(r.next_attempt_at),
    claimed_until: r.claimed_until === null ? null : new Date(r.claimed_until),
    delivered_at: r.delivered_at === null ? null : new Date(r.delivered_at),
  }));
}

export async function endpointRow(db: Db, id: string) {
  const [row] = await rows<{ status: string; disabled_reason: string | null; failing_since: string | Date | null }>(
    db,
    sql`select status, disabled_reason, failing_since from webhook_endpoints where id = ${id}`,
  );
  return row;
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'the condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
