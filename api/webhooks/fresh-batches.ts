// The dispatcher's in-memory path: the events of batches its own process's
// leaders just committed (Engine.attachWebhookTaker), turned into
// deliveries without reading the outbox back. Each event goes to the
// enabled endpoints of its account subscribed to its type, as a short-lived
// cache of them knows them (refreshed from the database at most
// `endpointTtlMs` after it was read). A batch is done when every one of its
// deliveries succeeded or failed; the failures become delivery rows with a
// retry schedule and the batch row is marked delivered, grouped with other
// batches' (batch-statements.ts finishBatches). An endpoint whose queue
// here is already long gets its further deliveries as delivery rows at
// once (spill), which the claim path takes as the endpoint has room: a
// slow endpoint does not grow this process's memory, nor wait in it for
// longer than the hold lasts. Until then the batch row
// stays held, so a crash leaves it undelivered and another dispatcher takes
// it over once the hold lapses.
import type { CommittedWebhookEvents, Db, WebhookEvent } from '../../engine/index.ts';
import { enabledEndpoints, type EndpointRow, type FailedFresh, type FinishedBatch } from './batch-statements.ts';
import type { ClaimedDelivery } from './delivery-statements.ts';

/** A fresh batch's delivery: no delivery row exists for it (`id` is empty) unless it fails. */
export interface FreshDelivery extends ClaimedDelivery {
  fresh: FreshBatch;
  account: string;
  type: string;
}

interface FreshBatch {
  key: string;
  /** Deliveries not yet finished; abandoned: one was cut short (shutdown) and the batch is given back whole. */
  remaining: number;
  abandoned: boolean;
  outcomes: FinishedBatch['o'];
}

interface CachedEndpoints {
  at: number;
  endpoints: EndpointRow[];
}

const asDate = (value: Date | string | null): Date | null => (value === null ? null : value instanceof Date ? value : new Date(value));

export class FreshBatches {
  private incoming: CommittedWebhookEvents[] = [];
  private readonly endpoints = new Map<string, CachedEndpoints>();
  /** Deliveries taken and not yet finished. */
  private queued = 0;
  /** What the next finishing statement writes. */
  failed: FailedFresh[] = [];
  finished: FinishedBatch[] = [];
  released: string[] = [];
  open = true;

  constructor(
    private readonly db: Db,
    private readonly options: { holdMs: number; maxQueued: number; endpointTtlMs: number },
  ) {}

  /** The hold a new batch row gets: none once the deliveries in hand reach maxQueued (the row is then claimed like any). */
  holdMs(): number {
    return this.open && this.queued < this.options.maxQueued ? this.options.holdMs : 0;
  }

  /** Whether anything is waiting to be written by finishBatches. */
  get unwritten(): number {
    return this.failed.length + this.finished.length + this.released.length;
  }

  take(committed: CommittedWebhookEvents): void {
    if (this.open) this.incoming.push(committed);
    else this.released.push(committed.key);
  }

  get waiting(): boolean {
    return this.incoming.length > 0;
  }

  /** Gives back the batches taken and not yet turned into deliveries (shutdown). */
  releaseWaiting(): void {
    for (const batch of this.incoming.splice(0)) this.released.push(batch.key);
  }

