// What API pods send to a partition leader over its command stream, and
// what the leader replies. Every command carries an idempotency key (the
// stream entry's key), so a replayed command returns its first result.
import type { RejectionCode, Variables } from '../runtime/types.ts';

export type EngineCommand = (
  | { kind: 'start'; account: string; bpmnProcessId: string; variables: Variables }
  | { kind: 'completeJob'; account: string; jobKey: string; variables?: Variables }
  | { kind: 'failJob'; account: string; jobKey: string; retries: number; errorMessage?: string }
  | { kind: 'cancel'; account: string; instanceKey: string }
  /** A new version was deployed: (re)arm its timer start events, withdrawing the previous version's. */
  | { kind: 'scheduleStartTimers'; account: string; bpmnProcessId: string; version: number }
) & {
  /** The key was generated for this one call (no client command key): no earlier command can have it. */
  fresh?: true;
  /**
   * A local command handed back by a leader that stopped after a batch
   * holding it may have committed: that batch logged its result under this
   * key (one row for the batch's fresh local commands), so the next leader
   * looks there as well as under the command's own key.
   */
  batchKey?: string;
};

export interface StartedInstance {
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  state: string;
}

export type CommandReply =
  | { ok: true; value: StartedInstance | { done: true } }
  | { ok: false; code: RejectionCode; message: string };
