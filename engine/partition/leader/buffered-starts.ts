// The starts a buffered message makes on its message partition once the
// message-started instance it waited behind has ended (extension, Zeebe's
// rule; runtime/message-start-gate.ts). No request pays for such a start, so
// the leader takes the credit itself (event-start-charges.ts), after the
// batch that ended the instance committed — the ledger is not part of the
// batch — and starts the instance in a later batch, only if that is still
// right then: the key is still reserved for it (or free again after a
// recovery), a message of that name and key published after the one that
// started the ended instance is still buffered, and the latest version of
// the process still starts on that name. Otherwise the credit is refunded.
// Which message comes next is decided by the key of the message that
// started the ended instance, which its document keeps: a buffered message
// starts a process at most once, across recoveries too. The batch that
// reserves the key writes a pending-start row, and the batch that makes or
// gives up the start deletes it: a leader that stops in between leaves the
// row, and the next one's recovery takes the start up again.
import { apply } from '../../runtime/apply.ts';
import type { EndedStart } from '../../runtime/message-start-gate.ts';
import type { EventStartCharges, TakenStarts } from '../event-start-charges.ts';
import { messageStartTargets } from '../message-starts.ts';
import type { ModelCache } from '../model-cache.ts';
import type { BatchWork } from './batch-work.ts';
import type { Contexts } from './context.ts';
import type { Effects } from './effects.ts';
import type { Internal } from './internal-work.ts';
import type { MessageState } from './messages.ts';

/** A start to make once a batch that ended a message-started instance committed. */
export interface PendingStart extends EndedStart {
  account: string;
  /** What holds the key for it meanwhile (MessageStartGate). */
  token: string;
  /** The buffered message expected to start it, named in the ledger. */
  reference: string;
  /** Its pending-start row (messages.ts PENDING_START_EXPIRY), deleted by the batch that makes or gives up the start. */
  marker: string;
}

const NOTHING_TAKEN: TakenStarts = { granted: 0, refund: async () => {} };

export class BufferedStarts {
  constructor(
    private readonly state: MessageState,
    private readonly models: ModelCache,
    private readonly contexts: Contexts,
    private readonly effects: Effects,
    /** Work for the next batch (internal-work.ts). */
    private readonly internal: Internal[],
    private readonly charges: EventStartCharges,
    /** Wakes the batch loop: the start is made by a batch, even on an idle partition. */
    private readonly wakeUp: () => void,
  ) {}

  /** Committed: take each start's credit, in the background (the batch loop does not wait for the ledger). */
  dispatch(starts: readonly PendingStart[]): void {
    // Dropped on purpose: charge() never rejects.
    for (const start of starts) void this.charge(start);
  }

  private async charge(start: PendingStart): Promise<void> {
    let taken = NOTHING_TAKEN;
    try {
      taken = await this.charges.take(start.account, 1, 'message-start', start.reference);
    } catch {
      // The ledger did not answer: like a publish the API could not charge, it starts nothing (and frees the key).
    }
    this.internal.push({ kind: 'bufferedStart', start, taken });
    this.wakeUp();
  }

  /** In a batch: the start if it is still right and paid for; the key freed and the credit refunded otherwise. */
  async run(start: PendingStart, taken: TakenStarts, work: BatchWork): Promise<void> {
    const { account, bpmnProcessId, name, correlationKey } = start;
    const gate = this.state.gate;
    const holder = gate.holder(account, bpmnProcessId, name, correlationKey);
    // Undefined: a recovery since forgot the reservation, and no instance holds the key now.
    const ours = holder === start.token || holder === undefined;
    const started = ours && taken.granted > 0 && (await this.start(start, work));
    work.batch.messagesDelete!.push(start.marker);
    // A start that happened holds the key by its instance now (or ended at once and reserved it for the next).
    gate.release(account, bpmnProcessId, name, correlationKey, start.token);
    // Dropped on purpose: a refund the ledger refuses leaves the credit spent, as for any charge.
    if (!started && taken.granted > 0) void taken.refund(1).catch(() => {});
  }

  /** Starts an instance by the first live message after the ended one's that no instance of the process had (message-claims.ts). */
  private async start(start: PendingStart, work: BatchWork): Promise<boolean> {
    const { account, bpmnProcessId, name, correlationKey } = start;
    const target = (await messageStartTargets(this.models, account, name)).find((t) => t.bpmnProcessId === bpmnProcessId);
    if (target === undefined) return false;
    let after = start.messageKey;
    for (;;) {
      const next = this.state.buffer.firstAfter(account, bpmnProcessId, name, correlationKey, after, Date.now());
      if (next === undefined) return false;
      after = next.key;
      const ctx = this.contexts.of(target.model, target.view, null, target.version);
      const result = apply(
        null,
        {
          type: 'start',
          variables: next.variables,
          version: target.version,
          startEventId: target.elementId,
          message: { messageKey: next.key, name, correlationKey },
        },
        ctx,
      );
      if (!result.ok) return false;
      const claim = { instanceKey: result.instance.key, bpmnProcessId };
      if (!(await this.state.claims.claim(next.key, next.expiresAt, [claim])).has(claim.instanceKey)) continue;
      this.effects.settle(account, null, result, work, target.model);
      return true;
    }
  }
}
