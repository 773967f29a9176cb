// Incidents as the API sees them: list, get, and resolve. Resolving (PATCH
// on an incident) closes the record only — the instance stays INCIDENT and
// its document is untouched (SPEC.md "States and transitions"), which is why
// this is the one runtime table the API writes directly (with the
// incident.closed webhook event, in the same transaction). The engine counts
// the open ones of the partitions a shard leads, for the metrics.
import { and, asc, count, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { incidents } from './schema.ts';
import { assertAccount } from './tenancy.ts';
import { enqueueWebhookEvents, webhookEventId, type WebhookEvent } from './webhook-outbox.ts';

export type IncidentRecord = Omit<typeof incidents.$inferSelect, 'partition'>;

export interface IncidentFilter extends PageRequest {
  state?: 'OPEN' | 'RESOLVED';
  instanceKey?: string;
  bpmnProcessId?: string;
}

export type ResolveOutcome = { status: 'resolved'; incident: IncidentRecord } | { status: 'already-resolved'; incident: IncidentRecord };

const columns = {
  key: incidents.key,
  account: incidents.account,
  instanceKey: incidents.instanceKey,
  bpmnProcessId: incidents.bpmnProcessId,
  elementId: incidents.elementId,
  elementInstanceKey: incidents.elementInstanceKey,
  jobKey: incidents.jobKey,
  type: incidents.type,
  message: incidents.message,
  state: incidents.state,
  createdAt: incidents.createdAt,
  resolvedAt: incidents.resolvedAt,
};

function incidentClosedEvent(incident: IncidentRecord): WebhookEvent {
  return {
    id: webhookEventId('incident.closed', incident.key),
    account: incident.account,
    type: 'incident.closed',
    timestamp: (incident.resolvedAt ?? new Date()).toISOString(),
    data: { incidentKey: incident.key, processInstanceKey: incident.instanceKey, bpmnProcessId: incident.bpmnProcessId },
  };
}

export function incidentsRepository(db: Db) {
  async function listIncidents(account: string, filter: IncidentFilter = {}): Promise<Page<IncidentRecord>> {
    assertAccount(account);
    const limit = clampLimit(filter.limit);
    const conditions: (SQL | undefined)[] = [eq(incidents.account, account)];
    if (filter.state !== undefined) conditions.push(eq(incidents.state, filter.state));
    if (filter.instanceKey !== undefined) {
      if (!isKey(filter.instanceKey)) return { items: [], nextCursor: null };
      conditions.push(eq(incidents.instanceKey, filter.instanceKey));
    }
    if (filter.bpmnProcessId !== undefined) conditions.push(eq(incidents.bpmnProcessId, filter.bpmnProcessId));
    if (filter.cursor) conditions.push(gt(incidents.key, decodeCursor(filter.cursor, isKey)));
    const fetched = await db
      .select(columns)
      .from(incidents)
      .where(and(...conditions))
      .orderBy(asc(incidents.key))
      .limit(limit + 1);
    return toPage(
      fetched,
      limit,
      (r) => r.key,
      (r) => r,
    );
  }

  async function getIncident(account: string, key: string): Promise<IncidentRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [row] = await db
      .select(columns)
      .from(incidents)
      .where(and(eq(incidents.account, account), eq(incidents.key, key)));
    return row ?? null;
  }

  /**
   * Closes the incident record; null when the account has no such incident.
   * Idempotent. The `incident.closed` webhook event is written in the same
   * transaction, by the call that closed it only.
   */
  async function resolveIncident(account: string, key: string): Promise<ResolveOutcome | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const updated = await db.transaction(async (tx) => {
      const [closed] = await tx
        .update(incidents)
        .set({ state: 'RESOLVED', resolvedAt: sql`now()` })
        .where(and(eq(incidents.account, account), eq(incidents.key, key), eq(incidents.state, 'OPEN')))
        .returning(columns);
      if (closed) await enqueueWebhookEvents(tx, [incidentClosedEvent(closed)]);
      return closed;
    });
    if (updated) return { status: 'resolved', incident: updated };
    const existing = await getIncident(account, key);
    return existing ? { status: 'already-resolved', incident: existing } : null;
  }

  /**
   * Open incidents on these partitions, across accounts: an operator's
   * figure (the `orca_incidents_open` gauge of the shard leading them), never
   * shown to an account. The partial index on open incidents keeps it cheap
   * however many were resolved.
   */
  async function countOpenIncidents(partitions: readonly number[]): Promise<number> {
    if (partitions.length === 0) return 0;
    const [row] = await db
      .select({ open: count() })
      .from(incidents)
      .where(and(eq(incidents.state, 'OPEN'), inArray(incidents.partition, [...partitions])));
    return row?.open ?? 0;
  }

  return guarded({ listIncidents, getIncident, resolveIncident, countOpenIncidents });
}
