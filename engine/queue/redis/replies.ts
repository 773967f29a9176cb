// Replies in Redis: the leader writes each reply to its own key with a TTL
// and publishes it on the channel of the same name; a waiter subscribes
// (shared subscriber), then reads the key. Either the reply was written
// before the read, and the read finds it, or after, and the subscription
// hears it: a reply sent before anyone waits is never lost.
import type { Redis } from 'ioredis';
import type { Replies, Reply } from '../types.ts';
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

  constructor(redis: Redis, keys: QueueKeys, subscriber: Subscriber, waits: Set<Cancellable>, ttlMs = 60_000) {
    this.#redis = redis;
    this.#keys = keys;
    this.#subscriber = subscriber;
    this.#waits = waits;
    this.#ttlMs = ttlMs;
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
    for (const { commandKey, result } of replies) {
      const key = this.#keys.reply(commandKey);
      const json = JSON.stringify(result ?? null);
      // Write before publishing: a waiter that reads after subscribing then
      // either finds the key or hears the message.
      pipeline.set(key, json, 'PX', this.#ttlMs).publish(key, json);
    }
    const results = await pipeline.exec();
    for (const [error] of results ?? []) if (error) throw error;
  }
}
