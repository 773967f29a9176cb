// Zeebe's message cardinality on a partitioned engine (extension,
// docs/messages.md): a message goes to at most one instance of each process
// (BPMN process id, any version) — over every partition, and for as long as
// it is buffered. The instances waiting for it live on many partitions, so
// which one gets it is decided in Postgres: before a leader applies a
// correlation (or starts an instance by the message), it claims the
// (message, process) pair for that instance in message_correlations, and
// the first claim wins. A claim the same instance makes again — its batch
// built again after a leader stopped before the commit — is still its own;
// an instance whose claim was made and whose batch was lost gets the message
// when its leader's recovery offers buffered messages again. A claim that
// lost teaches the buffer here that the process had the message, so it is
// not offered to another of its instances. Claims outlive their message by
// CLAIM_GRACE_MS (a delivery the API sends again must still find them);
// then the leader of their partition deletes them, a bounded number at a
// time, at most once every PRUNE_EVERY_MS.
import type { MessageBuffer } from '../../runtime/message-buffer.ts';
import type { CorrelationClaim, Store } from '../../store/index.ts';

/** How long a claim stays after its message expired. */
export const CLAIM_GRACE_MS = 3_600_000;
const PRUNE_EVERY_MS = 60_000;
const PRUNE_LIMIT = 5_000;

export interface ClaimCandidate {
  instanceKey: string;
  bpmnProcessId: string;
}

export class MessageClaims {
  private lastPrune = 0;
  private pruning: Promise<unknown> | undefined;

  constructor(
    private readonly store: Pick<Store, 'messages'>,
    private readonly partition: number,
    private readonly buffer: MessageBuffer,
  ) {}

  /**
   * Of `candidates` (in the order they should be preferred), the instances
   * that may have message `messageKey`: at most one per process, the one
   * that holds its claim. Every process the message went to is noted in the
   * buffer's copy of it.
   */
  async claim(messageKey: string, expiresAt: number, candidates: readonly ClaimCandidate[]): Promise<Set<string>> {
    return (await this.claimMany([{ messageKey, expiresAt, candidates }])).get(messageKey) ?? new Set();
  }

  /** claim() for several messages in one statement: by message key, the instances that may have it. */
  async claimMany(wanted: readonly { messageKey: string; expiresAt: number; candidates: readonly ClaimCandidate[] }[]): Promise<Map<string, Set<string>>> {
    const won = new Map<string, Set<string>>();
    const claims: CorrelationClaim[] = [];
    for (const { messageKey, expiresAt, candidates } of wanted) {
      if (!won.has(messageKey)) won.set(messageKey, new Set());
      const until = Math.max(expiresAt, Date.now()) + CLAIM_GRACE_MS;
      for (const c of candidates)
        claims.push({ messageKey, bpmnProcessId: c.bpmnProcessId, instanceKey: c.instanceKey, partition: this.partition, expiresAt: until });
    }
    if (claims.length === 0) return won;
    const mine = new Set(claims.map((c) => `${c.messageKey}:${c.instanceKey}`));
    for (const holder of await this.store.messages.claimCorrelations(claims)) {
      if (mine.has(`${holder.messageKey}:${holder.instanceKey}`)) won.get(holder.messageKey)!.add(holder.instanceKey);
    }
    // Each candidate's process has the message now: one of ours holds it, or another instance does (or is claiming it this moment).
    for (const c of claims) this.buffer.wentTo(c.messageKey, c.bpmnProcessId);
    this.prune();
    return won;
  }

  /** Deletes this partition's expired claims now and then, beside the batches (a failure is retried next time). */
  prune(): void {
    const now = Date.now();
    if (this.pruning !== undefined || now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pruning = this.store.messages
      .pruneCorrelations(this.partition, now, PRUNE_LIMIT)
      .catch(() => undefined)
      .finally(() => (this.pruning = undefined));
  }
}
