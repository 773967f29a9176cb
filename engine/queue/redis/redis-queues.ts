// The scale-out implementation (REDIS_URL set): one command connection for
// scripts, pushes and appends, one shared subscriber connection for long
// polls and replies, and one blocking connection per partition whose command
// stream this process reads (the leader's).
import { Redis, type ChainableCommander } from 'ioredis';
import type { Notices, Publication, Queues, QueuesOptions } from '../types.ts';
import type { Cancellable } from '../wait.ts';
import { RedisCommandStream } from './command-stream.ts';
import { check, RedisJobQueue } from './job-queue.ts';
import { QueueKeys } from './keys.ts';
import { RedisReplies } from './replies.ts';
import { defineQueueScripts } from './scripts.ts';
import { Subscriber } from './subscriber.ts';

export interface RedisQueuesOptions extends Omit<QueuesOptions, 'redisUrl'> {
  redisUrl: string;
}

export class RedisQueues implements Queues {
  readonly kind = 'redis' as const;
  readonly jobs: RedisJobQueue;
  readonly commands: RedisCommandStream;
  readonly replies: RedisReplies;
  readonly keys: QueueKeys;
  readonly subscriber: Subscriber;
  readonly #redis: Redis;
  readonly #waits = new Set<Cancellable>();
  /** Publications of this turn of the event loop, sent together at its end. */
  #publishing: { pipeline: ChainableCommander; parts: { from: number; to: number; resolve: () => void; reject: (error: unknown) => void }[] } | undefined;
  readonly notices: Notices;

  constructor(options: RedisQueuesOptions) {
    this.keys = new QueueKeys(options.prefix ?? 'orca:');
    const redis = new Redis(options.redisUrl, { connectionName: 'orca-queues' });
    defineQueueScripts(redis);
    this.#redis = redis;
    this.subscriber = new Subscriber(() => redis.duplicate({ connectionName: 'orca-queues-subscriber' }));
    this.jobs = new RedisJobQueue(redis, this.keys, this.subscriber, this.#waits);
    this.commands = new RedisCommandStream(redis, this.keys, options.streamMaxLength);
    this.replies = new RedisReplies(redis, this.keys, this.subscriber, this.#waits, options.replyTtlMs);
    this.notices = {
      publish: async (topic, message) => void (await redis.publish(this.keys.notice(topic), message)),
      subscribe: (topic, onNotice) => this.subscriber.listen(this.keys.notice(topic), onNotice),
    };
  }

  /**
   * Staged in the Publication's order on the command connection: Redis runs
   * a connection's commands in the order sent, so the order holds without
   * MULTI. Publications made in the same turn of the event loop — the
   * batches of all partitions that one group commit committed — share one
   * pipeline, so one socket write and one round trip carry them all; each
   * caller still learns only of its own commands' failures.
   */
  publish(publication: Publication): Promise<void> {
    const { push, variables, requeue, remove, replies, ack } = publication;
    let shared = this.#publishing;
    if (shared === undefined) {
      shared = { pipeline: this.#redis.pipeline(), parts: [] };
      this.#publishing = shared;
      setImmediate(() => this.#flushPublications());
    }
    const { pipeline } = shared;
    const from = pipeline.length;
    if (push?.length) this.jobs.stagePush(pipeline, push);
    for (const v of variables ?? []) this.jobs.stageUpdateVariables(pipeline, v.account, v.jobKey, v.variables);
    for (const job of requeue ?? []) this.jobs.stageRequeue(pipeline, job);
    for (const r of remove ?? []) this.jobs.stageRemove(pipeline, r.account, r.jobKeys);
    if (replies?.length) this.replies.stageReplies(pipeline, replies);
    if (ack) this.commands.stageAck(pipeline, ack.partition, ack.uptoId);
    if (pipeline.length === from) return Promise.resolve();
    return new Promise((resolve, reject) => shared.parts.push({ from, to: pipeline.length, resolve, reject }));
  }

  #flushPublications(): void {
    const shared = this.#publishing;
    this.#publishing = undefined;
    if (shared === undefined || shared.parts.length === 0) return;
    shared.pipeline.exec().then(
      (results) => {
        for (const part of shared.parts) {
          try {
            check(results === null ? null : results.slice(part.from, part.to));
            part.resolve();
          } catch (error) {
            part.reject(error);
          }
        }
      },
      (error: unknown) => shared.parts.forEach((part) => part.reject(error)),
    );
  }

  /** Resolves once Redis answers (fails after ioredis gave up reconnecting). */
  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    for (const wait of [...this.#waits]) wait.cancel();
    await this.commands.close();
    await this.subscriber.close();
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

export async function createRedisQueues(options: RedisQueuesOptions): Promise<RedisQueues> {
  const queues = new RedisQueues(options);
  try {
    await queues.ping();
  } catch (error) {
    await queues.close();
    throw error;
  }
  return queues;
}
