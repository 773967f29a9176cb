// A partition leader's share of signals (extension, docs/signals.md). A
// signal is not buffered and has no correlation key: it reaches the
// instances waiting for its name now, on every partition. broadcastSignal
// runs on the signal's home partition (a hash of account and name), which
// alone starts instances by signal start events; deliverSignal brings it to
// every other partition, keyed by the signal key so a delivery sent twice
// is applied once. A signal an instance throws (a signal throw or end
// event) reaches this partition's instances in the same batch, and leaves
// an outbox row (a buffered_messages row that expired at the epoch, which
// no published message can be) written by that batch: once the batch
// commits, the signal is delivered to the other partitions, and the row is
// deleted when all have committed it and the instances it starts by signal
// start events are settled (signal-starts.ts). A leader that stops first
// leaves the row, and the next one's recovery delivers it again.
import { apply } from '../../runtime/apply.ts';
import type { Variables } from '../../runtime/types.ts';
import type { BufferedMessageRecord } from '../../store/index.ts';
import type { SendCommand } from '../command-client.ts';
import type { CommandReply, EngineCommand } from '../commands.ts';
import type { EventStartCharges } from '../event-start-charges.ts';
import { scoped, type KeyGenerator } from '../keys.ts';
import { signalStartTargets } from '../message-starts.ts';
import type { ModelCache } from '../model-cache.ts';
import type { BatchWork } from './batch-work.ts';
import type { Contexts } from './context.ts';
import type { Effects } from './effects.ts';
import type { Executor } from './execute.ts';
import type { HotInstances } from './hot-instances.ts';
import type { Internal } from './internal-work.ts';
import { OUTBOX_EXPIRY, type MessageState } from './messages.ts';
import { retrying, STOPPED, ThrownSignalStarts, type ThrownSignal } from './signal-starts.ts';

export type { ThrownSignal };

type SignalCommand = Extract<EngineCommand, { kind: 'broadcastSignal' | 'deliverSignal' }>;

export interface OutboxParts {
  partition: number;
  partitions: number;
  keys: KeyGenerator;
  internal: Internal[];
  messages: MessageState;
  models: ModelCache;
  /** Credits for the instances thrown signals start (FREE_STARTS when credits are off). */
  charges: EventStartCharges;
  /** The engine's command client; undefined until the engine has one (then nothing is sent until it has). */
  send: () => SendCommand | undefined;
  /** Wakes the batch loop: a released row is deleted by a batch, even on an idle partition. */
  wakeUp: () => void;
}

export class SignalOutbox {
  private stopped = false;
  private readonly starts: ThrownSignalStarts;

  constructor(private readonly parts: OutboxParts) {
    const { partitions, models, charges, send } = parts;
    this.starts = new ThrownSignalStarts({ partitions, models, charges, send, stopped: () => this.stopped });
  }

  /**
   * A throw or end event of an instance at signal `generation` threw `name`:
   * this partition's instances get it in this batch, the others once it
   * commits. The outbox row's correlation key (a signal has none) keeps the
   * generation for a redelivery.
   */
  thrown(account: string, name: string, variables: Variables, generation: number, work: BatchWork): void {
    const key = this.parts.keys.next();
    work.batch.messagesInsert!.push({ key, account, name, correlationKey: String(generation), variables, expiresAt: OUTBOX_EXPIRY });
    this.parts.internal.push({ kind: 'signal', account, signalKey: key, name, variables });
    work.signals.push({ key, account, name, variables, generation });
  }

  /** Committed: deliver each to the other partitions, in the background (the batch loop does not wait for other leaders). */
  dispatch(signals: readonly ThrownSignal[]): void {
    // Dropped on purpose: deliver() never rejects, and retries until it is through or the leader stops.
    for (const signal of signals) void this.deliver(signal, false);
  }

