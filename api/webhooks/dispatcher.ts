// The webhook dispatcher: sends what the outbox holds beside the engine,
// which never waits for it. The events of batches its own process's leaders
// commit come to it in memory (fresh-batches.ts): sent at once, their batch
// rows then marked delivered in groups, failures written as delivery rows.
// Everything else is delivery rows, shared by any number of dispatchers on
// one database: each claims due rows in one statement (rows another holds
// are skipped; a crashed one's claims lapse and are taken over, and so are
// batch rows whose hold lapsed), sends them with bounded concurrency overall
// and per endpoint — a slow or hanging endpoint holds only its own few
// slots, never the others'; an endpoint with batched delivery gets its
// events as arrays, request-body.ts) — and records the outcomes in groups (one
// statement per group, not per row; a group gathers for up to
// `recordGatherMs`, since under load deliveries finish a few at a time and
// each statement has a fixed cost).
// Ordering: none is promised. Deliveries are started in the order they
// became due, but several run at once per endpoint, retries come later,
// and several dispatchers share the work, so a receiver may see events in
// any order (their `timestamp` says when each happened). It polls quickly
// while there is work and backs off to `idlePollMs` when there is none.
import type { Db, WebhookTaker } from '../../engine/index.ts';
import {
  claimDue,
  recordDeliveries,
  recordEndpointOutcomes,
  releaseClaims,
  type ClaimedDelivery,
  type DeliveryRecord,
  type EndpointOutcome,
} from './delivery-statements.ts';
import { finishBatches, takeOverBatches } from './batch-statements.ts';
import { FreshBatches, type FreshDelivery } from './fresh-batches.ts';
import { guardedConnector, type Resolve } from './guarded-connector.ts';
import { attemptVerdict } from './retry-schedule.ts';
import { sendAttempt, type Abortable, type AttemptOutcome } from './send-attempt.ts';
import { OriginPools } from './origin-pools.ts';
import { requestBody } from './request-body.ts';
import { signatures } from './signature.ts';
import { secretSealer, signingKeyCache } from './signing-secret.ts';

export const USER_AGENT = 'Orca-Webhooks/1.0 (+https://standardwebhooks.com)';
/** The headers every request carries, before its own three (undici's flat form). */
const CONSTANT_HEADERS = ['content-type', 'application/json', 'user-agent', USER_AGENT] as const;

