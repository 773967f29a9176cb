// The webhook dispatcher: works off the delivery outbox (webhook_deliveries)
// beside the engine, which never waits for it. Any number of dispatchers
// share one database: each claims due rows in one statement (rows another
// holds are skipped; a crashed one's claims lapse and are taken over),
// sends them with bounded concurrency overall and per endpoint — a slow or
// hanging endpoint holds only its own few slots, never the others' — and
// records the outcomes in groups (one statement per group, not per row;
// a group gathers for up to `recordGatherMs`, since under load deliveries
// finish a few at a time and each statement has a fixed cost).
// Ordering: none is promised. Deliveries are claimed and started in the
// order they became due, but several run at once per endpoint, retries
// come later, and several dispatchers share the work, so a receiver may see
// events in any order (their `timestamp` says when each happened). It polls
// quickly while there is work and backs off to `idlePollMs` when there is none.
import { setMaxListeners } from 'node:events';
import { Agent } from 'undici';
import type { Db } from '../../engine/index.ts';
import {
  claimDue,
  recordDeliveries,
  recordEndpointOutcomes,
  releaseClaims,
  type ClaimedDelivery,
  type DeliveryRecord,
  type EndpointOutcome,
} from './delivery-statements.ts';
import { guardedConnector, type Resolve } from './guarded-connector.ts';
import { nextDelayMs } from './retry-schedule.ts';
import { sendAttempt, type AttemptOutcome } from './send-attempt.ts';
import { signedHeaders } from './signature.ts';
import { secretSealer, signingKeyCache } from './signing-secret.ts';

export const USER_AGENT = 'Orca-Webhooks/1.0 (+https://standardwebhooks.com)';

/** Finished attempts that are recorded at once rather than gathering longer. */
const GROUP_NOW = 256;

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface DispatcherOptions {
  db: Db;
  /** config.webhooks.allowPrivateNetworks: loopback and private ranges may be reached. */
  allowPrivateNetworks: boolean;
  /** config.webhooks.secretKey: opens the sealed signing secrets. */
  secretKey?: string;
  /** Requests in flight at once, over all endpoints (default 256). */
  concurrency?: number;
  /**
   * Requests in flight at once to one endpoint (default 64): enough for one
   * endpoint to keep up with an engine's event rate (bench:e2e --webhook);
   * a hanging endpoint holds only these.
   */
  perEndpoint?: number;
  /** A whole attempt's deadline (default 15 s). */
  timeoutMs?: number;
  /** Waits between attempts (default retry-schedule.ts SVIX_SCHEDULE_MS); tests shorten it. */
  schedule?: readonly number[];
  /** How long a claim holds a delivery (default: long enough for its wait in an endpoint's queue and the attempt). */
  claimMs?: number;
  /** An endpoint whose deliveries have all failed for this long is disabled (default 5 days). */
  disableFailingAfterMs?: number;
  /** Poll interval when there was nothing to do, doubling from `busyPollMs` up to this (default 1 s). */
  idlePollMs?: number;
  /** Poll interval while there is work (default 25 ms): claims gather what became due meanwhile. */
  busyPollMs?: number;
  /** How long finished attempts gather before their group is recorded (default 100 ms; at once when 256 are waiting). */
  recordGatherMs?: number;
  now?: () => Date;
  random?: () => number;
  /** Name resolution (tests map names to addresses); default the system's. */
  resolve?: Resolve;
  /** Each finished delivery attempt's outcome (metrics). */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  /** A statement failed (the database is away); the dispatcher keeps trying. */
  onError?: (error: unknown) => void;
}

export interface WebhookDispatcher {
  /** Look for due deliveries now rather than at the next poll (e.g. after a commit that wrote some). */
  nudge(): void;
  /** Stops claiming, abandons attempts in flight, records what finished and gives the rest back. Idempotent. */
  stop(): Promise<void>;
}

interface EndpointLane {
  inFlight: number;
  queue: ClaimedDelivery[];
}

