// What API pods send to a partition leader over its command stream, and
// what the leader replies. Every command carries an idempotency key (the
// stream entry's key), so a replayed command returns its first result.
import type { AdHocActivation, AdHocJobResult, RejectionCode, Variables } from '../runtime/types.ts';

export type EngineCommand = (
  | { kind: 'start'; account: string; bpmnProcessId: string; variables: Variables }
  /** `result` (extension): the job result of an ad-hoc subprocess's job. */
  | { kind: 'completeJob'; account: string; jobKey: string; variables?: Variables; result?: AdHocJobResult }
  | { kind: 'failJob'; account: string; jobKey: string; retries: number; errorMessage?: string; retryBackOff?: number }
  /** A worker threw a BPMN error for its job (extension). */
  | { kind: 'throwJobError'; account: string; jobKey: string; errorCode: string; errorMessage?: string; variables?: Variables }
  /** A worker activated the job with a timeout (extension, ms): the leader records the hold and arms its deadline. */
  | { kind: 'holdJob'; account: string; jobKey: string; worker: string; timeout: number }
  | { kind: 'cancel'; account: string; instanceKey: string }
  /** Activate inner elements of the running ad-hoc subprocess `elementInstanceKey` of the instance (extension). */
  | { kind: 'activateAdHoc'; account: string; instanceKey: string; elementInstanceKey: string; elements: AdHocActivation[] }
  /**
   * Extension: publish a message, on its message partition (hash of account, name and correlation key):
   * correlate it there, start at most `maxStarts` instances by message start events (the credits the
   * API charged), and buffer it for `timeToLive` ms. Its other partitions hear of it by deliverMessage.
   */
  | {
      kind: 'publishMessage';
      account: string;
      name: string;
      correlationKey: string;
      variables: Variables;
      timeToLive: number;
      messageId?: string;
      maxStarts: number;
    }
  /** Extension: a message published on its message partition, for this partition's subscriptions (and buffer, until `expiresAt`). */
  | {
      kind: 'deliverMessage';
      account: string;
      messageKey: string;
      name: string;
      correlationKey: string;
      variables: Variables;
      expiresAt: number;
    }
  /**
   * Extension: broadcast a signal, on its home partition (hash of account and name): reach this
   * partition's waiting instances and start at most `maxStarts` instances by signal start events
   * (the credits the API charged). Its other partitions hear of it by deliverSignal. With `thrown`, a
   * signal an instance threw (its leader charged `maxStarts`): it only starts instances, one signal
   * generation past the thrower's, and answers with the thrown signal's key.
   */
  | {
      kind: 'broadcastSignal';
      account: string;
      name: string;
      variables: Variables;
      maxStarts: number;
      thrown?: { signalKey: string; generation: number };
    }
  /** Extension: a signal broadcast on its home partition, or thrown by an instance, for this partition's waiting instances. */
  | { kind: 'deliverSignal'; account: string; signalKey: string; name: string; variables: Variables }
  /** Start a case instance (CMMN) of the latest version of `caseDefinitionId`. */
  | { kind: 'startCase'; account: string; caseDefinitionId: string; variables: Variables }
  /** Act on a case instance (CMMN): on one of its plan item instances, or `cancel` the case. */
  | { kind: 'caseCommand'; account: string; caseInstanceKey: string; action: CaseAction; planItemKey?: string; variables?: Variables }
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
  /**
   * Who sent a command under a client's key (the API's Idempotency-Key): the
   * leader stores it with the result, so a later command under the same key
   * can tell a replay of the same request from another request that reuses
   * the key, and the request that applied it from a retry answered with its
   * result.
   */
  origin?: CommandOrigin;
  /**
   * The W3C traceparent of the sender's span, only when tracing is on and
   * that span is sampled: the leader's batch span links to it
   * (engine/tracing.ts). Absent otherwise, so untraced commands carry
   * nothing more.
   */
  trace?: string;
};

export interface CommandOrigin {
  /** A digest of the request the key names (route, target and body). */
  fingerprint: string;
  /** This one sending, unique per engine process and call. */
  request: string;
}

/** What a client may do to a case: the case runtime's command types it exposes (engine/cmmn/runtime/types.ts). */
export type CaseAction = 'startPlanItem' | 'occur' | 'completePlanItem' | 'terminatePlanItem' | 'disablePlanItem' | 'reenablePlanItem' | 'cancel';

export interface StartedCase {
  caseInstanceKey: string;
  caseDefinitionId: string;
  version: number;
  state: string;
}

export interface StartedInstance {
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  state: string;
}

/** What the message partition answers a publishMessage with (extension). */
export type PublishOutcome =
  | { published: true; messageKey: string; started: number; expiresAt: number }
  /** A message with this messageId (and name and correlation key) is still buffered: nothing was published; it is described so the API can finish its delivery. */
  | { published: false; reason: 'duplicate'; messageKey: string; variables: Variables; expiresAt: number }
  | { published: false; reason: 'bufferFull'; limit: number };

/** What a signal's home partition answers a broadcastSignal with (extension). */
export interface SignalOutcome {
  signalKey: string;
  started: number;
}

export type CommandReply = (
  { ok: true; value: StartedInstance | StartedCase | PublishOutcome | SignalOutcome | { done: true } } | { ok: false; code: RejectionCode; message: string }
) & {
  /** The origin of the command that was applied, when it carried one (stored with the result). */
  origin?: CommandOrigin;
};

/** The commands that address a job (and so its instance through the job). */
export function isJobCommand(command: EngineCommand): command is Extract<EngineCommand, { kind: 'completeJob' | 'failJob' | 'throwJobError' | 'holdJob' }> {
  return command.kind === 'completeJob' || command.kind === 'failJob' || command.kind === 'throwJobError' || command.kind === 'holdJob';
}
