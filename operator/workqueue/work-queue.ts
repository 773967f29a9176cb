// The operator's work queue, with client-go's semantics: a key is queued at
// most once however often it is added; a key being processed is never
// handed out again until done(), and a key added meanwhile is queued once
// more at done(); delayed adds (after a failure, through the rate limiter)
// wait on a timer and keep the earliest of several delays.
import type { RateLimiter } from './rate-limiter.ts';

export interface WorkQueue {
  add(key: string): void;
  addAfter(key: string, delayMs: number): void;
  /** Adds after the rate limiter's delay for this key (a failure or a requeue), at least `floorMs` (a server's Retry-After). */
  addRateLimited(key: string, floorMs?: number): void;
  /** The key succeeded: reset its backoff. */
  forget(key: string): void;
  /** The next key to process; undefined once shut down. */
  get(): Promise<string | undefined>;
  /** Processing of `key` is over. */
  done(key: string): void;
  /** Keys waiting to be processed (not those delayed or in process). */
  readonly length: number;
  shutDown(): void;
}

export function createWorkQueue(limiter: RateLimiter, onDepth?: (depth: number) => void): WorkQueue {
  const queue: string[] = [];
  const dirty = new Set<string>();
  const processing = new Set<string>();
  const waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  const getters: ((key: string | undefined) => void)[] = [];
  let shuttingDown = false;

  function depth() {
    onDepth?.(queue.length);
  }

  function add(key: string) {
    if (shuttingDown || dirty.has(key)) return;
    dirty.add(key);
    if (processing.has(key)) return;
    const getter = getters.shift();
    if (getter) {
      dirty.delete(key);
      processing.add(key);
      getter(key);
    } else {
      queue.push(key);
      depth();
    }
  }

  function addAfter(key: string, delayMs: number) {
    if (shuttingDown) return;
    if (delayMs <= 0) return add(key);
    const at = Date.now() + delayMs;
    const existing = waiting.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      waiting.delete(key);
      add(key);
    }, delayMs);
    timer.unref?.();
    waiting.set(key, { at, timer });
  }

  return {
    add,
    addAfter,
    addRateLimited: (key, floorMs = 0) => addAfter(key, Math.max(floorMs, limiter.when(key))),
    forget: (key) => limiter.forget(key),
    get() {
      if (shuttingDown) return Promise.resolve(undefined);
      const key = queue.shift();
      if (key !== undefined) {
        dirty.delete(key);
        processing.add(key);
        depth();
        return Promise.resolve(key);
      }
      return new Promise((resolve) => getters.push(resolve));
    },
    done(key) {
      processing.delete(key);
      if (dirty.has(key)) {
        dirty.delete(key);
        add(key);
      }
    },
    get length() {
      return queue.length;
    },
    shutDown() {
      shuttingDown = true;
      for (const { timer } of waiting.values()) clearTimeout(timer);
      waiting.clear();
      for (const getter of getters.splice(0)) getter(undefined);
    },
  };
}
