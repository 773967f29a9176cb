// A partition leader's share of messages (extension, docs/messages.md): the
// messages buffered on this partition and the open subscriptions of its
// instances, both in memory (rebuilt from Postgres at recovery: the buffered
// rows, and the subscriptions in the instance documents), and the two
// commands. publishMessage runs on the message's partition (a hash of the
// account, name and correlation key), which alone answers messageId
// uniqueness and starts instances by message start events;
// deliverMessage brings the same message to every other partition. Each
// correlates to its own waiting instances — one of each process, claimed in
// Postgres first (message-claims.ts) — and buffers its own copy, so a
// subscription opened later on any partition finds the message where it
// is. It also indexes signal subscriptions and deletes the outbox rows of
// thrown signals (signals.ts) once they are delivered, and keeps Zeebe's
// rule for message start events (one active message-started instance per
// process and correlation key, runtime/message-start-gate.ts; the starts a
// buffered message makes once one ends, buffered-starts.ts). Everything it
// changes goes into the batch like any other write, but the claims.
import { LIMITS } from '../../limits.ts';
import { apply } from '../../runtime/apply.ts';
import { MessageBuffer, SubscriptionIndex, type BufferedMessage } from '../../runtime/message-buffer.ts';
import { MessageStartGate } from '../../runtime/message-start-gate.ts';
import type { Command, HistoryRecord, MessageSubscription, ProcessInstance, Variables } from '../../runtime/types.ts';
import type { BufferedMessageRecord, Store } from '../../store/index.ts';
import type { CommandReply, EngineCommand } from '../commands.ts';
import type { KeyGenerator } from '../keys.ts';
import { messageStartTargets } from '../message-starts.ts';
import type { ModelCache } from '../model-cache.ts';
import type { BatchWork } from './batch-work.ts';
import type { Contexts } from './context.ts';
import type { Effects } from './effects.ts';
import type { Executor } from './execute.ts';
import type { Hot, HotInstances } from './hot-instances.ts';
import type { PendingStart } from './buffered-starts.ts';
import { MessageClaims, type ClaimCandidate } from './message-claims.ts';
import type { Internal } from './internal-work.ts';

/** The expiry that marks a buffered_messages row as a thrown signal's outbox row (signals.ts): no published message expires before it is written. */
export const OUTBOX_EXPIRY = 0;
/**
 * The expiry that marks a buffered_messages row as a buffered start on its
 * way (buffered-starts.ts): written by the batch that ended the instance it
 * waited behind, deleted by the batch that makes (or gives up) the start, so
 * a leader that stops in between leaves it for the next one's recovery.
 */
export const PENDING_START_EXPIRY = 1;

/** What recovery found in the partition's buffered_messages rows besides the messages. */
export interface RecoveredRows {
  /** Thrown signals' outbox rows (signals.ts). */
  outbox: BufferedMessageRecord[];
  /** Buffered starts a committed batch began and none finished (buffered-starts.ts). */
  pendingStarts: PendingStart[];
}

type MessageCommand = Extract<EngineCommand, { kind: 'publishMessage' | 'deliverMessage' }>;
type CorrelateMessage = Extract<Command, { type: 'correlateMessage' }>;

/** The buffer and the subscription index; Effects tells it of subscriptions as instances open and close them. */
export class MessageState {
  readonly buffer = new MessageBuffer();
  readonly index = new SubscriptionIndex();
  /** Which message-started instance (or buffered start on its way) holds each process and correlation key. */
  readonly gate = new MessageStartGate();
  /** Which instance of each process a message went to (Zeebe's cardinality, message-claims.ts). */
  readonly claims: MessageClaims;
  /** Thrown signals' outbox rows (signals.ts) whose delivery every partition confirmed, deleted with the next batch. */
  private readonly released: string[] = [];
  /** This batch's correlations waiting for their claims, made in one statement once its commands are done (flush). */
  private pending: { message: BufferedMessage; candidates: (ClaimCandidate & { hot?: Hot })[] }[] = [];
  private readonly pendingInstances = new Set<string>();

  constructor(
    /** Work for instances later in the same batch (internal-work.ts). */
    private readonly internal: Internal[],
    /** Keys of the pending-start rows. */
    private readonly keys: KeyGenerator,
    store: Pick<Store, 'messages'>,
    partition: number,
  ) {
    this.claims = new MessageClaims(store, partition, this.buffer);
  }

