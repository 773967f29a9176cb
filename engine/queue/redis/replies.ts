// Replies in Redis: the leader's committed results back to the API pod that
// waits for them.
//
// The hot path (expectReply), per process one reply channel ("inbox") and
// one subscription for the life of the queues:
//   1. API: `expectReply(key)` puts a waiter in an in-memory map and makes
//      sure the inbox is subscribed (Redis confirmed SUBSCRIBE once; later
//      calls cost no Redis command at all).
//   2. API: appends the command with `replyTo: <inbox>`.
//   3. Leader: after its commit, `sendReplies` groups the batch's replies by
//      `replyTo` and PUBLISHes ONE message per channel: a JSON array of
//      [commandKey, result] pairs.
//   4. API: the subscriber hands the message to the waiters of those keys.
// A reply cannot be published before its waiter exists (the command did not
// exist before step 2), so nothing is lost to ordering, and nothing is kept:
// a pod that restarted has no waiters left to answer. What pub/sub cannot
// cover is a message published while the subscriber connection is down and
// reconnecting (ioredis resubscribes by itself): such a waiter times out, and
// its caller finds the committed result where every result is durable, the
// command log in Postgres (or by retrying with the same command key).
//
// The keyed path (waitReply), for replies sent without `replyTo`: the leader
// writes each reply to its own key with a TTL and publishes it on the
// channel of the same name; a waiter subscribes (shared subscriber), then
// reads the key. Either the reply was written before the read, and the read
// finds it, or after, and the subscription hears it.
import { randomBytes } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import type { ExpectedReply, Replies, Reply } from '../types.ts';
import { type Cancellable, Wait } from '../wait.ts';
import type { QueueKeys } from './keys.ts';
import type { Subscriber } from './subscriber.ts';

const parse = (json: string | null): unknown => (json === null ? undefined : JSON.parse(json));

export class RedisReplies implements Replies {
  readonly #redis: Redis;
  readonly #keys: QueueKeys;
  readonly #subscriber: Subscriber;
  readonly #waits: Set<Cancellable>;
  readonly #ttlMs: number;
  /** This process's reply channel. */
  readonly inbox: string;
  /** Resolves once the inbox is subscribed; unset until first needed, or after a failed attempt. */
  #inboxReady: Promise<void> | undefined;
  readonly #expected = new Map<string, Wait<unknown>[]>();

  constructor(redis: Redis, keys: QueueKeys, subscriber: Subscriber, waits: Set<Cancellable>, ttlMs = 60_000) {
    this.#redis = redis;
    this.#keys = keys;
    this.#subscriber = subscriber;
    this.#waits = waits;
    this.#ttlMs = ttlMs;
    this.inbox = keys.inbox(randomBytes(12).toString('hex'));
  }

  /** Waiters registered with expectReply and not settled yet (tests check that none leak). */
  get waiterCount(): number {
    let count = 0;
    for (const waits of this.#expected.values()) count += waits.length;
    return count;
  }

  /** Whether the inbox holds a subscription (it does for the life of the queues once used). */
  get inboxSubscribed(): boolean {
    return this.#inboxReady !== undefined;
  }

  async expectReply(commandKey: string, timeoutMs: number): Promise<ExpectedReply> {
    const wait = new Wait<unknown>({ timeoutMs, onTimeout: () => undefined, cancelled: undefined, registry: this.#waits });
    const waits = this.#expected.get(commandKey);
    if (waits) waits.push(wait);
    else this.#expected.set(commandKey, [wait]);
    wait.onEnd(() => this.#forget(commandKey, wait));
    try {
      await this.#subscribeInbox();
    } catch (error) {
      wait.cancel();
      throw error;
    }
    return { channel: this.inbox, promise: wait.promise, cancel: () => wait.cancel() };
  }

  async waitReply(commandKey: string, timeoutMs: number): Promise<unknown> {
    const key = this.#keys.reply(commandKey);
    const wait = new Wait<unknown>({
      timeoutMs,
      // One last look at the deadline covers a message lost while the
      // subscriber was reconnecting.
      onTimeout: () => this.#redis.get(key).then(parse, () => undefined),
      cancelled: undefined,
      registry: this.#waits,
    });
    try {
      const stop = await this.#subscriber.listen(key, (json) => wait.settle(parse(json)));
      wait.onEnd(stop);
      if (!wait.settled) {
        const json = await this.#redis.get(key);
        if (json !== null) wait.settle(parse(json));
      }
    } catch (error) {
      // Closed while subscribing: the wait has its answer already.
      if (wait.settled) return wait.promise;
      wait.cancel();
      throw error;
    }
    return wait.promise;
  }

  async sendReplies(replies: readonly Reply[]): Promise<void> {
    if (replies.length === 0) return;
    const pipeline = this.#redis.pipeline();
    this.stageReplies(pipeline, replies);
    const results = await pipeline.exec();
    for (const [error] of results ?? []) if (error) throw error;
  }

  /** Adds the writes and publishes of `sendReplies` to `pipeline`. */
  stageReplies(pipeline: ChainableCommander, replies: readonly Reply[]): void {
    const byChannel = new Map<string, [string, unknown][]>();
    for (const { commandKey, result, replyTo } of replies) {
      if (replyTo) {
        const pairs = byChannel.get(replyTo);
        if (pairs) pairs.push([commandKey, result ?? null]);
        else byChannel.set(replyTo, [[commandKey, result ?? null]]);
        continue;
      }
      const key = this.#keys.reply(commandKey);
      const json = JSON.stringify(result ?? null);
      // Write before publishing: a waiter that reads after subscribing then
      // either finds the key or hears the message.
      pipeline.set(key, json, 'PX', this.#ttlMs).publish(key, json);
    }
    for (const [channel, pairs] of byChannel) pipeline.publish(channel, JSON.stringify(pairs));
  }

  #subscribeInbox(): Promise<void> {
    if (!this.#inboxReady) {
      const ready = this.#subscriber.listen(this.inbox, (message) => this.#deliver(message)).then(() => undefined);
      // A failed attempt (queues closing, Redis gone) is not remembered: the next expectReply tries again.
      ready.catch(() => {
        if (this.#inboxReady === ready) this.#inboxReady = undefined;
      });
      this.#inboxReady = ready;
    }
    return this.#inboxReady;
  }

  #deliver(message: string): void {
    let pairs: unknown;
    try {
      pairs = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(pairs)) return;
    for (const pair of pairs) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string') continue;
      const waits = this.#expected.get(pair[0]);
      if (!waits) continue;
      // settle() runs #forget, which edits the list: walk a copy. Each waiter
      // gets a result of its own, as if it had parsed the message itself.
      [...waits].forEach((wait, i) => wait.settle(i === 0 ? pair[1] : structuredClone(pair[1])));
    }
  }

  #forget(commandKey: string, wait: Wait<unknown>): void {
    const waits = this.#expected.get(commandKey);
    if (!waits) return;
    const at = waits.indexOf(wait);
    if (at >= 0) waits.splice(at, 1);
    if (waits.length === 0) this.#expected.delete(commandKey);
  }
}
