// The load `bench:e2e` puts on a running Orca over HTTP (undici), the same
// scenarios as the k6 scripts in loadtest/k6: starters and polling job
// workers on the one-service-task model. A phase is either an open model
// (instances arrive at a fixed rate, whatever the latency, like k6's
// constant-arrival-rate) or a closed model (N starter lanes, each starting
// an instance and waiting until its job is completed before the next: the
// maximum throughput at that concurrency). Workers (bench-e2e-workers.ts: the
// hand-written loop or the client library's) run through all phases,
// activating up to `maxJobs` jobs per call and completing them concurrently.
// Every instance is tracked by its key from the start request to the
// completion acknowledgement; afterwards each counted instance is looked up
// over the API and must be COMPLETED. Failed requests are counted, not
// thrown: the report says how many and of which kind.
import { readFileSync } from 'node:fs';
import { percentile } from './bench-engine-run.ts';
import { Client, VERIFY_CONCURRENCY } from './bench-e2e-client.ts';
import { Tracker, type Tracked } from './bench-e2e-tracker.ts';
import { startWorkers, type WorkerKind } from './bench-e2e-workers.ts';

export const MODEL_FILE = new URL('./k6/models/service-task.bpmn', import.meta.url);
export const PROCESS_ID = 'orca-load-service-task';
export const JOB_TYPE = 'orca-load-work';

/** How long a phase waits, after its last start, for the instances still in flight. */
const DRAIN_TIMEOUT_MS = 30_000;

export interface LoadSettings {
  /** Open model: instances started per second. */
  rate: number;
  /** Closed model: starter lanes. */
  concurrency: number;
  workers: number;
  /** maxJobsToActivate of each activation. */
  maxJobs: number;
  /** requestTimeout of an activation (long polling); 0 polls as SPEC.md says, sleeping 1–5 s on an empty answer. */
  longPollMs: number;
  /** Open model: start requests in flight at most; an arrival beyond that is dropped (k6's dropped_iterations). */
  maxInFlight: number;
  /** The hand-written loop (default) or the client library's createWorker (bench-e2e-workers.ts). */
  workerKind?: WorkerKind;
  /** The hand-written loop sends an Idempotency-Key on each completion, as the library does (--loop-keys). */
  loopKeys?: boolean;
}

export interface PhasePlan {
  name: string;
  model: 'open' | 'closed';
  seconds: number;
  /** Warm-up phases are run, checked and verified, but not reported. */
  warmup?: boolean;
}

