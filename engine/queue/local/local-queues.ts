// The embedded default (`npm start` with no REDIS_URL): job queues, command
// streams and replies in this process, behind the same interfaces and with
// the same semantics as the Redis implementation, and no I/O at all.
import { EventEmitter } from 'node:events';
import type { Notices, Publication, Queues, QueuesOptions } from '../types.ts';
import type { Cancellable } from '../wait.ts';
import { LocalCommandStream } from './command-stream.ts';
import { LocalJobQueue } from './job-queue.ts';
import { LocalReplies } from './replies.ts';

export class LocalQueues implements Queues {
  readonly kind = 'local' as const;
  readonly jobs: LocalJobQueue;
  readonly commands: LocalCommandStream;
  readonly replies: LocalReplies;
  readonly #waits = new Set<Cancellable>();
  readonly #notices = new EventEmitter().setMaxListeners(0);
  readonly notices: Notices = {
    publish: async (topic, message) => void this.#notices.emit(topic, message),
    subscribe: async (topic, onNotice) => {
      this.#notices.on(topic, onNotice);
      return () => void this.#notices.off(topic, onNotice);
    },
  };

  constructor(options: Omit<QueuesOptions, 'redisUrl' | 'prefix'> = {}) {
    this.jobs = new LocalJobQueue(this.#waits);
    this.commands = new LocalCommandStream(this.#waits, options.streamMaxLength);
    this.replies = new LocalReplies(this.#waits, options.replyTtlMs);
  }

  /** In order, part by part: nothing here does I/O, so there is no round trip to save. */
  async publish(publication: Publication): Promise<void> {
    const { push, variables, requeue, remove, replies, ack } = publication;
    if (push?.length) await this.jobs.push(push);
    for (const v of variables ?? []) await this.jobs.updateVariables(v.account, v.jobKey, v.variables);
    for (const job of requeue ?? []) await this.jobs.requeue(job);
    for (const r of remove ?? []) await this.jobs.remove(r.account, r.jobKeys);
    if (replies?.length) await this.replies.sendReplies(replies);
    if (ack) await this.commands.ack(ack.partition, ack.uptoId);
  }

  /** Nothing to reach: the queues are this process's memory. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {
    for (const wait of [...this.#waits]) wait.cancel();
  }
}

export function createLocalQueues(options: Omit<QueuesOptions, 'redisUrl' | 'prefix'> = {}): LocalQueues {
  return new LocalQueues(options);
}
