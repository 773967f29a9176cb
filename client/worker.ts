// createWorker: a job worker in the manner of Camunda 8's clients. It keeps
// up to `maxJobsActive` jobs in hand and activates more once it holds no
// more than `activateThreshold` of that (once the outcomes already on their
// way are answered, so one activation fills their places too); runs the
// handler on each job; a returned object completes the job with those
// variables, a thrown error fails it with `retries - 1` and the message, a
// thrown BpmnError throws that BPMN error for it (an extension route). An
// empty poll sleeps 1 to 5 s with jitter (SPEC.md's guidance) unless the
// worker long-polls (`requestTimeout`, an extension). A job's outcome, once
// known, is sent until the server takes it (with one Idempotency-Key for all
// its repeats), since the job stays with this worker otherwise (SPEC.md: no
// lock period). stop() lets the jobs in hand finish and their outcomes be
// sent, and closes the client if the worker made it (one passed in stays
// open).
import { OrcaError } from './errors.ts';
import { OrcaClient, type OrcaClientOptions } from './orca-client.ts';
import { backoffMs, retryPolicy } from './retry.ts';
import { sleep as defaultSleep } from './transport.ts';
import type { ActivatedJob, AdHocJobResult, Variables } from './types.ts';

/**
 * Returned by a handler to complete the job of an ad-hoc subprocess with a
 * job result (extension, Zeebe 8.8's job worker implementation; docs/api.md):
 * the inner elements to activate, and whether its completion condition is
 * fulfilled — an AI agent's next tool calls, or its answer.
 */
export class CompletionWithResult {
  constructor(
    readonly result: AdHocJobResult,
    readonly variables?: Variables,
  ) {}
}

/** What a handler returns: variables to complete the job with, a completion with a job result, or nothing. */
export type HandlerResult = Variables | CompletionWithResult | void | undefined | null;

export type JobHandler = (job: ActivatedJob) => HandlerResult | Promise<HandlerResult>;

/**
 * Thrown by a handler to choose how its job fails: with `retries` left
 * (default: the job's retries minus one), and, since the server offers a
 * failed job again at once (SPEC.md), after waiting `retryBackoffMs` while
 * still holding it (SPEC.md: "a worker that needs delay … waits itself").
 */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  readonly retries?: number;
  readonly retryBackoffMs?: number;
  constructor(message: string, options: { retries?: number; retryBackoffMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retries = options.retries;
    this.retryBackoffMs = options.retryBackoffMs;
  }
}

/**
 * Thrown by a handler to throw a BPMN error for its job instead of failing
 * it (extension: POST /api/v1/jobs/{jobKey}/error): the error boundary event
 * or error event subprocess catching `code` takes over, with `variables` set
 * where it is caught; when none catches it, the instance gets an incident.
 */
export class BpmnError extends Error {
  override readonly name = 'BpmnError';
  readonly code: string;
  /** The message sent to the server (the Error's own message falls back to the code). */
  readonly errorMessage?: string;
  readonly variables?: Variables;
  constructor(code: string, message?: string, variables?: Variables) {
    super(message ?? code);
    this.code = code;
    this.errorMessage = message;
    this.variables = variables;
  }
}

export type WorkerEvent =
  | { type: 'poll'; requested: number; activated: number }
  | { type: 'poll-error'; error: unknown; delayMs: number }
  | { type: 'job-started'; job: ActivatedJob }
  /** The server handed out a job this worker already holds; its handler is not run again. */
  | { type: 'job-duplicate'; job: ActivatedJob }
  | { type: 'job-completed'; job: ActivatedJob; durationMs: number }
  | { type: 'job-failed'; job: ActivatedJob; durationMs: number; retries: number; error: unknown }
  /** The handler threw a BpmnError and the server took it. */
  | { type: 'job-error-thrown'; job: ActivatedJob; durationMs: number; error: BpmnError }
  /** Sending the outcome got no answer (or 429/503); it is sent again with the same Idempotency-Key. */
  | { type: 'outcome-retry'; job: ActivatedJob; outcome: Outcome; error: unknown; delayMs: number }
  /** The server refused the outcome (404: the job is gone, e.g. its instance was cancelled; 409; 400). */
  | { type: 'outcome-refused'; job: ActivatedJob; outcome: Outcome; error: unknown; repeated: boolean }
  | { type: 'stopped' };

