// The contracts of Orca's fast path (DESIGN.md §1, §4): job queues that API
// pods activate from, per-partition command streams from API pods to the
// partition leader, replies from the leader back to the waiting pod, and
// long-poll wake-ups. Two implementations honour them with the same
// semantics: redis/ (scale-out) and local/ (the embedded default). Neither is
// ever the only copy of anything: Postgres is, and `JobQueue.rebuild` puts a
// partition's queues back from it.
import type { JobKind } from '../metrics.ts';
import type { JobOffer, Variables } from '../runtime/types.ts';

/** A job ready to be queued: the runtime's offer plus where it belongs and what it sees. */
export interface QueuedJob extends JobOffer {
  account: string;
  /** The partition of the job's process instance (the leader that owns it pushes it). */
  partition: number;
  /** The variables visible to the job (its scope chain, flattened). */
  variables: Variables;
  /** When the job was offered (created, or offered again after a failure), epoch ms: activation measures its wait from here. */
  queuedAt?: number;
  /** The job's category for the metrics (engine/metrics.ts). */
  kind?: JobKind;
}

/** Who holds an activated job, and since when (epoch milliseconds). */
export interface Activation {
  worker: string;
  at: number;
}

/** A job as `activate` hands it to a worker: payload and variables as of activation. */
export interface ActivatedJob extends QueuedJob {
  worker: string;
  activatedAt: number;
}

/**
 * A job as Postgres records it, for `rebuild`: `activation` is set when the
 * job is known to be held by a worker (it must stay activated, not be offered
 * again).
 */
export interface StoredJob extends QueuedJob {
  activation?: Activation;
}

export interface RebuildResult {
  /** Jobs now queued (offered to workers). */
  queued: number;
  /** Jobs now held activated. */
  activated: number;
  /** Jobs the queues held for this partition that Postgres no longer has. */
  removed: number;
}

/**
 * What a worker can activate now, per (account, type). FIFO by the order jobs
 * were first pushed; a requeued job goes back to the place in line it had
 * when first pushed (ahead of every job pushed after it, so in practice the
 * front: SPEC.md offers a failed job again at once). An activated job stays
 * activated until removed or requeued: there is no lock timeout and no
 * redelivery by time here (SPEC.md); an activation timeout (extension) is
 * the partition leader's timer, which requeues the job.
 */