  /**
   * Correlates `message`, once this batch's commands are done, to those of
   * `candidates` (preferred in their order) its claims give it; a candidate
   * without `hot` is a claim only (an instance the message started).
   */
  defer(message: BufferedMessage, candidates: (ClaimCandidate & { hot?: Hot })[]): void {
    if (candidates.length === 0) return;
    this.pending.push({ message, candidates });
    for (const c of candidates) this.pendingInstances.add(c.instanceKey);
  }

  /** Whether a correlation deferred in this batch may go to the instance. */
  isPending(instanceKey: string): boolean {
    return this.pendingInstances.has(instanceKey);
  }

  /**
   * Makes the deferred correlations' claims in one statement and applies
   * those won — in the batch of the commands that deferred them, so a
   * command the batch logs as done had its correlations committed with it.
   */
  async flush(work: BatchWork, executor: Executor): Promise<void> {
    if (this.pending.length === 0) return;
    const taken = this.pending;
    this.dropPending();
    const won = await this.claims.claimMany(taken.map((p) => ({ messageKey: p.message.key, expiresAt: p.message.expiresAt, candidates: p.candidates })));
    for (const { message, candidates } of taken) {
      const winners = won.get(message.key)!;
      const { key: messageKey, name, correlationKey, variables } = message;
      const command = { type: 'correlateMessage', messageKey, name, correlationKey, variables } as const;
      // Refused when the instance was set aside, or its wait ended earlier in the batch: nothing changes then.
      for (const c of candidates) if (c.hot !== undefined && winners.has(c.instanceKey)) await executor.applyTo(c.hot, command, work);
    }
  }

  /** Forgets deferred correlations (flushed, or their batch failed and is built again). */
  dropPending(): void {
    this.pending = [];
    this.pendingInstances.clear();
  }

  /** A subscription opened: indexed, and a buffered message neither the instance nor another of its process had is offered in this batch. */
  opened(account: string, instance: ProcessInstance, s: MessageSubscription): void {
    this.index.open(account, instance.key, s);
    // Signals are not buffered.
    if (s.signal !== true) this.offer(account, instance, s);
  }

  private offer(account: string, instance: ProcessInstance, s: Pick<MessageSubscription, 'key' | 'name' | 'correlationKey'>): void {
    const command = this.buffer.correlationFor(account, instance.bpmnProcessId, s, Date.now(), instance.correlatedMessages);
    if (command !== undefined) this.internal.push({ kind: 'command', account, instanceKey: instance.key, command });
  }

  /**
   * A buffered message offered to a subscription (opened()), claimed for
   * the instance before it is applied: the command to apply, or, when
   * another instance of its process had that message, the next message it
   * may have (claimed likewise); undefined when none is left.
   */
  async claimOffered(account: string, instance: ProcessInstance, offered: CorrelateMessage): Promise<CorrelateMessage | undefined> {
    const s = { key: offered.subscriptionKey!, name: offered.name, correlationKey: offered.correlationKey };
    let command: CorrelateMessage | undefined = offered;
    while (command !== undefined) {
      const message = this.buffer.get(command.messageKey);
      if (message !== undefined && message.expiresAt > Date.now()) {
        const won = await this.claims.claim(message.key, message.expiresAt, [{ instanceKey: instance.key, bpmnProcessId: instance.bpmnProcessId }]);
        if (won.has(instance.key)) return command;
      }
      // The message expired, or its process had it (claim() noted that in the buffer): the next one, if any.
      command = this.buffer.correlationFor(account, instance.bpmnProcessId, s, Date.now(), [...(instance.correlatedMessages ?? []), command.messageKey]);
    }
    return undefined;
  }

  closed(account: string, s: MessageSubscription): void {
    this.index.close(account, s);
  }