type Outcome = 'complete' | 'fail' | 'error';

export interface WorkerOptions {
  /** A client to share (the caller closes it); otherwise one is made from url, apiKey and token, and closed by stop(). */
  client?: OrcaClient;
  url?: string;
  apiKey?: string;
  token?: OrcaClientOptions['token'];
  /** The job type to work on. */
  type: string;
  handler: JobHandler;
  /** Recorded on the jobs this worker holds (default `<type>-worker`). */
  name?: string;
  /** Most jobs in hand at once (default 32). */
  maxJobsActive?: number;
  /** Activate more once the jobs in hand are at most this share of maxJobsActive (default 0.3, as Camunda 8's clients); 1 means whenever there is room. */
  activateThreshold?: number;
  /** Sleep after an empty poll: a range picked from uniformly, or a fixed time (default [1000, 5000]). */
  pollIntervalMs?: number | [number, number];
  /** Extension: long-poll, the server holding an empty poll up to this many ms (at most 60,000). */
  requestTimeout?: number;
  /**
   * Extension (Zeebe's job timeout): the server offers a job again when this worker has neither completed nor
   * failed it within this many ms (at most one day); a completion sent after that is taken while the job exists.
   */
  timeout?: number;
  /** Logging and metrics. An exception thrown here is ignored. */
  onEvent?: (event: WorkerEvent) => void;
  /** Tests. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface WorkerStats {
  active: number;
  completed: number;
  failed: number;
  /** Jobs the handler threw a BpmnError for. */
  errored: number;
  polls: number;
}

export interface Worker {
  readonly name: string;
  readonly type: string;
  stats(): WorkerStats;
  /** Stops activating, lets the jobs in hand finish and their outcomes be sent, closes a client the worker made, then resolves. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped. */
  readonly stopped: Promise<void>;
}

const OUTCOME_RETRY = retryPolicy({ baseMs: 200, maxMs: 5_000 });
const POLL_ERROR_RETRY = retryPolicy({ baseMs: 250, maxMs: 5_000 });
/** What the server keeps of an error message (engine/limits.ts maxTextLength). */
const MAX_MESSAGE = 10_000;
/** What inHand holds for a job while its handle() starts. */
const HELD: Promise<void> = Promise.resolve();
const SENT = () => true;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** An error's message; a thrown value that cannot even be turned into text still fails its job. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'the handler threw a value that has no text';
  }
}