  /** The deliveries of the batches taken since the last call (loading the endpoints of accounts not seen lately). */
  async deliveries(): Promise<FreshDelivery[]> {
    const batches = this.incoming;
    this.incoming = [];
    const stale = new Set<string>();
    const now = performance.now();
    for (const batch of batches) {
      for (const event of batch.events) {
        const cached = this.endpoints.get(event.account);
        if (cached === undefined || now - cached.at > this.options.endpointTtlMs) stale.add(event.account);
      }
    }
    if (stale.size > 0) {
      try {
        const rows = await enabledEndpoints(this.db, [...stale]);
        const at = performance.now();
        for (const account of stale) this.endpoints.set(account, { at, endpoints: [] });
        for (const row of rows) this.endpoints.get(row.account)!.endpoints.push(row);
        if (this.endpoints.size > 10_000) this.endpoints.clear();
      } catch (error) {
        // Without the endpoints these batches cannot be sent from here: their rows are given back and claimed from the outbox.
        for (const batch of batches) this.released.push(batch.key);
        throw error;
      }
    }
    const out: FreshDelivery[] = [];
    for (const batch of batches) {
      const fresh: FreshBatch = { key: batch.key, remaining: 0, abandoned: false, outcomes: [] };
      for (const event of batch.events) {
        let body: string | undefined;
        for (const endpoint of this.endpoints.get(event.account)?.endpoints ?? []) {
          if (!endpoint.events.includes(event.type)) continue;
          body ??= bodyOf(event);
          fresh.remaining++;
          out.push(delivery(fresh, endpoint, event, body));
        }
      }
      // Nothing wanted here (no endpoint now): the row, if the statement wrote one, is done.
      if (fresh.remaining === 0) this.finished.push({ k: batch.key, o: [], n: [] });
    }
    this.queued += out.length;
    return out;
  }

  /** A delivery succeeded. */
  delivered(d: FreshDelivery, outcome: { statusCode: number; durationMs: number; at: string }): void {
    d.fresh.outcomes.push({ e: d.endpointId, i: d.eventId, c: outcome.statusCode, ms: outcome.durationMs, at: outcome.at });
    this.settle(d);
  }

  /** A delivery failed: it becomes a delivery row (pending with its next attempt, or failed for good). */
  failedWith(d: FreshDelivery, row: Omit<FailedFresh, 'e' | 'a' | 'i' | 'ty' | 'b'>): void {
    this.failed.push({ e: d.endpointId, a: d.account, i: d.eventId, ty: d.type, b: d.body, ...row });
    this.settle(d);
  }

  /** A delivery not tried here (its endpoint's queue is full): a delivery row due now, for the claim path. */
  spill(d: FreshDelivery): void {
    this.failed.push({ e: d.endpointId, a: d.account, i: d.eventId, ty: d.type, b: d.body, s: 'pending', c: null, err: null, entry: null, n: null });
    this.settle(d);
  }

  /** A delivery was cut short or never started (shutdown): its batch row is given back whole. */
  abandon(d: FreshDelivery): void {
    d.fresh.abandoned = true;
    this.settle(d);
  }

  private settle(d: FreshDelivery): void {
    this.queued--;
    if (--d.fresh.remaining > 0) return;
    if (d.fresh.abandoned) this.released.push(d.fresh.key);
    else this.finished.push({ k: d.fresh.key, o: d.fresh.outcomes, n: [...new Set(d.fresh.outcomes.map((o) => o.e))] });
  }

  /** What the next finishing statement writes, taken. */
  drain(): { failed: FailedFresh[]; finished: FinishedBatch[]; released: string[] } {
    const taken = { failed: this.failed, finished: this.finished, released: this.released };
    this.failed = [];
    this.finished = [];
    this.released = [];
    return taken;
  }

  /** Taken back after a failed statement: written with the next group. */
  restore(taken: { failed: FailedFresh[]; finished: FinishedBatch[]; released: string[] }): void {
    this.failed.unshift(...taken.failed);
    this.finished.unshift(...taken.finished);
    this.released.unshift(...taken.released);
  }
}

/** The body as sent: `{type, timestamp, data}`, serialised once per event whatever the number of endpoints. */
function bodyOf(event: WebhookEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}

function delivery(fresh: FreshBatch, endpoint: EndpointRow, event: WebhookEvent, body: string): FreshDelivery {
  return {
    id: '',
    endpointId: endpoint.id,
    eventId: event.id,
    body,
    attempts: 0,
    url: endpoint.url,
    secret: endpoint.secret,
    previousSecret: endpoint.previous_secret,
    previousSecretExpiresAt: asDate(endpoint.previous_secret_expires_at),
    endpointStatus: 'enabled',
    disabledReason: null,
    failingSince: asDate(endpoint.failing_since),
    batching: endpoint.batching,
    fresh,
    account: event.account,
    type: event.type,
  };
}