/** Finished attempts that are recorded at once rather than gathering longer. */
const GROUP_NOW = 256;
/** How often lapsed batch rows are looked for, and how many are taken over at once. */
const TAKE_OVER_EVERY_MS = 1_000;
const TAKE_OVER_BATCHES = 100;

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
  /** Attaches the dispatcher to its process's partition leaders (Engine.attachWebhookTaker), which then hand it their committed events. */
  attach?: (taker: WebhookTaker | undefined) => void;
  /** Deliveries taken from the leaders in memory and not yet finished, past which new batches are left to the claim path (default 10,000). */
  maxFresh?: number;
  /** How long the in-memory path trusts what it read of an account's endpoints (default 1 s). */
  endpointTtlMs?: number;
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
  /** Claimed rows first (their `claimed` count), then deliveries taken in memory. */
  queue: ClaimedDelivery[];
  claimed: number;
  /** A batched endpoint's wait for more events before it sends fewer than maxEvents. */
  timer?: ReturnType<typeof setTimeout>;
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
  const pools = new OriginPools({
    connect: guardedConnector({ allowPrivateNetworks: options.allowPrivateNetworks, connectTimeoutMs: timeoutMs, resolve: options.resolve }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // No cap on connections: the lanes bound the requests, and endpoints sharing a host must not queue behind each other's hanging ones.
  });
  /** The attempts in flight, aborted all at once by stop(). */
  const inFlightAttempts = new Set<Abortable>();
  // Deliveries queued for one endpoint past which fresh ones go to the outbox instead: the last of them, waiting for
  // its turn (at most one attempt's deadline per `perEndpoint` ahead of it) and sent, still finishes within its
  // batch's hold (claimMs), with half a minute to spare.
  const spillAt = Math.max(1, Math.floor((claimMs - 30_000) / timeoutMs) - 1) * perEndpoint;
  const fresh = new FreshBatches(db, { holdMs: claimMs, maxQueued: options.maxFresh ?? 10_000, endpointTtlMs: options.endpointTtlMs ?? 1_000 });
  let admitting: Promise<void> | undefined;
  /** When lapsed batch rows were last looked for (performance.now()). */
  let lastTakeOverAt = -Infinity;
  const lanes = new Map<string, EndpointLane>();
  /** When each delivery taken in memory joined its lane's queue (performance.now()). */
  const queuedAt = new WeakMap<ClaimedDelivery, number>();
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

  /** The leaders' committed events: turned into deliveries (one at a time, gathering what arrives meanwhile) and queued in the lanes. */
  function take(committed: Parameters<WebhookTaker['take']>[0]) {
    fresh.take(committed);
    admitting ??= admit().finally(() => (admitting = undefined));
  }

  async function admit() {
    while (running && fresh.waiting) {
      let deliveries: FreshDelivery[];
      try {
        deliveries = await fresh.deliveries();
      } catch (error) {
        options.onError?.(error);
        startFlush();
        continue;
      }
      const at = performance.now();
      for (const d of deliveries) {
        const l = lane(d.endpointId);
        // Queued here beyond this, a delivery could outwait its batch's hold: it goes to the outbox instead.
        if (l.queue.length >= spillAt) fresh.spill(d);
        else {
          l.queue.push(d);
          queuedAt.set(d, at);
        }
      }
      for (const id of new Set(deliveries.map((d) => d.endpointId))) pump(id);
      if (fresh.unwritten > 0) scheduleFlush();
    }
  }

  function lane(endpointId: string): EndpointLane {
    let found = lanes.get(endpointId);
    if (found === undefined) lanes.set(endpointId, (found = { inFlight: 0, queue: [], claimed: 0 }));
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
    // Batch rows whose hold lapsed (their dispatcher died) or that nobody held: looked for once a second at most.
    if (performance.now() - lastTakeOverAt >= TAKE_OVER_EVERY_MS) {
      lastTakeOverAt = performance.now();
      await takeOverBatches(db, { now: at, limit: TAKE_OVER_BATCHES });
    }
    // An endpoint with claimed rows still queued here gets no more until they are sent. Deliveries taken in
    // memory do not hold a claim back: under steady load they always queue, and retries would wait for a lull.
    const skip = [...lanes].filter(([, l]) => l.claimed > 0).map(([id]) => id);
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
      // Ahead of the deliveries taken in memory: a claimed row is due (often a retry) and its claim is running out.
      const l = lane(row.endpointId);
      l.queue.splice(l.claimed++, 0, row);
    }
    for (const id of new Set(rows.map((r) => r.endpointId))) pump(id);
    return rows.length;
  }

  /** The deliveries one request to this lane's endpoint carries now; none while a batched endpoint waits for more. */
  function nextRequest(endpointId: string, l: EndpointLane): ClaimedDelivery[] {
    const batching = l.queue[0].batching;
    if (batching === null) return [l.queue.shift()!];
    // Claimed rows (retries, tests, redeliveries) are due now; events taken in memory may wait for more to join them.
    if (l.claimed === 0 && l.queue.length < batching.maxEvents) {
      const waitMs = queuedAt.get(l.queue[0])! + batching.maxWaitMs - performance.now();
      if (waitMs > 0) {
        l.timer ??= setTimeout(() => {
          l.timer = undefined;
          pump(endpointId);
        }, waitMs);
        return [];
      }
    }
    clearTimeout(l.timer);
    l.timer = undefined;
    return l.queue.splice(0, batching.maxEvents);
  }

  function pump(endpointId: string) {
    const l = lanes.get(endpointId);
    if (l === undefined) return;
    while (running && inFlight < concurrency && l.inFlight < perEndpoint && l.queue.length > 0) {
      const request = nextRequest(endpointId, l);
      if (request.length === 0) break;
      const claimedRows = request.filter((d) => !('fresh' in d)).length;
      l.claimed -= Math.min(claimedRows, l.claimed);
      l.inFlight++;
      inFlight++;
      const attempt = send(request)
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
          // The endpoint can take more, or every slot was taken: claim again (not for the in-memory path's deliveries, which no claim found).
          if (claimedRows > 0 && (l.claimed === 0 || wasFull)) wake?.();
        });
      attempts.add(attempt);
    }
  }

  async function send(request: ClaimedDelivery[]) {
    const first = request[0];
    let outcome: AttemptOutcome;
    try {
      const at = now();
      const keys = [keyOf(first.secret!)];
      if (first.previousSecret !== null && first.previousSecretExpiresAt !== null && first.previousSecretExpiresAt > at) {
        keys.push(keyOf(first.previousSecret));
      }
      const timestamp = String(Math.floor(at.getTime() / 1000));
      const { id, body } = requestBody(request);
      const headers = [...CONSTANT_HEADERS, 'webhook-id', id, 'webhook-timestamp', timestamp, 'webhook-signature', signatures(keys, id, timestamp, body)];
      const { pool, path } = pools.target(first.url!);
      const sent = await sendAttempt({ dispatcher: pool, path, headers, body }, { timeoutMs, now, inFlight: inFlightAttempts, stopped: () => !running });
      if (sent === undefined) {
        for (const delivery of request) {
          if ('fresh' in delivery) fresh.abandon(delivery as FreshDelivery);
          else abandoned.push(delivery);
        }
        return;
      }
      outcome = sent;
    } catch (error) {
      // A secret that cannot be opened (ORCA_WEBHOOK_SECRET_KEY missing or changed): a failed attempt that says why.
      outcome = { at: now(), durationMs: 0, error: error instanceof Error ? error.message : String(error) };
    }
    for (const delivery of request) settle(delivery, outcome);
  }

  /** Records what came of the request that carried `delivery`. */
  function settle(delivery: ClaimedDelivery, outcome: AttemptOutcome) {
    const { ok, gone, status, entry, nextAttemptAt } = attemptVerdict(outcome, delivery.attempts, options);
    if ('fresh' in delivery) {
      const d = delivery as FreshDelivery;
      if (ok) fresh.delivered(d, { statusCode: outcome.statusCode!, durationMs: outcome.durationMs, at: entry.at });
      else fresh.failedWith(d, { s: status === 'failed' ? 'failed' : 'pending', c: outcome.statusCode ?? null, err: outcome.error!, entry, n: nextAttemptAt });
      if (fresh.unwritten > 0) scheduleFlush();
    } else
      record({
        id: delivery.id,
        attempts: delivery.attempts,
        status,
        statusCode: outcome.statusCode ?? null,
        error: outcome.error ?? null,
        entry,
        deliveredAt: ok ? outcome.at.toISOString() : null,
        nextAttemptAt,
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
    scheduleFlush();
  }

  function scheduleFlush() {
    // A flush under way takes what arrives meanwhile; otherwise the group gathers a while first.
    if (flushing !== undefined) return;
    if (pendingRecords.length + fresh.unwritten >= GROUP_NOW || !running) startFlush();
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
      while (pendingRecords.length > 0 || pendingOutcomes.size > 0 || fresh.unwritten > 0) {
        const records = pendingRecords.splice(0);
        const outcomes = [...pendingOutcomes.values()];
        pendingOutcomes.clear();
        const batches = fresh.drain();
        try {
          // Deliveries first: disabling an endpoint then fails whatever of it is still pending.
          await finishBatches(db, { ...batches, now: now() });
          await recordDeliveries(db, records);
          await recordEndpointOutcomes(db, outcomes, { now: now(), disableFailingAfterMs });
        } catch (error) {
          // Unrecorded: the claims lapse and the deliveries are sent again (at least once). Batch rows stay held
          // while this process runs, so their outcomes are written with the next group (or lapse if it ends).
          if (running) fresh.restore(batches);
          options.onError?.(error);
          if (running) await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }
    } finally {
      flushing = undefined;
    }
  }

  const looping = loop();
  options.attach?.({ holdMs: () => fresh.holdMs(), take });

  return {
    nudge: () => wake?.(),
    stop() {
      stopped ??= (async () => {
        // Batches committed from now on are written unheld, and those still arriving are given back.
        options.attach?.(undefined);
        fresh.open = false;
        running = false;
        for (const attempt of inFlightAttempts) attempt.abort();
        wake?.();
        await looping;
        await admitting;
        fresh.releaseWaiting();
        await Promise.allSettled([...attempts]);
        for (const l of lanes.values()) clearTimeout(l.timer);
        const queued = [...lanes.values()].flatMap((l) => l.queue);
        for (const d of queued) if ('fresh' in d) fresh.abandon(d as FreshDelivery);
        const untried = [...abandoned, ...queued.filter((d) => !('fresh' in d))];
        lanes.clear();
        if (gathering !== undefined || fresh.unwritten > 0) startFlush();
        while (flushing) await flushing;
        try {
          await releaseClaims(db, untried);
        } catch (error) {
          options.onError?.(error);
        }
        await pools.destroy();
      })();
      return stopped;
    },
  };
}
