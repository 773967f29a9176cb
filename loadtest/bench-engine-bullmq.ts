// BullMQ's side of `bench:engine`: the yardstick for what a Redis job queue
// does on this machine, run as the issue names it — bulk add, then process.
// The same number of bare jobs as Orca completed in its window are added
// with addBulk in chunks; then one Worker (concurrency 16, a processor that
// returns at once) takes them all. The rate is over both phases, from the
// first add to the last completion: Orca's figure also pays for creating
// its work (every start is a command, a commit and a push), so a
// processing-only rate would flatter the comparison. Both phases are
// reported on their own too. (Adding while the worker already runs lets the
// two overlap on the machine's two cores and reads about 10 % higher; the
// issue's peer adds first.) Completed jobs are removed, as Orca removes a
// completed job from Redis. The run checks itself: every job processed
// once, nothing left waiting, active or failed.
import { Queue, Worker } from 'bullmq';
import { BenchmarkCheckFailed } from './bench-core-run.ts';
import type { BullmqRun } from './bench-engine-run.ts';
import type { Scratch, Services } from './bench-engine-services.ts';

const QUEUE_NAME = 'bench';
const ADD_CHUNK = 1_000;
export const BULLMQ_CONCURRENCY = 16;
/** The whole run, adds and processing, must end within this; otherwise it is stuck. */
const RUN_TIMEOUT_MS = 120_000;

export interface BullmqOptions {
  services: Services;
  scratch: Scratch;
  jobs: number;
  signal?: AbortSignal;
}

export async function runBullmq(options: BullmqOptions): Promise<BullmqRun> {
  const total = options.jobs;
  if (!Number.isInteger(total) || total < 1) throw new BenchmarkCheckFailed(`BullMQ needs at least one job, not ${total}`);
  const connection = { url: options.services.redisUrl };
  const prefix = options.scratch.bullmqPrefix;
  const queue = new Queue(QUEUE_NAME, { connection, prefix, defaultJobOptions: { removeOnComplete: true, removeOnFail: false } });
  const processed = new Map<string, number>();
  const seen = new Set<string>();
  let failure: Error | undefined;
  let finish: () => void = () => undefined;
  let abort: (err: Error) => void = () => undefined;
  const allDone = new Promise<void>((resolve, reject) => {
    finish = resolve;
    abort = reject;
  });
  // A failure during the adds rejects this before anyone awaits it; it is awaited below.
  allDone.catch(() => undefined);
  const worker = new Worker(
    QUEUE_NAME,
    async (job) => {
      // Counted here as well as on 'completed': a job processed twice is a defect even if reported once.
      processed.set(job.id!, (processed.get(job.id!) ?? 0) + 1);
    },
    // Started once every job is added.
    { connection, prefix, concurrency: BULLMQ_CONCURRENCY, autorun: false },
  );
  worker.on('completed', (job) => {
    if (seen.has(job.id!)) {
      failure ??= new BenchmarkCheckFailed(`BullMQ completed job ${job.id} twice`);
      abort(failure);
    }
    seen.add(job.id!);
    if (seen.size === total) finish();
  });
  worker.on('failed', (job, err) => {
    failure ??= new BenchmarkCheckFailed(`BullMQ job ${job?.id ?? '?'} failed: ${err.message}`);
    abort(failure);
  });
  worker.on('error', (err) => {
    failure ??= err;
    abort(err);
  });
  const onAbort = () => abort(new Error('interrupted'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const timeout = setTimeout(
    () => abort(new BenchmarkCheckFailed(`BullMQ: ${seen.size} of ${total} jobs completed after ${RUN_TIMEOUT_MS} ms`)),
    RUN_TIMEOUT_MS,
  );
  try {
    // Connections and scripts are ready before the clock starts, as Orca's engine is before its window.
    await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
    const startedAt = performance.now();
    for (let first = 0; first < total && failure === undefined; first += ADD_CHUNK) {
      const count = Math.min(ADD_CHUNK, total - first);
      await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'work', data: { n: first + i } })));
    }
    const addedAt = performance.now();
    worker.run().catch((err: unknown) => {
      failure ??= err instanceof Error ? err : new Error(String(err));
      abort(failure);
    });
    await allDone;
    const endedAt = performance.now();
    const seconds = (endedAt - startedAt) / 1000;
    await check(queue, total, processed, seen);
    return {
      jobs: total,
      seconds,
      addSeconds: (addedAt - startedAt) / 1000,
      processSeconds: (endedAt - addedAt) / 1000,
      perSecond: total / seconds,
      concurrency: BULLMQ_CONCURRENCY,
    };
  } finally {
    clearTimeout(timeout);
    options.signal?.removeEventListener('abort', onAbort);
    await worker.close(true).catch(() => undefined);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close().catch(() => undefined);
  }
}

async function check(queue: Queue, total: number, processed: Map<string, number>, seen: Set<string>): Promise<void> {
  if (seen.size !== total) throw new BenchmarkCheckFailed(`BullMQ reported ${seen.size} of ${total} jobs completed`);
  if (processed.size !== total) throw new BenchmarkCheckFailed(`BullMQ's processor saw ${processed.size} distinct jobs, ${total} were added`);
  const twice = [...processed].filter(([, n]) => n !== 1);
  if (twice.length > 0) throw new BenchmarkCheckFailed(`BullMQ processed ${twice.length} jobs more than once (first: ${twice[0][0]})`);
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children');
  const left = Object.entries(counts).filter(([, n]) => n > 0);
  if (left.length > 0) throw new BenchmarkCheckFailed(`BullMQ left jobs behind: ${left.map(([state, n]) => `${n} ${state}`).join(', ')}`);
}
