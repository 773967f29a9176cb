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
