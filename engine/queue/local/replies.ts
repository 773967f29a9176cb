// In-process replies from the leader to the API request waiting for them,
// with the flows and semantics of the Redis implementation (redis/replies.ts):
//
// - expectReply (the hot path): the waiter is registered before the command
//   is appended with `replyTo: channel`; sendReplies hands a reply carrying
//   `replyTo` to the waiters of its key if it is this process's channel, and
//   keeps nothing.
// - waitReply, for replies sent without `replyTo`: a reply is kept for the
//   reply TTL, as Redis keeps its reply key, so a waiter that starts after
//   the reply was sent still gets it.
import { randomBytes } from 'node:crypto';
import type { ExpectedReply, Replies, Reply } from '../types.ts';
import { type Cancellable, Wait } from '../wait.ts';

interface Kept {
  json: string;
  expiresAt: number;
}

export class LocalReplies implements Replies {
  /** This process's reply channel. */
  readonly inbox = `local:${randomBytes(12).toString('hex')}`;
  // Insertion order is expiry order (one TTL for all), so sweeping stops at
  // the first reply still alive.
  readonly #kept = new Map<string, Kept>();
  readonly #waiters = new Map<string, Set<(json: string) => void>>();
  readonly #expected = new Map<string, Wait<unknown>[]>();
  readonly #waits: Set<Cancellable>;
  readonly #ttlMs: number;

  constructor(waits: Set<Cancellable>, ttlMs = 60_000) {
    this.#waits = waits;
    this.#ttlMs = ttlMs;
  }

  async expectReply(commandKey: string, timeoutMs: number): Promise<ExpectedReply> {
    const wait = new Wait<unknown>({ timeoutMs, onTimeout: () => undefined, cancelled: undefined, registry: this.#waits });
    const waits = this.#expected.get(commandKey);
    if (waits) waits.push(wait);
    else this.#expected.set(commandKey, [wait]);
    wait.onEnd(() => {
      const list = this.#expected.get(commandKey);
      if (!list) return;
      const at = list.indexOf(wait);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0) this.#expected.delete(commandKey);
    });
    return { channel: this.inbox, promise: wait.promise, cancel: () => wait.cancel() };
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
    for (const { commandKey, result, replyTo } of replies) {
      if (replyTo) {
        const waits = replyTo === this.inbox ? this.#expected.get(commandKey) : undefined;
        if (!waits) continue;
        // JSON text, as over Redis: a waiter gets a copy, never the leader's object.
        const json = JSON.stringify(result ?? null);
        for (const wait of [...waits]) wait.settle(JSON.parse(json));
        continue;
      }
      const json = JSON.stringify(result ?? null);
      this.#kept.delete(commandKey);
      this.#kept.set(commandKey, { json, expiresAt: now + this.#ttlMs });
      const waiters = this.#waiters.get(commandKey);
      if (waiters) for (const deliver of [...waiters]) deliver(json);
    }
  }

  /** Reply waiters registered now, of both kinds (tests check that none leak). */
  get waiterCount(): number {
    let count = 0;
    for (const waiters of this.#waiters.values()) count += waiters.size;
    for (const waits of this.#expected.values()) count += waits.length;
    return count;
  }

  #sweep(now: number): void {
    for (const [key, kept] of this.#kept) {
      if (kept.expiresAt > now) break;
      this.#kept.delete(key);
    }
  }
}
