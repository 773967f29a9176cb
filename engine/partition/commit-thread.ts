// A shard's group commit in a worker thread of its own (Postgres only).
//
// The batch statement is a round trip, and on the main thread its result
// waits until the event loop gets to it — behind the API, the leaders'
// batch building and the queue traffic — before the next statement can go.
// Timed from both ends under bench:engine's load (a build instrumented with
// statement_timestamp() and clock_timestamp() against the client's clock,
// not committed, and the server log), a statement of about 40 instances
// took 7.3 ms from send to result, of which
// Postgres spent about 4.4 ms (bind, that is the payload's parse, 1.3 ms;
// execute 2.9 ms); the rest was the main thread's. In a thread whose event
// loop does nothing else, the group commit (commit-group.ts, unchanged: the
// same grouping, order and failure rules) sends the next statement the
// moment the last one returns, and the payload's assembly and the driver's
// encoding leave the main thread too. bench:engine run alternately on this
// commit and the one before (four pairs, 4 workers and 256 in flight): about
// +5 %; bench:e2e's closed model gave 2,840–3,183 instances/s in three
// runs, against 2,451–2,806 in twelve the same evening before.
//
// The leaders hand over sealed batches — a few strings, copied once by
// postMessage — and get each batch's outcome back; errors cross as plain
// data and become the store's error types again here.
import { Worker } from 'node:worker_threads';
import type { SealedBatch, WriterConnection } from '../store/index.ts';
import { BatchRejectedError, StaleEpochError, StoreUnavailableError } from '../store/index.ts';

/** Main thread → commit thread. */
export type ToThread = { type: 'commit'; id: number; batch: SealedBatch } | { type: 'resume'; partition: number } | { type: 'close' };

/** Why a batch did not commit, as plain data. */
export type ThreadError =
  | { kind: 'stale'; partition: number; epoch: number; current: number | null }
  | { kind: 'unavailable'; message: string }
  | { kind: 'rejected'; message: string; sqlState?: string }
  | { kind: 'error'; message: string };

/** Commit thread → main thread: `ready` once, then one per batch handed in. */
export type FromThread = { type: 'ready' } | { type: 'outcome'; id: number; error?: ThreadError };

const ENTRY = new URL('./commit-thread-worker.mjs', import.meta.url);

export class CommitThread {
  private worker: Worker | undefined;
  /** Settles when the running thread is loaded and connected, or gone. */
  private ready: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, { partition: number; resolve: () => void; reject: (error: unknown) => void }>();
  /**
   * Partitions that had a batch in a thread that died, with the error: the
   * new thread knows nothing of them, so their batches are refused here
   * until the leader resumes (CommitGroup's rule, kept across threads).
   */
  private readonly lost = new Map<number, unknown>();
  private nextId = 0;

  /** @param entry the thread's script; tests substitute one that fails */
  constructor(
    private readonly connection: WriterConnection,
    private readonly entry: URL = ENTRY,
  ) {}

  /**
   * Starts the thread and resolves once it has loaded and connected (a few
   * hundred ms), so the first commit does not wait for that. A thread that
   * cannot connect resolves it too: its commits then fail as any would.
   */
  open(): Promise<void> {
    this.worker ??= this.spawn();
    return this.ready;
  }

  /**
   * Like CommitGroup.commit: resolves once `batch` is committed; rejects
   * with StaleEpochError when its partition's epoch moved on, with the
   * statement's error, or — when the batch was handed to a thread that
   * died — with StoreUnavailableError (it may have committed: the leader
   * recovers and looks its commands up, as after a dropped connection).
   */
  commit(batch: SealedBatch): Promise<void> {
    if (this.lost.has(batch.partition)) return Promise.reject(this.lost.get(batch.partition));
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { partition: batch.partition, resolve, reject });
      worker.postMessage({ type: 'commit', id, batch } satisfies ToThread);
    });
  }

  /** Like CommitGroup.resume (in order with the commits around it: one message port). */
  resume(partition: number): void {
    this.lost.delete(partition);
    this.worker?.postMessage({ type: 'resume', partition } satisfies ToThread);
  }

  /** Ends the thread after the statements it was given; its connection closes. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ type: 'close' } satisfies ToThread);
    await exited;
  }

  private spawn(): Worker {
    const worker = new Worker(this.entry, { workerData: this.connection });
    // The shard closes it when it stops; one left open must not keep the process alive.
    worker.unref();
    let loaded!: () => void;
    this.ready = new Promise((resolve) => (loaded = resolve));
    worker.on('message', (message: FromThread) => {
      if (message.type === 'ready') return loaded();
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      if (message.error === undefined) waiting.resolve();
      else waiting.reject(toError(message.error));
    });
    const lost = (reason: string) => {
      loaded();
      if (this.worker === worker) this.worker = undefined;
      if (this.pending.size === 0) return;
      const error = new StoreUnavailableError(`commit thread stopped: ${reason}`);
      for (const waiting of this.pending.values()) {
        this.lost.set(waiting.partition, error);
        waiting.reject(error);
      }
      this.pending.clear();
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}

function toError(error: ThreadError): Error {
  if (error.kind === 'stale') return new StaleEpochError(error.partition, error.epoch, error.current);
  if (error.kind === 'unavailable') return new StoreUnavailableError(error.message);
  if (error.kind === 'rejected') return new BatchRejectedError(error.message, error.sqlState);
  return new Error(error.message);
}
