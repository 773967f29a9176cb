// Command results and idempotency: every command is applied once, whatever
// its retries and replays. Before a batch applies a command that may have
// been applied already, its result is looked for in the batches not yet
// committed (kept here until published) and in the command log; a command
// found there is answered with its first result. Each applied command's
// result goes into its batch's rows — one row each (a job command's in the
// narrow job command log), except this process's fresh local commands,
// whose results share one row per batch. A client's
// keyed command on a job this leader created and still holds is looked up
// nowhere: HotInstances knows every keyed command applied to such a job.
import { streamIdIsAfter, type StreamEntry } from '../../queue/index.ts';
import type { JobCommandKey, Store } from '../../store/index.ts';
import { isJobCommand, type CommandReply, type EngineCommand } from '../commands.ts';
import type { BatchWork } from './batch-work.ts';
import type { HotInstances } from './hot-instances.ts';
import type { LocalCommand } from './intake.ts';

const NONE: ReadonlyMap<string, unknown> = new Map();

export class CommandResults {
  /**
   * Results of the commands in batches not yet published, by command key.
   * The command log cannot answer for them until they commit, so a retry
   * of one that arrives meanwhile is answered from here (never applied twice).
   */
  private readonly pending = new Map<string, unknown>();
  /** Numbers this leader's batch keys (with its epoch, unique on the partition). */
  private batchSeq = 0;
  /** Entries up to this id were in the stream at the last recovery: an earlier leader may have applied them. */
  replayUpTo = '0';

  constructor(
    private readonly partition: number,
    private readonly epoch: number,
    private readonly commands: Store['commands'],
    private readonly hot: HotInstances,
  ) {}

  /**
   * The command log's results for the commands that may have been applied.
   * A fresh key appended after the last recovery cannot have been applied
   * yet: only the others are looked up, in the batches not yet committed
   * first (checked before the query starts, so a key missing there was in
   * none of them and the command log has it if anything does). A result
   * found there is kept in the answer: the batch holding it may be
   * published, and leave `pending`, before this one applies the command.
   * No query, and no promise, when there is nothing to look up.
   */
  known(entries: StreamEntry[], local: LocalCommand[]): ReadonlyMap<string, unknown> | Promise<ReadonlyMap<string, unknown>> {
    const pending = this.pending;
    const lookUp: string[] = [];
    const jobs: JobCommandKey[] = [];
    let held: Map<string, unknown> | undefined;
    const inPending = (key: string) => {
      const reply = pending.get(key);
      if (reply === undefined) return false;
      (held ??= new Map()).set(key, reply);
      return true;
    };
    const add = (key: string, command: EngineCommand, batchKey: string | undefined) => {
      if (isJobCommand(command)) jobs.push({ key, jobKey: command.jobKey });
      else lookUp.push(key);
      if (batchKey !== undefined) lookUp.push(batchKey);
    };
    for (const entry of entries) {
      const payload = entry.payload as EngineCommand;
      if ((payload.fresh && streamIdIsAfter(entry.id, this.replayUpTo)) || inPending(entry.key) || this.unapplied(entry.key, payload)) continue;
      add(entry.key, payload, payload.batchKey);
    }
    for (const command of local) {
      if ((command.payload.fresh && !command.attempted) || inPending(command.key) || this.unapplied(command.key, command.payload)) continue;
      add(command.key, command.payload, command.batchKey);
    }
    if (lookUp.length === 0 && jobs.length === 0) return held ?? NONE;
    const logged = this.commands.findCommandResults(this.partition, lookUp, jobs);
    if (held === undefined) return logged;
    const fromPending = held;
    return logged.then((found) => new Map([...fromPending, ...found]));
  }

  /** A job command that the hot jobs show was never applied (HotInstances.neverApplied). */
  private unapplied(key: string, command: EngineCommand): boolean {
    return isJobCommand(command) && this.hot.neverApplied(command.jobKey, key);
  }

  /** A command's first result, if it was applied before: in the command log (its own row or its batch's), or in a batch not yet committed. */
  earlier(known: ReadonlyMap<string, unknown>, key: string, batchKey: string | undefined): unknown {
    return known.get(key) ?? loggedIn(known, batchKey, key) ?? this.pending.get(key);
  }

  /** Logs a stream command's result in its batch. */
  record(work: BatchWork, key: string, command: EngineCommand, reply: CommandReply): void {
    this.pending.set(key, reply);
    if (isJobCommand(command)) {
      this.hot.applied(command.jobKey, key);
      work.batch.commands!.push({ key, result: reply, jobKey: command.jobKey });
    } else work.batch.commands!.push({ key, result: reply });
  }

  /** Logs a local command's result in its batch: a fresh one's in the batch's shared row (BatchWork.logged). */
  recordLocal(work: BatchWork, command: LocalCommand, reply: CommandReply): void {
    if (command.payload.fresh) {
      // No retry can reach this leader with a made-up key: nothing to keep in `pending`.
      work.logged ??= { key: `@batch:${this.epoch}:${Date.now()}:${this.batchSeq++}`, results: {} };
      work.logged.results[command.key] = reply;
      command.batchKey = work.logged.key;
    } else this.record(work, command.key, command.payload, reply);
  }

  /** The batch's shared row of fresh local results, once all are in. */
  close(work: BatchWork): void {
    if (work.logged !== undefined) work.batch.commands!.push({ key: work.logged.key, result: work.logged.results });
  }

  /** The batch is published: the command log answers for its commands now. */
  published(work: BatchWork): void {
    for (const command of work.batch.commands!) this.pending.delete(command.key);
  }

  /** After a failure nothing uncommitted counts. */
  clear(): void {
    this.pending.clear();
  }
}

/** A command's result in the row its batch logged it in (BatchWork.logged), if that batch committed. */
function loggedIn(known: ReadonlyMap<string, unknown>, batchKey: string | undefined, commandKey: string): unknown {
  if (batchKey === undefined) return undefined;
  return (known.get(batchKey) as Record<string, unknown> | undefined)?.[commandKey];
}
