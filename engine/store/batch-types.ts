// What a partition leader's batch holds (the rows of one fenced commit,
// commit-batch.ts) and what becomes of it: the write types the leader and
// runtime-rows.ts build, the sealed form a batch takes before it is sent,
// and a batch's outcome.
import type { CaseInstance } from '../cmmn/runtime/types.ts';
import type { TimerSchedule } from '../timer/index.ts';
import type { HistoryRecord, ProcessInstance } from '../runtime/types.ts';
import type { StoredJobState } from './schema.ts';
import type { WebhookEvent } from './webhook-outbox.ts';

export interface InstanceWrite {
  account: string;
  /** The whole runtime document; key, process, version, state, root variables and times are read from it. */
  document: ProcessInstance;
  /** The calling instance; defaults to `document.parent.instanceKey`. */
  parentKey?: string | null;
}

/** A case instance (CMMN): its row in case_instances, like InstanceWrite's in instances. */
export interface CaseWrite {
  account: string;
  /** The whole case document; key, case, version, state, case file and times are read from it. */
  document: CaseInstance;
  /** The case or process that started it (a case task); defaults to `document.parent.instanceKey`. */
  parentKey?: string | null;
}

export interface JobWrite {
  key: string;
  account: string;
  instanceKey: string;
  bpmnProcessId: string;
  processVersion: number;
  elementId: string;
  elementInstanceKey: string;
  type: string;
  retries: number;
  state: StoredJobState;
  worker?: string | null;
  customHeaders?: Record<string, string>;
  errorMessage?: string | null;
  activatedAt?: Date | null;
}

export interface TimerWrite {
  key: string;
  account: string;
  /** Absent for a timer start event. */
  instanceKey?: string | null;
  ownerKey?: string | null;
  bpmnProcessId: string;
  processVersion: number;
  elementId: string;
  dueAt: Date;
  schedule: TimerSchedule;
  firedCount?: number;
}

export interface IncidentWrite {
  key: string;
  account: string;
  instanceKey: string;
  /** The instance's process. */
  bpmnProcessId: string;
  elementId: string;
  elementInstanceKey: string;
  jobKey?: string | null;
  type: string;
  message: string;
  createdAt?: Date;
}

export interface HistoryWrite {
  account: string;
  instanceKey: string;
  record: HistoryRecord;
}

/**
 * A user task's job completed in this batch: kept as a completed task
 * (schema.ts `completed_tasks`), its assignee and creation time read from
 * the job's row by the same statement that deletes it.
 */
export interface CompletedTaskWrite {
  key: string;
  account: string;
  instanceKey: string;
  bpmnProcessId: string;
  processVersion: number;
  elementId: string;
  elementInstanceKey: string;
  /** Epoch ms: the JOB_COMPLETED record's time. */
  completedAt: number;
}

/** A message buffered on the batch's partition (extension; schema.ts buffered_messages). */
export interface MessageWrite {
  key: string;
  account: string;
  name: string;
  correlationKey: string;
  variables: Record<string, unknown>;
  messageId?: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface CommandWrite {
  /** The command's idempotency key. */
  key: string;
  /** What the command answered; returned as-is when the command is applied again. */
  result: unknown;
  /** A job command's job: its result goes to the narrow job command log (schema.ts job_command_results). */
  jobKey?: string;
}

export interface Batch {
  partition: number;
  /** The epoch of the caller's lease; the commit is refused unless it is still current. */
  epoch: number;
  instances?: InstanceWrite[];
  /** Case instances (CMMN); their jobs, timers, incidents and history go in the fields below under the case key. */
  cases?: CaseWrite[];
  jobsUpsert?: JobWrite[];
  jobsDelete?: string[];
  /** User tasks completed (their jobs are in jobsDelete too). */
  tasksCompleted?: CompletedTaskWrite[];
  timersUpsert?: TimerWrite[];
  timersDelete?: string[];
  incidentsInsert?: IncidentWrite[];
  /** Messages buffered on this partition, and those whose time to live ran out (by key). */
  messagesInsert?: MessageWrite[];
  messagesDelete?: string[];
  /** In order; positions per instance continue from what is already stored. */
  history?: HistoryWrite[];
  commands?: CommandWrite[];
  /** Webhook events of the batch's changes (engine-events.ts): deliveries for the endpoints that want them, written with the rest. */
  events?: WebhookEvent[];
  /** Distinguishes this batch's outbox row among its leader's (webhook-outbox.ts webhookBatchKey); required with `events`. */
  seq?: number;
  /**
   * How long the leader's own dispatcher holds the batch's outbox row while
   * it sends the events in memory; absent or 0: nobody here takes them, and
   * any dispatcher may claim the row at once.
   */
  webhookHoldMs?: number;
}

/** What became of one batch of a commitBatches call. */
export type BatchOutcome = { ok: true } | { ok: false; /** The partition's current epoch (null: no such partition). */ epoch: number | null };

/**
 * A batch turned into its share of the statement's payload (JSON text per
 * payload field). Sealing copies what the batch says at that moment, so the
 * caller may go on changing the objects it was built from — the partition
 * leader builds its next batch on the same instance documents while this
 * one waits for its commit.
 */
export interface SealedBatch {
  readonly partition: number;
  readonly epoch: number;
  /** Payload field → its rows as JSON, without the enclosing brackets. */
  readonly parts: ReadonlyMap<string, string>;
  /** Rows of the upserted fields: the statement checks that each was written (tenancy) against these. */
  readonly rows: { readonly i: number; readonly j: number; readonly t: number; readonly ci?: number };
}

/** What commitBatches takes: a batch, or one sealed beforehand. */
export type CommitInput = Batch | SealedBatch;