export interface Summary {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface PhaseResult {
  name: string;
  model: 'open' | 'closed';
  warmup: boolean;
  windowSeconds: number;
  /** What the phase asked for: instances/s (open) or starter lanes (closed). */
  load: number;
  /** Start requests answered 201. */
  started: number;
  /** Instances whose job completion was acknowledged (all of the phase's, unless requests failed). */
  completed: number;
  /** Of those, completions acknowledged inside the window: the rate's numerator. */
  completedInWindow: number;
  perSecond: number;
  /** Start request sent → job completion acknowledged. */
  startToComplete: Summary;
  /**
   * Job created → the activation response that handed it to a worker. "Created" is the
   * instance's createdAt as the API returns it: the job row is written in the same
   * transaction, whose start time that is. Server and client clocks are compared,
   * which holds when the database runs on this host (as bench:e2e's do).
   */
  activation: Summary;
  /** Jobs handed out before their start response arrived: the leader queues the job before it replies. */
  activatedBeforeStartAnswered: number;
  startCall: Summary;
  completeCall: Summary;
  /** Open model: arrivals not sent because maxInFlight starts were outstanding. */
  dropped: number;
  /** Open model: the latest a start went out after its scheduled time, ms. */
  maxSendLagMs: number;
  /** Started but not completed by the end of the drain. */
  incomplete: number;
  errors: number;
  /** This process's CPU (the load generator) over the phase and its drain, in % of one core: a client near 100 % limits the figures. */
  clientCpuPercent: number;
}

export interface LoadResult {
  phases: PhaseResult[];
  /** Failed requests by `<operation> <status or error code>`, over the whole run. */
  errorsByKind: Record<string, number>;
  errors: number;
  /** Instances counted as completed (all phases) and found COMPLETED over the API. */
  counted: number;
  verified: number;
  /** Jobs of instances no start answered (possible only after a failed start request). */
  unmatchedJobs: number;
  activations: number;
  emptyActivations: number;
}

export class LoadCheckFailed extends Error {}

export interface PhaseState {
  plan: PhasePlan;
  windowStart: number;
  windowEnd: number;
  keys: string[];
  /** Failed requests while the phase ran and drained. */
  requestErrors: number;
  dropped: number;
  maxSendLagMs: number;
  startCalls: number[];
  inFlightStarts: number;
  clientCpuPercent: number;
}

const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Told when each phase begins and when it ends (its drain included), to measure beside the load. */
export interface PhaseHooks {
  begin(phase: string): Promise<void>;
  end(phase: string): Promise<void>;
}

export async function runLoad(
  baseUrl: string,
  apiKey: string,
  settings: LoadSettings,
  plans: PhasePlan[],
  signal?: AbortSignal,
  hooks?: PhaseHooks,
): Promise<LoadResult> {
  const client = new Client(baseUrl, apiKey, settings);
  try {
    const deployed = await client.call('deploy', 'POST', `/api/v1/process-definitions?resourceName=service-task.bpmn`, {
      xml: readFileSync(MODEL_FILE, 'utf8'),
    });
    if (deployed?.body?.id !== PROCESS_ID) throw new LoadCheckFailed(`deploying ${MODEL_FILE.pathname} failed (${JSON.stringify([...client.errorsByKind])})`);

    const tracker = new Tracker();
    const { tracked } = tracker;
    const counters = { activations: 0, empty: 0 };
    const onAbort = () => tracker.fail(new Error('interrupted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    const start = async (phase: PhaseState): Promise<string | undefined> => {
      const sentAt = now();
      phase.inFlightStarts++;
      const answer = await client.call('start', 'POST', '/api/v1/process-instances', {
        json: { bpmnProcessId: PROCESS_ID, variables: { phase: phase.plan.name } },
      });
      phase.inFlightStarts--;
      const startedAt = now();
      if (answer === undefined) return undefined;
      const key: unknown = answer.body?.processInstanceKey;
      if (typeof key !== 'string') {
        tracker.fail(new LoadCheckFailed(`a start answered ${answer.status} without a processInstanceKey`));
        return undefined;
      }
      const entry = tracker.entry(key);
      if (entry.phase !== undefined) tracker.fail(new LoadCheckFailed(`instance key ${key} was returned by two starts`));
      Object.assign(entry, { phase, sentAt, startedAt });
      phase.keys.push(key);
      phase.startCalls.push(startedAt - sentAt);
      return key;
    };
    const failed = () => tracker.failure !== undefined;

    const workers = startWorkers(settings.workerKind ?? 'loop', {
      baseUrl,
      apiKey,
      client,
      settings,
      tracker,
      counters,
      jobType: JOB_TYPE,
      checkFailed: (message) => new LoadCheckFailed(message),
    });
    const phases: PhaseState[] = [];
    try {
      for (const plan of plans) {
        if (failed()) break;
        await hooks?.begin(plan.name);
        const windowStart = now();
        const phase: PhaseState = {
          plan,
          windowStart,
          windowEnd: windowStart + plan.seconds * 1000,
          keys: [],
          requestErrors: 0,
          dropped: 0,
          maxSendLagMs: 0,
          startCalls: [],
          inFlightStarts: 0,
          clientCpuPercent: 0,
        };
        const cpuBefore = process.cpuUsage();
        phases.push(phase);
        const clientErrorsBefore = client.errors;
        if (plan.model === 'open') await openModel(phase, settings, start, failed);
        else await closedModel(phase, settings, start, (key, deadline) => tracker.completion(key, deadline), failed);
        // Drain: every instance of the phase gets its chance to complete before the next phase starts.
        const deadline = now() + DRAIN_TIMEOUT_MS;
        for (const key of phase.keys) await tracker.completion(key, deadline);
        phase.requestErrors = client.errors - clientErrorsBefore;
        const cpu = process.cpuUsage(cpuBefore);
        phase.clientCpuPercent = ((cpu.user + cpu.system) / 1000 / (now() - windowStart)) * 100;
        await hooks?.end(plan.name);
      }
    } finally {
      await workers.stop();
      signal?.removeEventListener('abort', onAbort);
    }
    if (tracker.failure !== undefined) throw tracker.failure;

    let unmatchedJobs = 0;
    for (const entry of tracked.values()) if (entry.phase === undefined) unmatchedJobs++;
    const counted = [...tracked].filter(([, e]) => e.phase !== undefined && e.completedAt !== undefined).map(([key]) => key);
    if (client.errors === 0 && unmatchedJobs > 0)
      throw new LoadCheckFailed(`${unmatchedJobs} jobs belonged to instances no start request returned, with no failed request to explain them`);
    const createdAt = await verifyCompleted(client, counted);
    return {
      phases: phases.filter((p) => !p.plan.warmup).map((p) => phaseResult(p, tracked, createdAt, settings)),
      errorsByKind: Object.fromEntries(client.errorsByKind),
      // A request that failed, plus an instance that never completed (a timeout of the whole round trip).
      errors: client.errors + phases.reduce((sum, p) => sum + p.keys.filter((k) => tracked.get(k)!.completedAt === undefined).length, 0),
      counted: counted.length,
      verified: createdAt.size,
      unmatchedJobs,
      activations: counters.activations,
      emptyActivations: counters.empty,
    };
  } finally {
    await client.close();
  }
}

/** Arrivals at fixed times i/rate from the window's start, sent whether or not earlier ones were answered. */
async function openModel(
  phase: PhaseState,
  settings: LoadSettings,
  start: (p: PhaseState) => Promise<string | undefined>,
  failed: () => boolean,
): Promise<void> {
  const interval = 1000 / settings.rate;
  const total = Math.floor(phase.plan.seconds * settings.rate);
  const pending: Promise<unknown>[] = [];
  let next = 0;
  while (next < total && !failed()) {
    const t = now();
    while (next < total && phase.windowStart + next * interval <= t) {
      phase.maxSendLagMs = Math.max(phase.maxSendLagMs, t - (phase.windowStart + next * interval));
      next++;
      if (phase.inFlightStarts >= settings.maxInFlight) phase.dropped++;
      else pending.push(start(phase));
    }
    const wait = phase.windowStart + next * interval - now();
    if (next < total && wait > 0) await sleep(Math.max(1, Math.floor(wait)));
  }
  // Each start ends within the request timeout.
  await Promise.all(pending);
}

/** `concurrency` lanes, each starting one instance and waiting for its completion, until the window ends. */
async function closedModel(
  phase: PhaseState,
  settings: LoadSettings,
  start: (p: PhaseState) => Promise<string | undefined>,
  completion: (key: string, deadline: number) => Promise<boolean>,
  failed: () => boolean,
): Promise<void> {
  const lane = async () => {
    while (now() < phase.windowEnd && !failed()) {
      const key = await start(phase);
      if (key === undefined) {
        await sleep(100);
        continue;
      }
      // A lane whose instance never completes stops (it is counted as incomplete) rather than waiting forever.
      if (!(await completion(key, now() + DRAIN_TIMEOUT_MS))) return;
    }
  };
  await Promise.all(Array.from({ length: settings.concurrency }, lane));
}

/**
 * Looks every counted instance up over the API. The list of COMPLETED
 * instances of the process (pages of 1,000) covers most at little cost; any
 * key it lacks is read on its own (GET /process-instances/:key) to say what
 * state it is in. Throws unless every one is COMPLETED; returns each one's
 * createdAt (epoch ms).
 */
async function verifyCompleted(client: Client, keys: string[]): Promise<Map<string, number>> {
  const completed = new Map<string, number>();
  let cursor: string | null = null;
  const maxPages = Math.ceil(keys.length / 1000) + 10;
  for (let page = 0; page < maxPages; page++) {
    const query = new URLSearchParams({ 'filter.state': 'COMPLETED', 'filter.bpmnProcessId': PROCESS_ID, limit: '1000' });
    if (cursor !== null) query.set('cursor', cursor);
    const answer = await client.call('verify', 'GET', `/api/v1/process-instances?${query}`);
    if (answer === undefined) break;
    for (const item of answer.body.items as { processInstanceKey: string; createdAt: string }[])
      completed.set(item.processInstanceKey, Date.parse(item.createdAt));
    cursor = answer.body.nextCursor as string | null;
    if (cursor === null) break;
  }
  const rest = keys.filter((key) => !completed.has(key));
  const wrong: string[] = [];
  for (let i = 0; i < rest.length; i += VERIFY_CONCURRENCY) {
    await Promise.all(
      rest.slice(i, i + VERIFY_CONCURRENCY).map(async (key) => {
        const answer = await client.call('verify', 'GET', `/api/v1/process-instances/${key}`);
        if (answer?.body?.state === 'COMPLETED') completed.set(key, Date.parse(answer.body.createdAt));
        else wrong.push(`${key} (${answer?.body?.state ?? 'not readable'})`);
      }),
    );
  }
  if (wrong.length > 0)
    throw new LoadCheckFailed(
      `${wrong.length} of ${keys.length} instances whose job completion was acknowledged are not COMPLETED: ${wrong.slice(0, 5).join(', ')}`,
    );
  // Only the counted ones: other COMPLETED instances (a start whose answer was lost) are not this run's figures.
  return new Map(keys.map((key) => [key, completed.get(key)!]));
}

export function summarise(samples: readonly number[]): Summary {
  return {
    samples: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: samples.length === 0 ? Number.NaN : samples.reduce((m, s) => (s > m ? s : m), -Infinity),
  };
}

function phaseResult(phase: PhaseState, tracked: Map<string, Tracked>, createdAt: Map<string, number>, settings: LoadSettings): PhaseResult {
  const startToComplete: number[] = [];
  const activation: number[] = [];
  const completeCall: number[] = [];
  let completed = 0;
  let completedInWindow = 0;
  let early = 0;
  for (const key of phase.keys) {
    const e = tracked.get(key)!;
    if (e.completedAt === undefined) continue;
    completed++;
    if (e.completedAt <= phase.windowEnd) completedInWindow++;
    startToComplete.push(e.completedAt - e.sentAt!);
    completeCall.push(e.completedAt - e.completeSentAt!);
    if (e.activatedAt! < e.startedAt!) early++;
    const created = createdAt.get(key);
    if (created === undefined || Number.isNaN(created)) throw new LoadCheckFailed(`instance ${key}: no createdAt from the API`);
    // createdAt has millisecond precision; a clock step could make it later than the activation.
    activation.push(Math.max(0, e.activatedWallMs! - created));
  }
  if (completed === 0) throw new LoadCheckFailed(`phase '${phase.plan.name}': no instance completed`);
  const windowSeconds = phase.plan.seconds;
  return {
    name: phase.plan.name,
    model: phase.plan.model,
    warmup: phase.plan.warmup === true,
    windowSeconds,
    load: phase.plan.model === 'open' ? settings.rate : settings.concurrency,
    started: phase.keys.length,
    completed,
    completedInWindow,
    perSecond: completedInWindow / windowSeconds,
    startToComplete: summarise(startToComplete),
    activation: summarise(activation),
    activatedBeforeStartAnswered: early,
    startCall: summarise(phase.startCalls),
    completeCall: summarise(completeCall),
    dropped: phase.dropped,
    maxSendLagMs: phase.maxSendLagMs,
    incomplete: phase.keys.length - completed,
    errors: phase.requestErrors + (phase.keys.length - completed),
    clientCpuPercent: phase.clientCpuPercent,
  };
}
