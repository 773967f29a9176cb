// The job workers of bench:e2e's load (bench-e2e-load.ts), in two kinds so
// that the cost of the client library can be measured against the
// hand-written loop on the same server in one invocation (--compare-workers):
// - `loop`: activate up to maxJobs, complete them all concurrently, poll
//   again — raw undici requests on the workers' connection pool;
// - `library`: client/'s createWorker with its defaults (activation
//   threshold, Idempotency-Key on each completion, its own keep-alive
//   connection pools), as a user would run it.
// Both record the same figures in the tracker and count failures the same way.
import { createWorker, OrcaClient } from '../client/index.ts';
import { REQUEST_TIMEOUT_MS, type Client } from './bench-e2e-client.ts';
import type { LoadSettings } from './bench-e2e-load.ts';
import type { Tracker } from './bench-e2e-tracker.ts';

export type WorkerKind = 'loop' | 'library';

export const WORKER_KINDS: readonly WorkerKind[] = ['loop', 'library'];

export interface WorkerContext {
  baseUrl: string;
  apiKey: string;
  client: Client;
  settings: LoadSettings;
  tracker: Tracker;
  counters: { activations: number; empty: number };
  jobType: string;
  /** A failed check of the run (a job handed out twice, one of the wrong type). */
  checkFailed: (message: string) => Error;
}

export interface RunningWorkers {
  /** Stops polling and lets the jobs in hand complete. */
  stop(): Promise<void>;
}

const now = () => performance.now();

export function startWorkers(kind: WorkerKind, context: WorkerContext): RunningWorkers {
  return kind === 'library' ? libraryWorkers(context) : loopWorkers(context);
}

/** The bookkeeping of a job handed to a worker, the same for both kinds. */
function activated(context: WorkerContext, job: { key: string; processInstanceKey: string; type: string }, at: number, wallMs: number): void {
  const { tracker } = context;
  const entry = tracker.entry(job.processInstanceKey);
  if (job.type !== context.jobType) tracker.fail(context.checkFailed(`activated a job of type '${job.type}'; only '${context.jobType}' was asked for`));
  if (entry.activatedAt !== undefined)
    tracker.fail(context.checkFailed(`instance ${job.processInstanceKey}: its job was handed out twice (${entry.jobKey}, ${job.key})`));
  entry.activatedAt = at;
  entry.activatedWallMs = wallMs;
  entry.jobKey = job.key;
}

function loopWorkers(context: WorkerContext): RunningWorkers {
  const { client, settings, tracker, counters } = context;
  const stopWorkers = new AbortController();
  const worker = async (name: string) => {
    while (!stopWorkers.signal.aborted) {
      const answer = await client.call('activate', 'POST', '/api/v1/jobs/activate', {
        json: {
          type: context.jobType,
          maxJobsToActivate: settings.maxJobs,
          worker: name,
          ...(settings.longPollMs > 0 ? { requestTimeout: settings.longPollMs } : {}),
        },
        timeoutMs: settings.longPollMs + REQUEST_TIMEOUT_MS,
        // Not aborted on stop: the server would still hand jobs to a long poll whose client has gone, and
        // they would stay with this worker name for good (no lock period), lost to the next run on the server.
      });
      const activatedAt = now();
      const activatedWallMs = Date.now();
      if (answer === undefined) {
        // An error was counted; do not hammer a failing server.
        if (!stopWorkers.signal.aborted) await sleepUnlessStopped(100, stopWorkers.signal);
        continue;
      }
      counters.activations++;
      const jobs = (answer.body?.jobs ?? []) as { key: string; processInstanceKey: string; type: string }[];
      if (jobs.length === 0) {
        counters.empty++;
        // SPEC.md "Polling guidance"; with long polling the server has waited already.
        if (settings.longPollMs === 0) await sleepUnlessStopped(1_000 + Math.random() * 4_000, stopWorkers.signal);
        continue;
      }
      await Promise.all(
        jobs.map(async (job) => {
          activated(context, job, activatedAt, activatedWallMs);
          tracker.entry(job.processInstanceKey).completeSentAt = now();
          const done = await client.call('complete', 'POST', `/api/v1/jobs/${job.key}/complete`, { json: { variables: { done: true } } });
          if (done !== undefined) tracker.completed(job.processInstanceKey, now());
        }),
      );
    }
  };
  const running = Array.from({ length: settings.workers }, (_, i) => worker(`bench-e2e-${i}`));
  return {
    async stop() {
      stopWorkers.abort();
      await Promise.all(running);
    },
  };
}

function libraryWorkers(context: WorkerContext): RunningWorkers {
  const { client, settings, tracker, counters } = context;
  const orca = new OrcaClient({ url: context.baseUrl, apiKey: context.apiKey });
  const workers = Array.from({ length: settings.workers }, (_, i) =>
    createWorker({
      client: orca,
      type: context.jobType,
      name: `bench-e2e-library-${i}`,
      maxJobsActive: settings.maxJobs,
      requestTimeout: settings.longPollMs > 0 ? settings.longPollMs : undefined,
      handler: (job) => {
        activated(context, job, now(), Date.now());
        tracker.entry(job.processInstanceKey).completeSentAt = now();
        return { done: true };
      },
      onEvent: (event) => {
        switch (event.type) {
          case 'poll':
            counters.activations++;
            if (event.activated === 0) counters.empty++;
            break;
          case 'job-duplicate':
            tracker.fail(context.checkFailed(`instance ${event.job.processInstanceKey}: its job ${event.job.key} was handed out twice`));
            break;
          case 'job-completed':
            tracker.completed(event.job.processInstanceKey, now());
            break;
          case 'poll-error':
            client.countError(`activate ${errorKind(event.error)}`);
            break;
          case 'outcome-retry':
            client.countError(`complete ${errorKind(event.error)} (repeated)`);
            break;
          case 'outcome-refused':
            client.countError(`complete ${errorKind(event.error)}`);
            break;
          default:
        }
      },
    }),
  );
  return {
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      // As a user would when done: otherwise its idle connections outlive the run, into the next ones.
      await orca.close();
    },
  };
}

function errorKind(error: unknown): string {
  const { status, code } = (error ?? {}) as { status?: number; code?: string };
  return status ? String(status) : (code ?? 'error');
}

async function sleepUnlessStopped(ms: number, stop: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
  });
}