  /**
   * A command applied to `instance`: a message-started one holds its key
   * from its start to its end. When it ends and a live message of its name
   * and key was buffered after the one that started it, the key stays
   * reserved for that start, which this batch hands on to be charged once it
   * committed (buffered-starts.ts).
   */
  settled(account: string, instance: ProcessInstance, records: readonly HistoryRecord[], work: BatchWork): void {
    const ended = this.gate.settled(account, instance, records);
    if (ended === undefined) return;
    const next = this.buffer.firstAfter(account, ended.bpmnProcessId, ended.name, ended.correlationKey, ended.messageKey, Date.now());
    if (next === undefined) return;
    const token = `after:${ended.messageKey}`;
    this.gate.hold(account, ended.bpmnProcessId, ended.name, ended.correlationKey, token);
    const marker = this.keys.next();
    const variables = { bpmnProcessId: ended.bpmnProcessId, after: ended.messageKey };
    work.batch.messagesInsert!.push({
      key: marker,
      account,
      name: ended.name,
      correlationKey: ended.correlationKey,
      variables,
      expiresAt: PENDING_START_EXPIRY,
    });
    work.bufferedStarts.push({ ...ended, account, token, reference: next.key, marker });
  }

  /** Messages whose time to live ran out leave memory and, with this batch, Postgres; so do released outbox rows. */
  expire(work: BatchWork): void {
    for (const message of this.buffer.expire(Date.now())) work.batch.messagesDelete!.push(message.key);
    if (this.released.length > 0) work.batch.messagesDelete!.push(...this.released.splice(0));
  }

  /** A thrown signal reached every other partition: its outbox row may go. */
  release(key: string): void {
    this.released.push(key);
  }

  /**
   * Recovery: the live buffered messages from Postgres, the subscriptions
   * from the instances in memory; thrown signals' outbox rows and the
   * pending buffered starts (their keys held again) are returned.
   */
  async recover(store: Store, partition: number, hot: HotInstances): Promise<RecoveredRows> {
    this.buffer.clear();
    this.index.clear();
    this.gate.clear();
    this.dropPending();
    this.released.length = 0;
    const outbox: BufferedMessageRecord[] = [];
    const pending: BufferedMessageRecord[] = [];
    for (const row of await store.messages.loadBufferedMessages(partition)) {
      const expiry = row.expiresAt.getTime();
      if (expiry === OUTBOX_EXPIRY || expiry === PENDING_START_EXPIRY) {
        (expiry === OUTBOX_EXPIRY ? outbox : pending).push(row);
        continue;
      }
      this.buffer.add({
        key: String(row.key),
        account: row.account,
        name: row.name,
        correlationKey: row.correlationKey,
        variables: row.variables,
        expiresAt: row.expiresAt.getTime(),
        ...(row.messageId === null ? {} : { messageId: row.messageId }),
      });
    }
    hot.each((h) => {
      this.index.remember(h.account, h.instance.key, h.instance.subscriptions);
      this.gate.remember(h.account, h.instance);
      // A claim whose correlation a lost batch did not store is still its instance's: buffered messages are offered again.
      for (const s of Object.values(h.instance.subscriptions ?? {})) if (s.signal !== true) this.offer(h.account, h.instance, s);
    });
    return { outbox, pendingStarts: pending.map((row) => this.pendingStart(row)) };
  }

  /** A pending-start row as the start it stands for, its key held for it again unless an instance holds it. */
  private pendingStart(row: BufferedMessageRecord): PendingStart {
    const { bpmnProcessId, after } = row.variables as { bpmnProcessId: string; after: string };
    const { account, name, correlationKey } = row;
    const token = `after:${after}`;
    if (this.gate.open(account, bpmnProcessId, name, correlationKey)) this.gate.hold(account, bpmnProcessId, name, correlationKey, token);
    const next = this.buffer.firstAfter(account, bpmnProcessId, name, correlationKey, after, Date.now());
    return { account, bpmnProcessId, name, correlationKey, messageKey: after, token, reference: next?.key ?? after, marker: String(row.key) };
  }
}

export class MessageCommands {
  constructor(
    private readonly state: MessageState,
    private readonly models: ModelCache,
    private readonly contexts: Contexts,
    private readonly keys: KeyGenerator,
    private readonly hot: HotInstances,
    private readonly effects: Effects,
  ) {}

