// Building a batch: the commands of one batch are applied in memory, in
// order — each answered from its first result if it was applied before,
// else executed, its result logged — then the follow-ups they caused, and
// what the queues get is taken from the state the batch leaves. The
// common command (nothing to look up, nothing to load) goes through
// without an await. A batch stops taking commands once it has run for
// BATCH_TIME_MS: FEEL bounds each evaluation, but a batch of commands each
// close to its bound would hold the event loop (and every partition of
// the process) for their sum; the rest wait for the next batch, after the
// loop has yielded.
import type { StreamEntry } from '../../queue/index.ts';
import type { CommandReply, EngineCommand } from '../commands.ts';
import { BatchWork } from './batch-work.ts';
import type { Effects } from './effects.ts';
import type { Executor } from './execute.ts';
import type { CommandIntake, LocalCommand } from './intake.ts';
import { timerUnit, type Internal, type InternalWork } from './internal-work.ts';
import type { WebhookTakerSlot } from '../webhook-taker.ts';
import type { Isolation } from './isolation.ts';
import type { MessageState } from './messages.ts';
import type { CommandResults } from './results.ts';

/** Commands one batch may cause on other instances (parent/child), past which they wait for the next batch. */
const FOLLOW_UP_MAX = 10_000;
/** How long a batch takes commands for; a batch of ordinary commands is done long before. */
export const BATCH_TIME_MS = 100;

export class BatchBuilder {
  constructor(
    private readonly partition: number,
    private readonly epoch: number,
    private readonly results: CommandResults,
    private readonly executor: Executor,
    private readonly isolation: Isolation,
    private readonly internal: Internal[],
    private readonly internalWork: InternalWork,
    private readonly effects: Effects,
    private readonly intake: CommandIntake,
    /** Buffered messages whose time to live ran out are deleted with each batch (extension). */
    private readonly messages: MessageState,
    private readonly webhooks?: WebhookTakerSlot,
  ) {}

  /** Numbers this leader's batches that carry webhook events (their outbox rows' keys). */
  private webhookSeq = 0;

  /** Applies the commands to the instances in memory and gathers what the batch writes and, once committed, does. */
  async build(entries: StreamEntry[], local: LocalCommand[], isolated: boolean): Promise<BatchWork> {
    const { results, isolation } = this;
    const work = new BatchWork(this.partition, this.epoch);
    this.messages.dropPending();
    this.messages.expire(work);
    const lookedUp = results.known(entries, local);
    const known = lookedUp instanceof Promise ? await lookedUp : lookedUp;
    // The fast path only when nothing is set aside or replayed carefully (runUnit looks at both).
    const plain = isolation.plain();
    /** The unit being applied, to blame if applying it throws. */
    let unit: string | undefined;
    // While isolating, the batch runs its one unit's follow-ups only; work queued before waits for the next batch.
    const held = isolated ? this.internal.splice(entries.length + local.length > 0 ? 0 : 1) : [];
    const deadline = performance.now() + BATCH_TIME_MS;
    try {
      for (let i = 0; i < entries.length; i++) {
        if (i > 0 && performance.now() > deadline) {
          this.intake.deferRest(entries, i, local, 0);
          break;
        }
        const entry = entries[i];
        const payload = entry.payload as EngineCommand;
        const earlier = results.earlier(known, entry.key, payload.batchKey);
        if (earlier !== undefined) {
          work.replies.push({ commandKey: entry.key, result: earlier, replyTo: entry.replyTo });
          continue;
        }
        unit = entry.key;
        work.units.push(unit);
        const done = plain ? this.executor.execute(payload, work) : isolation.runUnit(entry.key, payload, work, entry.id);
        const reply = withOrigin(done instanceof Promise ? await done : done, payload);
        results.record(work, entry.key, payload, reply);
        if (!reply.ok) work.tally.reject(reply.code);
        work.replies.push({ commandKey: entry.key, result: reply, replyTo: entry.replyTo });
      }
      for (let i = 0; i < local.length; i++) {
        if ((i > 0 || entries.length > 0) && performance.now() > deadline) {
          this.intake.deferRest(entries, entries.length, local, i);
          break;
        }
        const command = local[i];
        const earlier = results.earlier(known, command.key, command.batchKey) as CommandReply | undefined;
        if (earlier !== undefined) {
          work.answers.push({ command, reply: earlier });
          continue;
        }
        unit = command.key;
        work.units.push(unit);
        const done = plain ? this.executor.execute(command.payload, work) : isolation.runUnit(command.key, command.payload, work);
        const reply = withOrigin(done instanceof Promise ? await done : done, command.payload);
        results.recordLocal(work, command, reply);
        if (!reply.ok) work.tally.reject(reply.code);
        work.answers.push({ command, reply });
      }
      results.close(work);
      // deferRest cut what did not fit off the arrays.
      work.tally.commands = entries.length + local.length;
      // Follow-ups belong to the unit that caused them only when it is alone in the batch.
      if (!isolated) unit = undefined;
      // The correlations the message commands deferred, claimed in one statement (message-claims.ts).
      await this.messages.flush(work, this.executor);
      for (let n = 0; this.internal.length > 0 && n < FOLLOW_UP_MAX && (n === 0 || performance.now() <= deadline); n++) {
        const item = this.internal.shift()!;
        const timer = timerUnit(item);
        if (timer !== undefined) work.units.push((unit = timer));
        await this.internalWork.run(item, work, timer === undefined ? undefined : isolation.why(timer));
      }
    } catch (err) {
      isolation.blameThrow(work, unit, err);
      throw err;
    } finally {
      this.internal.unshift(...held);
    }
    // What the queues get is taken now, from the state this batch leaves: by
    // the time it is published the next batch may have changed the memory.
    work.variables = this.effects.waitingJobVariables(work);
    if (entries.length > 0) work.ack = { partition: this.partition, uptoId: entries[entries.length - 1].id };
    if (work.batch.events!.length > 0) {
      work.batch.seq = this.webhookSeq++;
      // Decided before the commit: the statement writes the hold into the batch's outbox row.
      work.batch.webhookHoldMs = this.webhooks?.current?.holdMs() ?? 0;
    }
    return work;
  }
}

/** The reply as logged and sent: with the origin of a command that carries one (a client's keyed request), so a retry can be told from a reuse. */
function withOrigin(reply: CommandReply, command: EngineCommand): CommandReply {
  return command.origin === undefined ? reply : { ...reply, origin: command.origin };
}