export interface JobQueue {
  /**
   * Queues jobs, idempotent by job key: a key already queued or activated is
   * left as it is. Resolves to the number of jobs newly queued.
   */
  push(jobs: readonly QueuedJob[]): Promise<number>;
  /**
   * Pops up to `max` queued jobs of (account, type), marks them activated by
   * `worker` and returns them with the variables current now. Resolves `[]`
   * at once when none is queued.
   */
  activate(account: string, type: string, max: number, worker: string): Promise<ActivatedJob[]>;
  /** Replaces a queued or activated job's variables; false when the job is unknown. */
  updateVariables(account: string, jobKey: string, variables: Variables): Promise<boolean>;
  /**
   * Forgets completed or cancelled jobs, queued or activated: a removed job is
   * never delivered afterwards. Resolves to the number of jobs that were known.
   */
  remove(account: string, jobKeys: readonly string[]): Promise<number>;
  /**
   * Offers a failed job with retries left again at once, with the payload
   * given (new retries, variables). An unknown job (lost with a flush) is
   * queued at the back.
   */
  requeue(job: QueuedJob): Promise<void>;
  /**
   * Replaces the partition's queued and activated jobs with `jobs` (from
   * Postgres, in the order they should be offered): a job activated either
   * in Postgres or still in the queues stays activated; every other job is
   * queued (keeping its place in line if it was queued already); jobs the
   * queues held for the partition that are not in `jobs` are removed. Run by
   * the partition's leader before it pushes anything after a takeover or a
   * Redis flush.
   */
  rebuild(partition: number, jobs: readonly StoredJob[]): Promise<RebuildResult>;
  /** Number of jobs of (account, type) queued now (not counting activated ones). */
  depth(account: string, type: string): Promise<number>;
  /**
   * Long-poll wake-up: resolves true at once when a job of (account, type) is
   * queued, or as soon as one is pushed or requeued; false after `timeoutMs`,
   * on abort, or when the queues close. True means "try activating", not a
   * reservation: another worker may take the job first.
   */
  waitForJobs(account: string, type: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

/** A command for a partition leader; `key` makes it idempotent (replays are safe). */
export interface Command {
  key: string;
  payload: unknown;
  /**
   * Where the leader sends the reply: the `channel` of the sender's
   * `Replies.expectReply`. Absent: the reply is kept under the command key
   * for `Replies.waitReply`.
   */
  replyTo?: string;
}

/** A command as read from a stream: `id` orders entries and is what `ack` takes. */
export interface StreamEntry extends Command {
  id: string;
}

/**
 * The per-partition command log from API pods to the partition's leader.
 * Entries stay until the leader acknowledges them after committing, so a
 * leader that takes over reads from the start (`afterId` "0") and replays
 * what was not committed; commands are idempotent by key.
 */
export interface CommandStream {
  /** Appends a command; resolves to its entry id. */
  append(partition: number, command: Command): Promise<string>;
  /**
   * Backpressure and append in one step (one round trip, and no pod can
   * slip in between the check and the append): appends the command only
   * while fewer than `limit` entries are pending. 'full': nothing appended.
   */
  appendIfBelow(partition: number, command: Command, limit: number): Promise<'appended' | 'full'>;
  /**
   * Up to `max` entries with an id greater than `afterId` ("0" for the
   * start), oldest first. When there are none, waits up to `blockMs` (0: do
   * not wait) for one to be appended, then resolves `[]`.
   */
  read(partition: number, afterId: string, max: number, blockMs: number): Promise<StreamEntry[]>;
  /** Drops every entry up to and including `uptoId`: the leader committed them. */
  ack(partition: number, uptoId: string): Promise<void>;
  /** Entries appended and not yet acknowledged (for backpressure). */
  pending(partition: number): Promise<number>;
  /**
   * The id of the newest entry ("0" when the stream holds none). A leader
   * notes it when it takes over: an entry after it cannot have been applied
   * by an earlier leader, so a key generated for that one command (never
   * reused, never retried) needs no lookup in the command log.
   */
  lastEntryId(partition: number): Promise<string>;
  /** The id of the oldest entry not yet acknowledged ("0" when none): what a new leader replays first. */
  firstEntryId(partition: number): Promise<string>;
}

export interface Reply {
  commandKey: string;
  /** JSON-serialisable; `undefined` is delivered as `null`. */
  result: unknown;
  /** The command's `replyTo`, when it had one: the reply goes to that channel only. */
  replyTo?: string;
}

/** A waiter registered with `Replies.expectReply`. */
export interface ExpectedReply {
  /** The reply channel to put in the command's `replyTo`. */
  readonly channel: string;
  /** The result; `undefined` after the timeout, on cancel() or when the queues close. */
  readonly promise: Promise<unknown>;
  /** Stops waiting (the command was never appended, say); the promise resolves `undefined`. */
  cancel(): void;
}

/**
 * Committed results going back from the leader to the API pod waiting for
 * them. Two ways to wait:
 *
 * - `expectReply` (the hot path): register the waiter first, then append the
 *   command with `replyTo: channel`. The leader's `sendReplies` sends each
 *   reply carrying `replyTo` to that channel only: the waiting pod gets it,
 *   nobody else does, and nothing is kept (a waiter is always registered
 *   before its command exists, so nothing can arrive early).
 * - `waitReply` (by command key alone, from anywhere): for replies sent
 *   without `replyTo`. Such a reply is kept for a while (the reply TTL) so a
 *   waiter that comes late still gets it, and any number of waiters for the
 *   same command get the same reply.
 */
export interface Replies {
  /** The result of a command appended without `replyTo`, or `undefined` after `timeoutMs`. */
  waitReply(commandKey: string, timeoutMs: number): Promise<unknown>;
  /**
   * Registers a waiter for `commandKey`; resolves once a reply sent to
   * `channel` from now on reaches it (Redis: unless the subscriber
   * connection drops meanwhile, see redis/replies.ts). Call it BEFORE
   * appending the command, and cancel() it if the append fails.
   */
  expectReply(commandKey: string, timeoutMs: number): Promise<ExpectedReply>;
  sendReplies(replies: readonly Reply[]): Promise<void>;
}

/**
 * What a partition leader makes visible once a batch is committed. `publish`
 * carries it out in the order of the fields (a job pushed and removed in
 * one batch ends up removed; replies go out only after the jobs they
 * created are queued; the stream is acknowledged last) and, on Redis, in one
 * round trip. Each part means what the JobQueue / Replies / CommandStream
 * method of the same name means.
 */
export interface Publication {
  push?: readonly QueuedJob[];
  /** Waiting jobs whose instance's variables changed (`updateVariables`). */
  variables?: readonly { account: string; jobKey: string; variables: Variables }[];
  requeue?: readonly QueuedJob[];
  remove?: readonly { account: string; jobKeys: readonly string[] }[];
  replies?: readonly Reply[];
  /** Acknowledges the partition's stream up to and including `uptoId`. */
  ack?: { partition: number; uptoId: string };
}

/**
 * Cluster-wide notices between pods (Redis pub/sub; in-process listeners
 * with the local queues): best effort and not kept — whoever relies on one
 * must also be right without it, later (a cache with a short life, say).
 */
export interface Notices {
  publish(topic: string, message: string): Promise<void>;
  /** Resolves once listening (a notice published from then on is heard) with the function that stops it. */
  subscribe(topic: string, onNotice: (message: string) => void): Promise<() => void>;
}

/** Everything the engine and the API need from the fast path, behind one handle. */
export interface Queues {
  readonly kind: 'redis' | 'local';
  readonly jobs: JobQueue;
  readonly commands: CommandStream;
  readonly replies: Replies;
  readonly notices: Notices;
  /** Carries out a committed batch's Publication, in order. */
  publish(publication: Publication): Promise<void>;
  /** Resolves once the backing service answers (Redis PING); at once in process. Readiness probes use it. */
  ping(): Promise<void>;
  /** Settles every pending wait (false / undefined) and releases connections. */
  close(): Promise<void>;
}

export interface QueuesOptions {
  /** Absent: the in-process implementation. */
  redisUrl?: string;
  /** Prefix of every Redis key and channel; must not contain `{` or `}`. Default `orca:`. */
  prefix?: string;
  /** How long a reply sent without `replyTo` is kept for a late `waitReply`. Default 60 s. */
  replyTtlMs?: number;
  /**
   * Last-resort bound on a command stream's length (approximate trimming on
   * append). The API's backpressure threshold on `pending` must stay well
   * below it. Default 1,000,000.
   */
  streamMaxLength?: number;
}