  async execute(command: MessageCommand, work: BatchWork, executor: Executor): Promise<CommandReply> {
    this.state.expire(work);
    if (command.kind === 'deliverMessage') {
      const message = { ...command, key: command.messageKey };
      await this.correlate(message, work, executor);
      if (command.expiresAt > Date.now()) this.buffer(message, work);
      return { ok: true, value: { done: true } };
    }
    const { account, name, correlationKey, messageId, timeToLive } = command;
    const now = Date.now();
    if (messageId !== undefined) {
      const live = this.state.buffer.withMessageId(account, name, correlationKey, messageId, now);
      if (live !== undefined) {
        return { ok: true, value: { published: false, reason: 'duplicate', messageKey: live.key, variables: live.variables, expiresAt: live.expiresAt } };
      }
    }
    const limit = LIMITS.maxBufferedMessagesPerAccountPartition;
    if (timeToLive > 0 && this.state.buffer.countOf(account) >= limit) return { ok: true, value: { published: false, reason: 'bufferFull', limit } };
    const message: BufferedMessage = { key: this.keys.next(), account, name, correlationKey, variables: command.variables, expiresAt: now + timeToLive };
    if (messageId !== undefined) message.messageId = messageId;
    const reached = await this.correlate(message, work, executor);
    const started = command.maxStarts > 0 ? await this.start(message, command.maxStarts, reached, work) : 0;
    if (timeToLive > 0) this.buffer(message, work);
    return { ok: true, value: { published: true, messageKey: message.key, started, expiresAt: message.expiresAt } };
  }

  /**
   * The first instance of each process waiting for the message on this
   * partition gets it, unless an instance of that process elsewhere had it
   * (message-claims.ts); the processes it went to or had gone to.
   */
  private async correlate(message: BufferedMessage, work: BatchWork, executor: Executor): Promise<Set<string>> {
    let candidates = this.candidates(message);
    // An instance an earlier message of this batch may go to: that one is settled first, so this one sees where it went.
    if (candidates.some((c) => this.state.isPending(c.instanceKey))) {
      await this.state.flush(work, executor);
      candidates = this.candidates(message);
    }
    this.state.defer(message, candidates);
    return new Set(candidates.map((c) => c.bpmnProcessId));
  }

  private candidates(message: BufferedMessage): (ClaimCandidate & { hot: Hot })[] {
    const candidates: (ClaimCandidate & { hot: Hot })[] = [];
    for (const instanceKey of this.state.index.instancesFor(message.account, message.name, message.correlationKey)) {
      const hot = this.hot.get(instanceKey);
      if (hot === undefined || hot.instance.correlatedMessages?.includes(message.key)) continue;
      candidates.push({ instanceKey, bpmnProcessId: hot.instance.bpmnProcessId, hot });
    }
    return candidates;
  }

  /**
   * Instances of the latest versions with a message start event of this
   * name, at most `max` (the credits charged for them); none of a process
   * that an instance started by a message with this non-empty key holds.
   */
  private async start(message: BufferedMessage, max: number, reached: ReadonlySet<string>, work: BatchWork): Promise<number> {
    let started = 0;
    const { account, name, correlationKey } = message;
    for (const target of await messageStartTargets(this.models, account, name)) {
      if (started >= max) break;
      // A process the message went to (a waiting instance of it) starts none.
      if (reached.has(target.bpmnProcessId) || !this.state.gate.open(account, target.bpmnProcessId, name, correlationKey)) continue;
      const ctx = this.contexts.of(target.model, target.view, null, target.version);
      const result = apply(
        null,
        {
          type: 'start',
          variables: message.variables as Variables,
          version: target.version,
          startEventId: target.elementId,
          message: { messageKey: message.key, name, correlationKey },
        },
        ctx,
      );
      if (!result.ok) continue;
      // A fresh message reached no other partition yet: the claim cannot be refused, and goes with the batch's others.
      this.state.defer(message, [{ instanceKey: result.instance.key, bpmnProcessId: target.bpmnProcessId }]);
      this.effects.settle(message.account, null, result, work, target.model);
      started++;
    }
    return started;
  }

  private buffer(message: BufferedMessage, work: BatchWork): void {
    if (this.state.buffer.has(message.key)) return;
    this.state.buffer.add(message);
    work.batch.messagesInsert!.push({
      key: message.key,
      account: message.account,
      name: message.name,
      correlationKey: message.correlationKey,
      variables: message.variables,
      expiresAt: message.expiresAt,
      ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    });
  }
}
