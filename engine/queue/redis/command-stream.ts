// Partition command streams in Redis Streams: API pods XADD (or, under
// backpressure, run append-if-below.lua: XLEN and XADD in one step), the
// partition's leader XREADs (blocking on a connection of its own per
// partition, since a blocked connection can do nothing else) and trims what
// it committed with XTRIM MINID, so the stream's length is exactly the
// backlog. An entry's fields: k (command key), d (payload JSON), r (reply
// channel, when the sender expects its reply there).
import type { ChainableCommander, Redis } from 'ioredis';
import { assertPartition } from '../job-payload.ts';
import { formatStreamId, nextStreamId, parseStreamId } from '../stream-id.ts';
import type { Command, CommandStream, StreamEntry } from '../types.ts';
import type { QueueKeys } from './keys.ts';

type XReadReply = [key: string, entries: [id: string, fields: string[]][]][] | Record<string, [id: string, fields: string[]][]> | null;

function entriesOf(reply: XReadReply): [string, string[]][] {
  if (!reply) return [];
  if (Array.isArray(reply)) return reply.flatMap(([, entries]) => entries);
  return Object.values(reply).flat();
}

function decode([id, fields]: [string, string[]]): StreamEntry {
  let key = '';
  let payload = 'null';
  let replyTo: string | undefined;
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] === 'k') key = fields[i + 1];
    else if (fields[i] === 'd') payload = fields[i + 1];
    else if (fields[i] === 'r') replyTo = fields[i + 1];
  }
  const entry: StreamEntry = { id, key, payload: JSON.parse(payload) as unknown };
  if (replyTo) entry.replyTo = replyTo;
  return entry;
}

export class RedisCommandStream implements CommandStream {
  readonly #redis: Redis;
  readonly #keys: QueueKeys;
  readonly #maxLength: number;
  readonly #readers = new Map<number, Redis>();
  #closed = false;

  constructor(redis: Redis, keys: QueueKeys, maxLength = 1_000_000) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxLength = maxLength;
  }

  async append(partition: number, command: Command): Promise<string> {
    assertPartition(partition);
    const fields = ['k', String(command.key), 'd', JSON.stringify(command.payload ?? null)];
    if (command.replyTo) fields.push('r', command.replyTo);
    const id = await this.#redis.xadd(this.#keys.commands(partition), 'MAXLEN', '~', this.#maxLength, '*', ...fields);
    if (id === null) throw new Error('XADD returned no id');
    return id;
  }

  async appendIfBelow(partition: number, command: Command, limit: number): Promise<'appended' | 'full'> {
    assertPartition(partition);
    const id = await this.#redis.orcaAppendIfBelow(
      this.#keys.commands(partition),
      Math.max(0, Math.floor(limit)),
      this.#maxLength,
      String(command.key),
      JSON.stringify(command.payload ?? null),
      command.replyTo ?? '',
    );
    return id === null ? 'full' : 'appended';
  }

  async read(partition: number, afterId: string, max: number, blockMs: number): Promise<StreamEntry[]> {
    assertPartition(partition);
    const count = Math.floor(max);
    if (!(count >= 1)) return [];
    const after = formatStreamId(parseStreamId(afterId));
    const key = this.#keys.commands(partition);
    if (!(blockMs > 0)) {
      return entriesOf((await this.#redis.xread('COUNT', count, 'STREAMS', key, after)) as XReadReply).map(decode);
    }
    try {
      const reply = await this.#reader(partition).xread('COUNT', count, 'BLOCK', Math.ceil(blockMs), 'STREAMS', key, after);
      return entriesOf(reply as XReadReply).map(decode);
    } catch (error) {
      // close() cut the blocked read short: nothing arrived.
      if (this.#closed) return [];
      throw error;
    }
  }

  async ack(partition: number, uptoId: string): Promise<void> {
    const pipeline = this.#redis.pipeline();
    this.stageAck(pipeline, partition, uptoId);
    const results = await pipeline.exec();
    for (const [error] of results ?? []) if (error) throw error;
  }

  /** Adds `ack` to `pipeline` (nothing for "0"). */
  stageAck(pipeline: ChainableCommander, partition: number, uptoId: string): void {
    assertPartition(partition);
    const upto = parseStreamId(uptoId);
    if (upto.ms === 0 && upto.seq === 0) return;
    pipeline.xtrim(this.#keys.commands(partition), 'MINID', formatStreamId(nextStreamId(upto)));
  }

  async pending(partition: number): Promise<number> {
    assertPartition(partition);
    return this.#redis.xlen(this.#keys.commands(partition));
  }

  async lastEntryId(partition: number): Promise<string> {
    assertPartition(partition);
    const [newest] = await this.#redis.xrevrange(this.#keys.commands(partition), '+', '-', 'COUNT', 1);
    return newest ? newest[0] : '0';
  }

  async firstEntryId(partition: number): Promise<string> {
    assertPartition(partition);
    const [oldest] = await this.#redis.xrange(this.#keys.commands(partition), '-', '+', 'COUNT', 1);
    return oldest ? oldest[0] : '0';
  }

  async close(): Promise<void> {
    this.#closed = true;
    const readers = [...this.#readers.values()];
    this.#readers.clear();
    // disconnect, not quit: a blocked XREAD would hold QUIT until it times out.
    for (const reader of readers) reader.disconnect();
  }

  #reader(partition: number): Redis {
    let reader = this.#readers.get(partition);
    if (!reader) {
      reader = this.#redis.duplicate();
      this.#readers.set(partition, reader);
    }
    return reader;
  }
}
