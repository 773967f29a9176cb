// Command intake: what a leader's next batch is made of. Commands come from
// the partition's stream (read ahead, on a connection of its own, so a local
// command, a due timer or a finished batch never waits for the read) and,
// when this process's API leads the partition itself, straight from memory
// (local commands: no stream entry, no pub/sub reply). Local commands a
// leader cannot answer go back to their callers, who use the stream.
import type { Queues, StreamEntry } from '../../queue/index.ts';
import { StaleEpochError } from '../../store/index.ts';
import type { CommandReply, EngineCommand } from '../commands.ts';

export const BATCH_MAX = 500;
/** How long a stream read waits for an entry; local commands and timers do not wait for it (see `read`). */
const READ_BLOCK_MS = 100;

/**
 * A command handed over in memory by this process (its API leads the
 * partition itself): no stream entry, no pub/sub reply. `attempted` is set
 * once a batch holding it failed to commit: it may have committed after
 * all, so it is looked up in the command log like a replayed stream entry.
 * `batchKey` names the batch that last held it, when its result was logged
 * in that batch's row rather than one of its own (see BatchWork.logged).
 */
export interface LocalCommand {
  key: string;
  payload: EngineCommand;
  resolve: (reply: CommandReply) => void;
  reject: (error: unknown) => void;
  attempted?: true;
  batchKey?: string;
}

/**
 * The leader here stopped with a local command unanswered: the caller sends
 * it over the stream instead, to whoever leads next. `mayBeApplied` when a
 * batch holding it failed in a way that may have committed: then it must go
 * without its `fresh` mark, so the next leader looks it up first.
 */
export class LeaderGone extends Error {
  constructor(
    partition: number,
    readonly mayBeApplied: boolean,
    /** Where the command's result was logged if it was applied: the next leader looks there too. */
    readonly batchKey?: string,
  ) {
    super(`partition ${partition}: its leader here stopped`);
  }
}

export class CommandIntake {
  /** The newest stream entry read (the next read starts after it). */
  private lastId = '0';
  private readonly local: LocalCommand[] = [];
  /** The stream read under way, if any, and what it brought. */
  private reading: { generation: number; done: boolean; entries: StreamEntry[]; error?: unknown } | undefined;
  /** Bumped by `restart`: a read issued before it is stale (it started from the wrong id). */
  private readGeneration = 0;
  /** Wakes the loop waiting in `read`. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly partition: number,
    private readonly commands: Queues['commands'],
  ) {}

  /** Local commands waiting for a batch. */
  get waiting(): number {
    return this.local.length;
  }

  /** Queues a local command; it resolves with the committed reply. */
  submit(key: string, payload: EngineCommand): Promise<CommandReply> {
    return new Promise((resolve, reject) => {
      this.local.push({ key, payload, resolve, reject });
      this.wake?.();
    });
  }

  /** Ends a wait in `read`: there is work that does not come from the stream, or the leader stops. */
  wakeUp(): void {
    this.wake?.();
  }

  /**
   * The stream entries read since the last call. Starts a read when none is
   * under way, and waits for it only while `mayWait` and no local command
   * waits (a local command or a wake-up ends the wait).
   */
  async read(mayWait: boolean): Promise<StreamEntry[]> {
    if (this.reading === undefined || this.reading.generation !== this.readGeneration) {
      const reading: NonNullable<CommandIntake['reading']> = { generation: this.readGeneration, done: false, entries: [] };
      this.reading = reading;
      this.commands.read(this.partition, this.lastId, BATCH_MAX, READ_BLOCK_MS).then(
        (entries) => {
          reading.entries = entries;
          reading.done = true;
          this.wake?.();
        },
        (error: unknown) => {
          reading.error = error;
          reading.done = true;
          this.wake?.();
        },
      );
    }
    const reading = this.reading;
    if (!reading.done && this.local.length === 0 && mayWait) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    let entries: StreamEntry[] = [];
    if (reading.done) {
      this.reading = undefined;
      if (reading.error !== undefined) throw reading.error;
      entries = reading.entries;
      if (entries.length > 0) this.lastId = entries[entries.length - 1].id;
    }
    return entries;
  }

  /** The local commands for the next batch. */
  takeLocal(): LocalCommand[] {
    return this.local.splice(0, BATCH_MAX);
  }

  /** After recovery: the stream is read again from its start. */
  restart(): void {
    this.lastId = '0';
    this.readGeneration++;
  }

  /**
   * While isolating, the batch takes the first unit only: the first stream
   * entry (the rest are read again after it), else the first local command.
   */
  oneUnit(entries: StreamEntry[], local: LocalCommand[]): { entries: StreamEntry[]; local: LocalCommand[] } {
    if (entries.length > 0) {
      if (entries.length > 1) this.lastId = entries[0].id;
      this.local.unshift(...local);
      return { entries: entries.slice(0, 1), local: [] };
    }
    if (local.length > 1) this.local.unshift(...local.slice(1));
    return { entries, local: local.slice(0, 1) };
  }

  /**
   * A batch that ran out of time took only the first `entriesTaken` entries
   * and `localTaken` local commands: the rest are cut off the arrays (which
   * the batch keeps) and wait for the next batch — entries read again from
   * after the last one taken, local commands first in line.
   */
  deferRest(entries: StreamEntry[], entriesTaken: number, local: LocalCommand[], localTaken: number): void {
    if (entriesTaken < entries.length) {
      if (entriesTaken > 0) this.lastId = entries[entriesTaken - 1].id;
      else throw new RangeError('deferRest: a batch defers its entries only after taking one');
      entries.length = entriesTaken;
    }
    if (localTaken < local.length) this.local.unshift(...local.splice(localTaken));
  }

  /**
   * Not committed, or not known to be (a stale fence writes nothing): the
   * local commands wait for the next batch after recovery, looked up in the
   * command log first.
   */
  giveBack(local: LocalCommand[], err: unknown): void {
    if (!(err instanceof StaleEpochError)) for (const command of local) command.attempted = true;
    this.local.unshift(...local);
  }

  /** Unanswered local commands go back to their callers, who send them over the stream. */
  handBack(): void {
    for (const command of this.local.splice(0)) command.reject(new LeaderGone(this.partition, command.attempted === true, command.batchKey));
  }
}
