// Per-instance bookkeeping of bench:e2e's load (bench-e2e-load.ts): when
// each instance was started, its job activated and completed, and who
// waits for a completion.
import type { PhaseState } from './bench-e2e-load.ts';

const now = () => performance.now();

export interface Tracked {
  phase?: PhaseState;
  sentAt?: number;
  startedAt?: number;
  activatedAt?: number;
  /** Date.now() at activatedAt: compared with the server's createdAt. */
  activatedWallMs?: number;
  completeSentAt?: number;
  completedAt?: number;
  jobKey?: string;
}

/**
 * Per-instance bookkeeping shared by starters and workers. A job may be
 * handed out, even completed, before its start request is answered (the
 * leader queues the job before it replies), so entries are keyed by instance
 * key and filled from both sides.
 */
export class Tracker {
  readonly tracked = new Map<string, Tracked>();
  private readonly waiters = new Map<string, Set<() => void>>();
  failure: Error | undefined;

  entry(key: string): Tracked {
    let entry = this.tracked.get(key);
    if (entry === undefined) this.tracked.set(key, (entry = {}));
    return entry;
  }

  completed(key: string, at: number): void {
    this.entry(key).completedAt = at;
    for (const wake of [...(this.waiters.get(key) ?? [])]) wake();
  }

  /** True once the instance's job completion is acknowledged; false at the deadline or on a failed check. */
  completion(key: string, deadline: number): Promise<boolean> {
    if (this.entry(key).completedAt !== undefined) return Promise.resolve(true);
    if (this.failure !== undefined || now() >= deadline) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiting = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, waiting);
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (waiting.size === 0) this.waiters.delete(key);
        resolve(this.entry(key).completedAt !== undefined);
      };
      const timer = setTimeout(wake, deadline - now());
      waiting.add(wake);
    });
  }

  /** The first failure wins; everyone waiting is released. */
  fail(err: Error): void {
    this.failure ??= err;
    for (const waiting of [...this.waiters.values()]) for (const wake of [...waiting]) wake();
  }
}