export function startWebhookDispatcher(options: DispatcherOptions): WebhookDispatcher {
  const { db } = options;
  const concurrency = options.concurrency ?? 256;
  const perEndpoint = options.perEndpoint ?? 64;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const busyPollMs = options.busyPollMs ?? 25;
  const idlePollMs = options.idlePollMs ?? 1_000;
  const recordGatherMs = options.recordGatherMs ?? 100;
  const disableFailingAfterMs = options.disableFailingAfterMs ?? 5 * 86_400_000;
  const now = options.now ?? (() => new Date());
  // A claim must outlast the wait in an endpoint's queue (a claim adds at most `concurrency` rows to it) and the attempt.
  const claimMs = options.claimMs ?? (Math.ceil(concurrency / perEndpoint) + 1) * timeoutMs + 60_000;
  const keyOf = signingKeyCache(secretSealer(options.secretKey));
  const agent = new Agent({
    connect: guardedConnector({ allowPrivateNetworks: options.allowPrivateNetworks, connectTimeoutMs: timeoutMs, resolve: options.resolve }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // No cap per origin: the lanes bound the requests, and endpoints sharing a host must not queue behind each other's hanging ones.
  });
  const stopping = new AbortController();
  // Every attempt in flight listens for the stop.
  setMaxListeners(0, stopping.signal);
  const lanes = new Map<string, EndpointLane>();
  let inFlight = 0;
  let running = true;
  /** Ends the loop's wait early (soon after a nudge, a freed slot, or an endpoint that can take more). */
  let wake: (() => void) | undefined;
  let lastClaimAt = 0;
  const pendingRecords: DeliveryRecord[] = [];
  const pendingOutcomes = new Map<string, EndpointOutcome>();
  let flushing: Promise<void> | undefined;
  let gathering: ReturnType<typeof setTimeout> | undefined;
  const attempts = new Set<Promise<void>>();
  /** Attempts cut short by stop(): their claims are given back. */
  const abandoned: ClaimedDelivery[] = [];
  let stopped: Promise<void> | undefined;

  function nudge() {
    wake?.();
  }

  function lane(endpointId: string): EndpointLane {
    let found = lanes.get(endpointId);
    if (found === undefined) lanes.set(endpointId, (found = { inFlight: 0, queue: [] }));
    return found;
  }

  async function loop() {
    let idleMs = busyPollMs;
    while (running) {
      const free = concurrency - inFlight;
      let claimed = 0;
      lastClaimAt = performance.now();
      if (free > 0) {
        try {
          claimed = await claimRound(free);
        } catch (error) {
          options.onError?.(error);
        }
      }
      if (!running) break;
      // Work found: look again soon (at once when the claim took every free slot); none: back off.
      idleMs = claimed > 0 ? busyPollMs : Math.min(idlePollMs, idleMs * 2);
      const delay = free > 0 && claimed >= free ? 0 : claimed > 0 || free <= 0 ? busyPollMs : idleMs;
      await new Promise<void>((resolve) => {
        let timer = setTimeout(() => done(), delay);
        const done = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        // Early, but never sooner than busyPollMs after the last claim: a stream of finishing attempts must not become a stream of claims.
        wake = () => {
          clearTimeout(timer);
          timer = setTimeout(() => done(), Math.max(0, lastClaimAt + busyPollMs - performance.now()));
        };
      });
    }
  }

  async function claimRound(free: number): Promise<number> {
    const at = now();
    // An endpoint at its limit, or with claimed rows still queued here, gets no more until it has room.
    const skip = [...lanes].filter(([, l]) => l.inFlight >= perEndpoint || l.queue.length > 0).map(([id]) => id);
    const rows = await claimDue(db, { now: at, limit: free, until: new Date(at.getTime() + claimMs), skipEndpoints: skip });
    for (const row of rows) {
      if (row.url === null || row.endpointStatus !== 'enabled') {
        record({
          id: row.id,
          attempts: row.attempts,
          status: 'failed',
          statusCode: null,
          error: row.url === null ? 'endpoint deleted' : `endpoint disabled: ${row.disabledReason ?? 'disabled'}`,
          entry: null,
          deliveredAt: null,
          nextAttemptAt: null,
        });
        options.onOutcome?.('failed');
        continue;
      }
      lane(row.endpointId).queue.push(row);
    }
    for (const id of new Set(rows.map((r) => r.endpointId))) pump(id);
    return rows.length;
  }

  function pump(endpointId: string) {
    const l = lanes.get(endpointId);
    if (l === undefined) return;
    while (running && inFlight < concurrency && l.inFlight < perEndpoint && l.queue.length > 0) {
      const delivery = l.queue.shift()!;
      l.inFlight++;
      inFlight++;
      const attempt = attemptOne(delivery)
        // Nothing in an attempt should throw; if something does, the claim lapses and the delivery is sent again.
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => {
          attempts.delete(attempt);
          const wasFull = inFlight === concurrency;
          l.inFlight--;
          inFlight--;
          if (l.inFlight === 0 && l.queue.length === 0) lanes.delete(endpointId);
          // This slot goes first to what this endpoint has queued, then to other endpoints waiting for a slot.
          pump(endpointId);
          for (const id of lanes.keys()) if (inFlight < concurrency) pump(id);
          // The endpoint can take more, or every slot was taken: claim again.
          if (l.queue.length === 0 || wasFull) wake?.();
        });
      attempts.add(attempt);
    }
  }

  async function attemptOne(delivery: ClaimedDelivery) {
    const { body } = delivery;
    let outcome: AttemptOutcome;
    try {
      const at = now();
      const keys = [keyOf(delivery.secret!)];
      if (delivery.previousSecret !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > at) {
        keys.push(keyOf(delivery.previousSecret));
      }
      const headers = {
        ...signedHeaders(keys, delivery.eventId, Math.floor(at.getTime() / 1000), body),
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
      };
      const sent = await sendAttempt(agent, { url: delivery.url!, headers, body }, { timeoutMs, now, signal: stopping.signal });
      if (sent === undefined) {
        abandoned.push(delivery);
        return;
      }
      outcome = sent;
    } catch (error) {
      // A secret that cannot be opened (ORCA_WEBHOOK_SECRET_KEY missing or changed): a failed attempt that says why.
      outcome = { at: now(), durationMs: 0, error: error instanceof Error ? error.message : String(error) };
    }
    const ok = outcome.error === undefined;
    const made = delivery.attempts + 1;
    const gone = outcome.statusCode === 410;
    const delay = ok || gone ? undefined : nextDelayMs(made, { schedule: options.schedule, retryAfterMs: outcome.retryAfterMs, random: options.random });
    const status = ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    record({
      id: delivery.id,
      attempts: delivery.attempts,
      status,
      statusCode: outcome.statusCode ?? null,
      error: outcome.error ?? null,
      entry: {
        at: outcome.at.toISOString(),
        ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
        durationMs: outcome.durationMs,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      },
      deliveredAt: ok ? outcome.at.toISOString() : null,
      nextAttemptAt: delay === undefined ? null : new Date(outcome.at.getTime() + outcome.durationMs + delay).toISOString(),
    });
    // The endpoint's state changes only on a failure, or on a success after failures.
    if (!ok || delivery.failingSince !== null) {
      const before = pendingOutcomes.get(delivery.endpointId);
      if (before === undefined || !before.gone) pendingOutcomes.set(delivery.endpointId, { id: delivery.endpointId, ok, gone, at: outcome.at.toISOString() });
      // A 410 disables the endpoint at once: its group is written now, not after gathering.
      if (gone) startFlush();
    }
    options.onOutcome?.(status === 'delivered' ? 'delivered' : status === 'failed' ? 'failed' : 'retrying');
  }

  function record(entry: DeliveryRecord) {
    pendingRecords.push(entry);
    // A flush under way takes what arrives meanwhile; otherwise the group gathers a while first.
    if (flushing !== undefined) return;
    if (pendingRecords.length >= GROUP_NOW || !running) startFlush();
    else gathering ??= setTimeout(startFlush, recordGatherMs);
  }

  function startFlush() {
    clearTimeout(gathering);
    gathering = undefined;
    flushing ??= flush();
  }

  // One flush at a time; what arrives meanwhile goes in the next group.
  async function flush() {
    try {
      while (pendingRecords.length > 0 || pendingOutcomes.size > 0) {
        const records = pendingRecords.splice(0);
        const outcomes = [...pendingOutcomes.values()];
        pendingOutcomes.clear();
        try {
          // Deliveries first: disabling an endpoint then fails whatever of it is still pending.
          await recordDeliveries(db, records);
          await recordEndpointOutcomes(db, outcomes, { now: now(), disableFailingAfterMs });
        } catch (error) {
          // Unrecorded: the claims lapse and the deliveries are sent again (at least once).
          options.onError?.(error);
          if (running) await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }
    } finally {
      flushing = undefined;
    }
  }

  const looping = loop();

  return {
    nudge,
    stop() {
      stopped ??= (async () => {
        running = false;
        stopping.abort();
        wake?.();
        await looping;
        await Promise.allSettled([...attempts]);
        const untried = [...abandoned, ...[...lanes.values()].flatMap((l) => l.queue)];
        lanes.clear();
        if (gathering !== undefined) startFlush();
        while (flushing) await flushing;
        try {
          await releaseClaims(db, untried);
        } catch (error) {
          options.onError?.(error);
        }
        await agent.destroy();
      })();
      return stopped;
    },
  };
}
