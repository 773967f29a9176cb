// One pub/sub connection per process, shared by every long poll and every
// reply waiter: a channel is subscribed while at least one listener wants it
// and unsubscribed when the last one leaves, so waiting costs no connection
// and leaves nothing behind.
import type { Redis } from 'ioredis';

interface Channel {
  readonly listeners: Set<(message: string) => void>;
  readonly ready: Promise<void>;
}

export class Subscriber {
  readonly #connect: () => Redis;
  #connection: Redis | undefined;
  readonly #channels = new Map<string, Channel>();
  #closed = false;

  constructor(connect: () => Redis) {
    this.#connect = connect;
  }

  /** Channels subscribed now (tests check that none leak). */
  get channelCount(): number {
    return this.#channels.size;
  }

  /**
   * Calls `onMessage` for each message on `channel`; resolves once Redis
   * confirmed the subscription (a message published from then on is
   * delivered) with the function that stops listening.
   */
  async listen(channel: string, onMessage: (message: string) => void): Promise<() => void> {
    if (this.#closed) throw new Error('queues are closed');
    const connection = this.#open();
    let entry = this.#channels.get(channel);
    if (!entry) {
      const created: Channel = { listeners: new Set(), ready: connection.subscribe(channel).then(() => undefined) };
      created.ready.catch(() => {
        if (this.#channels.get(channel) === created) this.#channels.delete(channel);
      });
      this.#channels.set(channel, created);
      entry = created;
    }
    const channelEntry = entry;
    channelEntry.listeners.add(onMessage);
    let listening = true;
    const stop = () => {
      if (!listening) return;
      listening = false;
      channelEntry.listeners.delete(onMessage);
      if (channelEntry.listeners.size === 0 && this.#channels.get(channel) === channelEntry) {
        this.#channels.delete(channel);
        // Commands on one connection run in order, so a later SUBSCRIBE of the
        // same channel lands after this UNSUBSCRIBE.
        if (!this.#closed) connection.unsubscribe(channel).catch(() => undefined);
      }
    };
    try {
      await channelEntry.ready;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) await connection.quit().catch(() => connection.disconnect());
  }

  #open(): Redis {
    if (!this.#connection) {
      const connection = this.#connect();
      connection.on('message', (channel: string, message: string) => {
        const entry = this.#channels.get(channel);
        if (!entry) return;
        for (const listener of [...entry.listeners]) listener(message);
      });
      this.#connection = connection;
    }
    return this.#connection;
  }
}
