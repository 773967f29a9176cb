// Work for instances that does not come from the stream: due timers, the
// messages an applied command sends to its parent or children, child
// starts, signals thrown on this partition, and the starts buffered
// messages make once they were paid for (extension). It is queued while a batch is built (the timer wheel, Effects)
// and run in the same batch after the commands, as follow-ups.
import { apply } from '../../runtime/apply.ts';
import { childStartCommand, type StartChild } from '../../runtime/child-start.ts';
import type { Command, Variables } from '../../runtime/types.ts';
import { storableText } from '../../limits.ts';
import type { EngineLog } from '../log.ts';
import type { ModelCache } from '../model-cache.ts';
import type { ArmedTimer } from '../timer-wheel.ts';
import type { BatchWork } from './batch-work.ts';
import type { CaseCommands, StartChildCase } from './cases.ts';
import type { Contexts } from './context.ts';
import type { Effects } from './effects.ts';
import type { Executor } from './execute.ts';
import type { HotInstances } from './hot-instances.ts';
import type { SignalCommands } from './signals.ts';
import type { StartTimers } from './start-timers.ts';
import type { BufferedStarts, PendingStart } from './buffered-starts.ts';
import type { MessageState } from './messages.ts';
import type { TakenStarts } from '../event-start-charges.ts';

/** Work for an instance that does not come from the stream: timers, parent/child messages, child starts. */
export type Internal =
  | { kind: 'command'; account: string; instanceKey: string; command: Command }
  | { kind: 'startChild'; account: string; parentKey: string; effect: StartChild }
  | { kind: 'startTimer'; timer: ArmedTimer }
  /** A case task's child case (CMMN). */
  | { kind: 'startChildCase'; account: string; parentKey: string; effect: StartChildCase }
  /** Extension: a signal an instance of this partition threw, for this partition's waiting instances. */
  | { kind: 'signal'; account: string; signalKey: string; name: string; variables: Variables }
  /** Extension: thrown signals' outbox rows may go; the batch this makes deletes them (MessageState.expire), nothing else to do. */
  | { kind: 'outboxReleased' }
  /** Extension: a buffered message's start, its credit taken (buffered-starts.ts). */
  | { kind: 'bufferedStart'; start: PendingStart; taken: TakenStarts };

/** What a due timer becomes. */
export function timerWork(timer: ArmedTimer): Internal {
  return timer.start !== undefined
    ? { kind: 'startTimer', timer }
    : { kind: 'command', account: timer.account, instanceKey: timer.instanceKey!, command: { type: 'fireTimer', timerKey: timer.key } };
}

/** The unit a timer firing is, for isolation (see Isolation.suspects); undefined for other internal work. */
export function timerUnit(item: Internal): string | undefined {
  if (item.kind === 'startTimer') return `timer:${item.timer.key}`;
  if (item.kind === 'command' && item.command.type === 'fireTimer') return `timer:${item.command.timerKey}`;
  return undefined;
}

export class InternalWork {
  constructor(
    private readonly partition: number,
    private readonly models: ModelCache,
    private readonly contexts: Contexts,
    private readonly hot: HotInstances,
    private readonly executor: Executor,
    private readonly effects: Effects,
    private readonly startTimers: StartTimers,
    private readonly log: EngineLog,
    private readonly signals: SignalCommands,
    private readonly cases: CaseCommands,
    private readonly bufferedStarts: BufferedStarts,
    private readonly messages: MessageState,
  ) {}

  /** Runs one item; `why` says why its unit is condemned (a timer whose firing could not be stored). */
  async run(item: Internal, work: BatchWork, why: string | undefined): Promise<void> {
    if (item.kind === 'startTimer') {
      await this.startTimers.fire(item.timer, work, why);
      return;
    }
    if (item.kind === 'outboxReleased') return;
    if (item.kind === 'bufferedStart') return this.bufferedStarts.run(item.start, item.taken, work);
    if (item.kind === 'signal') {
      await this.signals.reach(item.account, item.signalKey, item.name, item.variables, work, this.executor);
      return;
    }
    if (item.kind === 'startChildCase') {
      await this.cases.startChild(item.account, item.parentKey, item.effect, work);
      return;
    }
    if (item.kind === 'command') {
      // A case's timer, or a message from its child process or parent case.
      const hotCase = this.hot.getCase(item.instanceKey);
      if (hotCase !== undefined) return this.cases.fromInternal(hotCase, item.command, work, why);
      const hot = await this.hot.load(item.account, item.instanceKey);
      // A message for an instance that has ended changes nothing.
      if (hot === undefined) return;
      if (why !== undefined && item.command.type === 'fireTimer') {
        // A timer whose firing could not be stored: its instance is set aside, and the timer goes.
        const owner = hot.instance.timers[item.command.timerKey]?.ownerKey;
        this.log.warn(
          { partition: this.partition, timerKey: item.command.timerKey, instanceKey: item.instanceKey, reason: why },
          'timer rejected: its instance is set aside',
        );
        work.batch.timersDelete!.push(item.command.timerKey);
        await this.executor.applyTo(
          hot,
          { type: 'setAside', message: storableText(`A timer of this instance could not be processed: ${why}.`), elementInstanceKey: owner },
          work,
        );
        return;
      }
      let command: Command | undefined = item.command;
      // A buffered message offered to a subscription just opened goes only to the instance that claims it (message-claims.ts).
      if (command.type === 'correlateMessage' && command.subscriptionKey !== undefined)
        command = await this.messages.claimOffered(item.account, hot.instance, command);
      if (command !== undefined) await this.executor.applyTo(hot, command, work);
      return;
    }
    const { effect, account, parentKey } = item;
    const view = await this.models.view(account);
    const version = view.latest.get(effect.bpmnProcessId);
    if (version === undefined) return;
    const ctx = (await this.contexts.load(account, { bpmnProcessId: effect.bpmnProcessId, version }, null))!;
    const result = apply(null, childStartCommand(effect, parentKey, version), ctx);
    if (result.ok) this.effects.settle(account, parentKey, result, work, ctx.model);
  }
}
