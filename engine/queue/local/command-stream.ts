// The in-process command streams: one ordered log per partition with
// Redis-shaped entry ids, blocking reads and acknowledgement by trimming, so
// the partition leader's loop is the same code in the embedded default and
// scale-out. Payloads are kept as JSON text, as in Redis.
import { assertPartition } from '../job-payload.ts';
import { compareStreamIds, formatStreamId, parseStreamId, type StreamId } from '../stream-id.ts';
import type { Command, CommandStream, StreamEntry } from '../types.ts';
import { type Cancellable, Wait } from '../wait.ts';

interface Stored {
  id: StreamId;
  key: string;
  payload: string;
  replyTo?: string;
}

class Log {
  entries: Stored[] = [];
  head = 0;
  last: StreamId = { ms: 0, seq: 0 };
  readonly readers = new Set<() => void>();

  get length(): number {
    return this.entries.length - this.head;
  }

  /** Index of the first live entry after `id`. */
  after(id: StreamId): number {
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareStreamIds(this.entries[mid].id, id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  dropUpTo(index: number): void {
    this.head = Math.max(this.head, index);
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}

export class LocalCommandStream implements CommandStream {
  readonly #logs = new Map<number, Log>();
  readonly #waits: Set<Cancellable>;
  readonly #maxLength: number;

  constructor(waits: Set<Cancellable>, maxLength = 1_000_000) {
    this.#waits = waits;
    this.#maxLength = maxLength;
  }

  async append(partition: number, command: Command): Promise<string> {
    return this.#append(this.#log(partition), command);
  }

  async appendIfBelow(partition: number, command: Command, limit: number): Promise<'appended' | 'full'> {
    const log = this.#log(partition);
    if (log.length >= limit) return 'full';
    this.#append(log, command);
    return 'appended';
  }

  async read(partition: number, afterId: string, max: number, blockMs: number): Promise<StreamEntry[]> {
    const after = parseStreamId(afterId);
    const entries = this.#entries(partition, after, max);
    if (entries.length > 0 || !(blockMs > 0)) return entries;
    const log = this.#log(partition);
    const wait = new Wait<boolean>({ timeoutMs: blockMs, onTimeout: () => false, cancelled: false, registry: this.#waits });
    const wake = () => wait.settle(true);
    log.readers.add(wake);
    wait.onEnd(() => log.readers.delete(wake));
    return (await wait.promise) ? this.#entries(partition, after, max) : [];
  }

  async ack(partition: number, uptoId: string): Promise<void> {
    const log = this.#logs.get(partition);
    if (log) log.dropUpTo(log.after(parseStreamId(uptoId)));
  }

  async pending(partition: number): Promise<number> {
    return this.#logs.get(partition)?.length ?? 0;
  }

  async lastEntryId(partition: number): Promise<string> {
    const log = this.#logs.get(partition);
    return log && log.length > 0 ? formatStreamId(log.entries[log.entries.length - 1].id) : '0';
  }

  async firstEntryId(partition: number): Promise<string> {
    const log = this.#logs.get(partition);
    return log && log.length > 0 ? formatStreamId(log.entries[log.head].id) : '0';
  }

  #append(log: Log, command: Command): string {
    const payload = JSON.stringify(command.payload ?? null);
    // Same id rule as XADD: the clock in ms, a sequence within the ms, never going back.
    const now = Date.now();
    const id = now > log.last.ms ? { ms: now, seq: 0 } : { ms: log.last.ms, seq: log.last.seq + 1 };
    log.last = id;
    const stored: Stored = { id, key: String(command.key), payload };
    if (command.replyTo) stored.replyTo = command.replyTo;
    log.entries.push(stored);
    if (log.length > this.#maxLength) log.dropUpTo(log.entries.length - this.#maxLength);
    for (const wake of [...log.readers]) wake();
    return formatStreamId(id);
  }

  #entries(partition: number, after: StreamId, max: number): StreamEntry[] {
    const log = this.#logs.get(partition);
    const count = Math.floor(max);
    if (!log || !(count >= 1)) return [];
    const start = log.after(after);
    return log.entries.slice(start, start + count).map((entry) => {
      const read: StreamEntry = { id: formatStreamId(entry.id), key: entry.key, payload: JSON.parse(entry.payload) as unknown };
      if (entry.replyTo) read.replyTo = entry.replyTo;
      return read;
    });
  }

  #log(partition: number): Log {
    assertPartition(partition);
    let log = this.#logs.get(partition);
    if (!log) {
      log = new Log();
      this.#logs.set(partition, log);
    }
    return log;
  }
}