export function createWorker(options: WorkerOptions): Worker {
  if (typeof options?.handler !== 'function') throw new TypeError('createWorker: `handler` must be a function');
  if (!options.type) throw new TypeError('createWorker: `type` is required');
  if (!options.client && !options.url) throw new TypeError('createWorker: pass `client`, or `url` (and `apiKey`)');
  const ownClient = options.client === undefined;
  const client = options.client ?? new OrcaClient({ url: options.url!, apiKey: options.apiKey, token: options.token });
  const maxJobsActive = Math.max(1, Math.floor(options.maxJobsActive ?? 32));
  // Below maxJobsActive even at a share of 1: a poll asks for at least one job (the server refuses 0).
  const threshold = Math.min(maxJobsActive - 1, Math.floor(maxJobsActive * Math.min(1, Math.max(0, options.activateThreshold ?? 0.3))));
  const interval = options.pollIntervalMs ?? [1_000, 5_000];
  const [minSleep, maxSleep] = typeof interval === 'number' ? [interval, interval] : interval;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  // Worker names are ids on the server: at most 255 characters.
  const name = options.name ?? `${options.type}-worker`.slice(0, 255);

  const inHand = new Map<string, Promise<void>>();
  /** The jobs in hand whose handler is done and whose outcome is on its way to the server. */
  const sending = new Set<string>();
  const stats: WorkerStats = { active: 0, completed: 0, failed: 0, errored: 0, polls: 0 };
  // Aborted by stop(): ends the poll loop's sleeps and retry back-offs early, never a request in flight.
  const stopping = new AbortController();
  let capacityFreed: (() => void) | undefined;

  const onEvent = options.onEvent;

  function emit(event: WorkerEvent): void {
    try {
      onEvent?.(event);
    } catch {
      // A logging hook must not take the worker down.
    }
  }

  async function pause(ms: number): Promise<void> {
    await sleep(ms, stopping.signal).catch(() => {});
  }

  async function pollLoop(): Promise<void> {
    let errors = 0;
    while (!stopping.signal.aborted) {
      if (inHand.size > threshold) {
        await new Promise<void>((resolve) => (capacityFreed = resolve));
        continue;
      }
      if (sending.size > 0) {
        // The threshold is there so that handlers never wait for a poll; outcomes on their way need no new
        // jobs, and free their places within one round trip. Polling before they are answered would split
        // the next activation in two, and the server would get its completions in two smaller groups.
        await Promise.allSettled([...sending].map((key) => inHand.get(key) ?? Promise.resolve()));
        continue;
      }
      const requested = maxJobsActive - inHand.size;
      let jobs: ActivatedJob[];
      try {
        // Never aborted: jobs the server activated for a request whose answer is dropped stay with this worker for good.
        const request = { type: options.type, maxJobsToActivate: requested, worker: name, requestTimeout: options.requestTimeout };
        jobs = await client.activateJobs(options.timeout ? { ...request, timeout: options.timeout } : request);
        errors = 0;
      } catch (error) {
        const delayMs = Math.max(backoffMs(POLL_ERROR_RETRY, ++errors, random), error instanceof OrcaError ? (error.retryAfterMs ?? 0) : 0);
        emit({ type: 'poll-error', error, delayMs });
        await pause(delayMs);
        continue;
      }
      stats.polls++;
      emit({ type: 'poll', requested, activated: jobs.length });
      for (const job of jobs) {
        // The server hands a job out once; should it come again, its handler must not run twice here.
        if (inHand.has(job.key)) emit({ type: 'job-duplicate', job });
        else take(job);
      }
      if (jobs.length === 0 && !options.requestTimeout) await pause(minSleep + (maxSleep - minSleep) * random());
    }
  }

  function take(job: ActivatedJob): void {
    stats.active++;
    // Held before the handler starts: a handle() that ends without ever waiting has let go of it already.
    inHand.set(job.key, HELD);
    const done = handle(job);
    if (inHand.has(job.key)) inHand.set(job.key, done);
  }

  /** Lets go of a job once its outcome is sent or refused: its place is free for the next poll. */
  function release(key: string): void {
    inHand.delete(key);
    sending.delete(key);
    stats.active--;
    const wake = capacityFreed;
    capacityFreed = undefined;
    wake?.();
  }

  /**
   * Runs the handler and sends the outcome. A handler that answers at once
   * is not awaited, and nothing is timed or told when nobody listens: a
   * busy worker goes through here for every job.
   */
  async function handle(job: ActivatedJob): Promise<void> {
    try {
      if (onEvent !== undefined) emit({ type: 'job-started', job });
      const started = onEvent === undefined ? 0 : performance.now();
      let result: HandlerResult | Promise<HandlerResult>;
      try {
        result = options.handler(job);
        if (isThenable(result)) result = await result;
        if (result !== undefined && result !== null && (typeof result !== 'object' || Array.isArray(result))) {
          throw new TypeError(`the handler returned ${Array.isArray(result) ? 'an array' : typeof result}; return an object of variables, or nothing`);
        }
      } catch (error) {
        await failed(job, error, started);
        return;
      }
      sending.add(job.key);
      const sent =
        result instanceof CompletionWithResult
          ? await sendOutcome(job, 'complete', (options) => client.completeJob(job.key, result.variables, { ...options, result: result.result }))
          : await sendOutcome(job, 'complete', (options) => client.completeJob(job.key, result ?? undefined, options));
      if (sent) {
        stats.completed++;
        if (onEvent !== undefined) emit({ type: 'job-completed', job, durationMs: performance.now() - started });
      }
    } finally {
      release(job.key);
    }
  }

  /** The handler threw: a BpmnError is thrown for the job, anything else fails it. */
  async function failed(job: ActivatedJob, error: unknown, started: number): Promise<void> {
    if (error instanceof BpmnError) {
      sending.add(job.key);
      const request = { errorCode: error.code, errorMessage: error.errorMessage?.slice(0, MAX_MESSAGE), variables: error.variables };
      if (await sendOutcome(job, 'error', (options) => client.throwJobError(job.key, request, options))) {
        stats.errored++;
        emit({ type: 'job-error-thrown', job, durationMs: performance.now() - started, error });
      }
      return;
    }
    const failure = error instanceof JobFailure ? error : undefined;
    const retries = Math.max(0, Math.floor(failure?.retries ?? job.retries - 1));
    if (failure?.retryBackoffMs && retries > 0) await pause(failure.retryBackoffMs);
    const message = messageOf(error).slice(0, MAX_MESSAGE);
    sending.add(job.key);
    const sent = await sendOutcome(job, 'fail', (options) => client.failJob(job.key, { retries, errorMessage: message }, options));
    if (sent) {
      stats.failed++;
      emit({ type: 'job-failed', job, durationMs: performance.now() - started, retries, error });
    }
  }

  /**
   * Sends a known outcome until the server answers it. One Idempotency-Key
   * for every repeat: a server that honours it answers a repeat with the
   * first result; one that does not answers 404 to the repeat of an applied
   * completion (the job is gone), which is reported with `repeated: true`.
   */
  function sendOutcome(job: ActivatedJob, outcome: Outcome, send: (options: { idempotencyKey: string }) => Promise<void>): Promise<boolean> {
    const idempotencyKey = crypto.randomUUID();
    return send({ idempotencyKey }).then(SENT, (error: unknown) => resend(job, outcome, send, idempotencyKey, error));
  }

  /** After the first sending of an outcome failed with `error`: sent again, with the same key, while that may help. */
  async function resend(
    job: ActivatedJob,
    outcome: Outcome,
    send: (options: { idempotencyKey: string }) => Promise<void>,
    idempotencyKey: string,
    error: unknown,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      if (!(error instanceof OrcaError) || !error.retryable) {
        emit({ type: 'outcome-refused', job, outcome, error, repeated: attempt > 1 });
        return false;
      }
      const delayMs = Math.max(backoffMs(OUTCOME_RETRY, attempt, random), error.retryAfterMs ?? 0);
      emit({ type: 'outcome-retry', job, outcome, error, delayMs });
      // Not cut short by stop(): stop() waits for outcomes to be sent.
      await sleep(delayMs);
      try {
        await send({ idempotencyKey });
        return true;
      } catch (next) {
        error = next;
      }
    }
  }

  const loop = pollLoop();
  let stopped: Promise<void> | undefined;

  function stop(): Promise<void> {
    stopped ??= (async () => {
      stopping.abort();
      capacityFreed?.();
      await loop;
      // Jobs taken by the last poll are in hand too; wait until none is left.
      while (inHand.size > 0) await Promise.allSettled([...inHand.values()]);
      if (ownClient) await client.close();
      emit({ type: 'stopped' });
    })();
    return stopped;
  }

  let resolveStopped: () => void = () => {};
  const whenStopped = new Promise<void>((resolve) => (resolveStopped = resolve));

  return {
    name,
    type: options.type,
    stats: () => ({ ...stats }),
    async stop() {
      await stop();
      resolveStopped();
    },
    stopped: whenStopped,
  };
}