  /**
   * Recovery: the outbox rows of signals thrown by committed batches whose
   * delivery was not confirmed. This partition gets them again too: its
   * share may have been a follow-up the crash cut off (an instance that had
   * it refuses it by key).
   */
  recovered(rows: readonly BufferedMessageRecord[]): void {
    for (const r of rows) {
      // A row written before generations were kept has an empty correlation key: generation 0.
      const generation = Number.parseInt(r.correlationKey, 10) || 0;
      void this.deliver({ key: String(r.key), account: r.account, name: r.name, variables: r.variables, generation }, true);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Never rejects: retries until the signal is through (then its row goes) or the leader stops (then the row stays). */
  private async deliver(signal: ThrownSignal, home: boolean): Promise<void> {
    const [started, reached] = await Promise.all([this.starts.start(signal), this.reach(signal, home)]);
    if (!started || !reached || this.stopped) return;
    this.parts.messages.release(signal.key);
    this.parts.internal.push({ kind: 'outboxReleased' });
    this.parts.wakeUp();
  }

  /** The waiting instances of every other partition (and this one's too on a redelivery) get the signal; false when stopped first. */
  private async reach(signal: ThrownSignal, home: boolean): Promise<boolean> {
    const { key, account, name, variables } = signal;
    const { partition, partitions } = this.parts;
    const done = await retrying(
      () => this.stopped,
      async () => {
        const send = this.parts.send();
        if (send === undefined) throw new Error('no command client yet');
        const sends: Promise<unknown>[] = [];
        for (let p = 0; p < partitions; p++) {
          // Keyed by the signal key: a delivery sent again is applied once.
          if (home || p !== partition)
            sends.push(send(p, { kind: 'deliverSignal', account, signalKey: key, name, variables }, scoped(account, `signal:${key}`)));
        }
        await Promise.all(sends);
      },
    );
    return done !== STOPPED;
  }
}

export class SignalCommands {
  constructor(
    private readonly state: MessageState,
    private readonly models: ModelCache,
    private readonly contexts: Contexts,
    private readonly keys: KeyGenerator,
    private readonly hot: HotInstances,
    private readonly effects: Effects,
  ) {}

  async execute(command: SignalCommand, work: BatchWork, executor: Executor): Promise<CommandReply> {
    const { account, name, variables } = command;
    if (command.kind === 'deliverSignal') {
      await this.reach(account, command.signalKey, name, variables, work, executor);
      return { ok: true, value: { done: true } };
    }
    if (command.thrown !== undefined) {
      // A thrown signal's starts (signal-starts.ts): the signal reached this partition by deliverSignal.
      const { signalKey, generation } = command.thrown;
      const started = command.maxStarts > 0 ? await this.start(account, name, variables, command.maxStarts, work, generation + 1) : 0;
      return { ok: true, value: { signalKey, started } };
    }
    const signalKey = this.keys.next();
    await this.reach(account, signalKey, name, variables, work, executor);
    const started = command.maxStarts > 0 ? await this.start(account, name, variables, command.maxStarts, work) : 0;
    return { ok: true, value: { signalKey, started } };
  }

  /** Every instance of this partition waiting for the signal gets it, once each. */
  async reach(account: string, signalKey: string, name: string, variables: Variables, work: BatchWork, executor: Executor): Promise<void> {
    for (const instanceKey of this.state.index.instancesForSignal(account, name)) {
      const hot = this.hot.get(instanceKey);
      if (hot === undefined) continue;
      // Refused when the instance had the signal already or was set aside: nothing changes then.
      await executor.applyTo(hot, { type: 'receiveSignal', signalKey, name, variables }, work);
    }
  }

  /** Instances of the latest versions with a signal start event of this name, at most `max` (the credits charged for them), at `generation`. */
  private async start(account: string, name: string, variables: Variables, max: number, work: BatchWork, generation = 0): Promise<number> {
    let started = 0;
    for (const target of await signalStartTargets(this.models, account, name)) {
      if (started >= max) break;
      const ctx = this.contexts.of(target.model, target.view, null, target.version);
      const result = apply(null, { type: 'start', variables, version: target.version, startEventId: target.elementId, signalGeneration: generation }, ctx);
      if (!result.ok) continue;
      this.effects.settle(account, null, result, work, target.model);
      started++;
    }
    return started;
  }
}
