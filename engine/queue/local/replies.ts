// In-process replies from the leader to the API request waiting for them.
// A reply is kept for the reply TTL, as the Redis implementation keeps its
// reply key, so a waiter that starts after the reply was sent still gets it.
import type { Replies, Reply } from '../types.ts';
import { type Cancellable, Wait } from '../wait.ts';

interface Kept {
  json: string;
  expiresAt: number;
}

export class LocalReplies implements Replies {
  // Insertion order is expiry order (one TTL for all), so sweeping stops at
  // the first reply still alive.
  readonly #kept = new Map<string, Kept>();
  readonly #waiters = new Map<string, Set<(json: string) => void>>();
  readonly #waits: Set<Cancellable>;
  readonly #ttlMs: number;

  constructor(waits: Set<Cancellable>, ttlMs = 60_000) {
    this.#waits = waits;
    this.#ttlMs = ttlMs;
  }

  async waitReply(commandKey: string, timeoutMs: number): Promise<unknown> {
    const kept = this.#kept.get(commandKey);
    if (kept && kept.expiresAt > Date.now()) return JSON.parse(kept.json);
    const wait = new Wait<unknown>({ timeoutMs, onTimeout: () => undefined, cancelled: undefined, registry: this.#waits });
    let waiters = this.#waiters.get(commandKey);
    if (!waiters) {
      waiters = new Set();
      this.#waiters.set(commandKey, waiters);
    }
    const deliver = (json: string) => wait.settle(JSON.parse(json));
    waiters.add(deliver);
    wait.onEnd(() => {
      waiters.delete(deliver);
      if (waiters.size === 0 && this.#waiters.get(commandKey) === waiters) this.#waiters.delete(commandKey);
    });
    return wait.promise;
  }

  async sendReplies(replies: readonly Reply[]): Promise<void> {
    const now = Date.now();
    this.#sweep(now);
    for (const { commandKey, result } of replies) {
      const json = JSON.stringify(result ?? null);
      this.#kept.delete(commandKey);
      this.#kept.set(commandKey, { json, expiresAt: now + this.#ttlMs });
      const waiters = this.#waiters.get(commandKey);
      if (waiters) for (const deliver of [...waiters]) deliver(json);
    }
  }

  /** Reply waiters registered now (tests check that none leak). */
  get waiterCount(): number {
    let count = 0;
    for (const waiters of this.#waiters.values()) count += waiters.size;
    return count;
  }

  #sweep(now: number): void {
    for (const [key, kept] of this.#kept) {
      if (kept.expiresAt > now) break;
      this.#kept.delete(key);
    }
  }
}
