// The Postgres schema: every durable fact of Orca is a row here (DESIGN §1).
// Runtime rows (instances, jobs, timers, incidents, history, commands) are
// written only by the leader of their partition, in fenced batches
// (commit-batch.ts); definitions and accounts are written by the API. Every
// tenant-owned row carries its account, and every index that serves a
// tenant-facing read leads with it. Changing this file means running
// `npx drizzle-kit generate` and committing the new migration. The tables
// the API writes (identity, mail, credits, agents) are in schema-identity.ts,
// webhooks and sign-in in schema-webhooks.ts, and exported from here too, so drizzle-kit and every reader see one schema.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { TimerSchedule } from '../timer/index.ts';
import type { HistoryRecord, JobState, ProcessInstance, Variables } from '../runtime/types.ts';
import type { StoredRecord } from './history-records.ts';
import { instant, key } from './columns.ts';

/** The runtime's job states, plus ACTIVATED: handed to a worker from a queue. */
export type StoredJobState = JobState | 'ACTIVATED';

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  createdAt: instant('created_at').notNull().defaultNow(),
  // The opening balance is the API's decision (it comes from configuration),
  // so the column default is only a floor.
  creditBalance: bigint('credit_balance', { mode: 'number' }).notNull().default(0),
});

/** One row per (account, BPMN process id): the version counter that serialises deploys. */
export const definitions = pgTable(
  'definitions',
  {
    account: text('account').notNull(),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    latestVersion: integer('latest_version').notNull(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.account, t.bpmnProcessId] })],
);

export const definitionVersions = pgTable(
  'definition_versions',
  {
    account: text('account').notNull(),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    version: integer('version').notNull(),
    resourceName: text('resource_name').notNull(),
    xml: text('xml').notNull(),
    checksum: text('checksum').notNull(),
    deployedAt: instant('deployed_at').notNull().defaultNow(),
    /** Extension, chosen on deploy: script tasks with a zeebe:script expression are evaluated inline, as Zeebe does, not left as jobs. */
    inlineScripts: boolean('inline_scripts').notNull().default(false),
  },
  // No index on the checksum: a redeploy compares with the latest version only
  // (found by the primary key), and a rollback repeats an older version's checksum.
  (t) => [primaryKey({ columns: [t.account, t.bpmnProcessId, t.version] })],
);

/** One row per (account, decision id): the version counter of DMN decisions. */
export const decisions = pgTable(
  'decisions',
  {
    account: text('account').notNull(),
    decisionId: text('decision_id').notNull(),
    latestVersion: integer('latest_version').notNull(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.account, t.decisionId] })],
);

export const decisionVersions = pgTable(
  'decision_versions',
  {
    account: text('account').notNull(),
    decisionId: text('decision_id').notNull(),
    version: integer('version').notNull(),
    decisionName: text('decision_name'),
    resourceName: text('resource_name').notNull(),
    xml: text('xml').notNull(),
    checksum: text('checksum').notNull(),
    deployedAt: instant('deployed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.account, t.decisionId, t.version] })],
);

export const instances = pgTable(
  'instances',
  {
    key: key('key').primaryKey(),
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    version: integer('version').notNull(),
    state: text('state').$type<ProcessInstance['state']>().notNull(),
    document: jsonb('document').$type<ProcessInstance>().notNull(),
    // The root scope's variables, copied out of the document so that
    // `filter.variable` is one GIN-indexed containment test.
    variables: jsonb('variables').$type<Variables>().notNull(),
    parentKey: key('parent_key'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
    endedAt: instant('ended_at'),
  },
  (t) => [
    check('instances_state_ck', sql`${t.state} in ('ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT')`),
    // Lists page newest first by (created_at, key) within an account,
    // optionally narrowed by state, process (and version) or a start-date range.
    index('instances_account_created_idx').on(t.account, t.createdAt, t.key),
    index('instances_account_state_created_idx').on(t.account, t.state, t.createdAt, t.key),
    index('instances_account_process_created_idx').on(t.account, t.bpmnProcessId, t.version, t.createdAt, t.key),
    // `filter.endedAfter/endedBefore`: only ended instances are in it, so running ones cost it nothing.
    index('instances_account_ended_idx')
      .on(t.account, t.endedAt)
      .where(sql`${t.endedAt} is not null`),
    // `variables @> '{"orderId":"A1"}'`; jsonb_path_ops is smaller and faster than the default for @>.
    index('instances_variables_gin').using('gin', t.variables.op('jsonb_path_ops')),
    // A new leader loads only the instances still alive on its partition.
    index('instances_partition_live_idx')
      .on(t.partition, t.key)
      .where(sql`${t.state} in ('ACTIVE', 'INCIDENT')`),
    index('instances_parent_idx')
      .on(t.parentKey)
      .where(sql`${t.parentKey} is not null`),
  ],
);

export const jobs = pgTable(
  'jobs',
  {
    key: key('key').primaryKey(),
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    instanceKey: key('instance_key').notNull(),
    // Kept on the job so a queue can be rebuilt without reading instance documents.
    bpmnProcessId: text('bpmn_process_id').notNull(),
    processVersion: integer('process_version').notNull(),
    elementId: text('element_id').notNull(),
    elementInstanceKey: key('element_instance_key').notNull(),
    type: text('type').notNull(),
    retries: integer('retries').notNull(),
    state: text('state').$type<StoredJobState>().notNull(),
    worker: text('worker'),
    customHeaders: jsonb('custom_headers').$type<Record<string, string>>().notNull().default({}),
    errorMessage: text('error_message'),
    createdAt: instant('created_at').notNull().defaultNow(),
    activatedAt: instant('activated_at'),
  },
  (t) => [
    check('jobs_state_ck', sql`${t.state} in ('ACTIVATABLE', 'ACTIVATED', 'FAILED')`),
    index('jobs_account_type_state_idx').on(t.account, t.type, t.state),
    index('jobs_partition_idx').on(t.partition, t.key),
    index('jobs_instance_idx').on(t.instanceKey),
  ],
);

export const timers = pgTable(
  'timers',
  {
    key: key('key').primaryKey(),
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    // Null for a timer start event: firing it starts a new instance.
    instanceKey: key('instance_key'),
    // The runtime's Timer.ownerKey: the waiting element instance or scope (null for a start event).
    ownerKey: key('owner_key'),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    processVersion: integer('process_version').notNull(),
    elementId: text('element_id').notNull(),
    dueAt: instant('due_at').notNull(),
    // The parsed timer definition (date, duration, cycle); the runtime owns its shape.
    schedule: jsonb('schedule').$type<TimerSchedule>().notNull(),
    firedCount: integer('fired_count').notNull().default(0),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [index('timers_partition_due_idx').on(t.partition, t.dueAt)],
);

/**
 * Messages published with a time to live (extension, docs/messages.md),
 * buffered for subscriptions opened later. Each partition keeps its own copy
 * of a buffered message (written by its leader's batch), so a subscription
 * opened on any partition finds it without asking another; the message
 * partition's copy also answers messageId uniqueness. Loaded at recovery;
 * expired rows are deleted by key as the leader's in-memory heap pops them,
 * and the index on (partition, expires_at) serves the recovery load.
 */
export const bufferedMessages = pgTable(
  'buffered_messages',
  {
    partition: integer('partition').notNull(),
    key: key('key').notNull(),
    account: text('account').notNull(),
    name: text('name').notNull(),
    correlationKey: text('correlation_key').notNull(),
    variables: jsonb('variables').$type<Record<string, unknown>>().notNull(),
    messageId: text('message_id'),
    expiresAt: instant('expires_at').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.partition, t.key] }), index('buffered_messages_partition_expiry_idx').on(t.partition, t.expiresAt)],
);

/**
 * Zeebe's message cardinality (extension, docs/messages.md): which instance
 * of each process (BPMN process id, any version) a message went to — at
 * most one. The leader of the instance's partition claims the pair before
 * it applies the correlation; the first claim wins, and the same instance
 * claiming again (its batch built again after a leader stopped) still
 * holds it. Rows outlive their message by a grace period (a delivery sent
 * again must still find them), then each leader prunes its partition's
 * through the (partition, expires_at) index.
 */
export const messageCorrelations = pgTable(
  'message_correlations',
  {
    messageKey: key('message_key').notNull(),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    instanceKey: key('instance_key').notNull(),
    /** The partition of the instance (whose leader made the claim and prunes it). */
    partition: integer('partition').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageKey, t.bpmnProcessId] }), index('message_correlations_partition_expiry_idx').on(t.partition, t.expiresAt)],
);

export const incidents = pgTable(
  'incidents',
  {
    key: key('key').primaryKey(),
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    instanceKey: key('instance_key').notNull(),
    // The instance's process, copied so `filter.bpmnProcessId` needs no join.
    bpmnProcessId: text('bpmn_process_id').notNull(),
    elementId: text('element_id').notNull(),
    elementInstanceKey: key('element_instance_key').notNull(),
    jobKey: key('job_key'),
    type: text('type').notNull(),
    message: text('message').notNull(),
    state: text('state').$type<'OPEN' | 'RESOLVED'>().notNull().default('OPEN'),
    createdAt: instant('created_at').notNull().defaultNow(),
    resolvedAt: instant('resolved_at'),
  },
  (t) => [
    check('incidents_state_ck', sql`${t.state} in ('OPEN', 'RESOLVED')`),
    index('incidents_account_key_idx').on(t.account, t.key),
    index('incidents_account_state_key_idx').on(t.account, t.state, t.key),
    index('incidents_account_process_key_idx').on(t.account, t.bpmnProcessId, t.key),
    index('incidents_instance_idx').on(t.instanceKey),
    // The open-incidents gauge counts by partition; only open incidents are in it, so it stays small.
    index('incidents_open_partition_idx')
      .on(t.partition)
      .where(sql`${t.state} = 'OPEN'`),
  ],
);

/**
 * Human tasks once completed (an extension: SPEC.md keeps no completed
 * tasks, a task being a `userTask` job that is gone once done). Written by
 * the batch commit that deletes the completed job, from that job's row, so
 * the assignee and creation time are the job's own and every way of
 * completing (REST, GraphQL, the job routes) is recorded once. Listed
 * newest first per account, by assignee too.
 */
export const completedTasks = pgTable(
  'completed_tasks',
  {
    key: key('key').primaryKey(),
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    instanceKey: key('instance_key').notNull(),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    processVersion: integer('process_version').notNull(),
    elementId: text('element_id').notNull(),
    elementInstanceKey: key('element_instance_key').notNull(),
    assignee: text('assignee'),
    createdAt: instant('created_at').notNull(),
    completedAt: instant('completed_at').notNull(),
  },
  (t) => [
    index('completed_tasks_account_completed_idx').on(t.account, t.completedAt, t.key),
    index('completed_tasks_account_assignee_completed_idx').on(t.account, t.assignee, t.completedAt, t.key),
    index('completed_tasks_instance_idx').on(t.instanceKey),
  ],
);

/**
 * Append-only: what happened to each instance, in order. One row per
 * instance per committed batch: `records` holds the records that batch
 * produced for the instance, the first at `position`, the next at
 * `position + 1`, and so on (1, 2, 3 … per instance, gap-free). A batch
 * writes an instance's records together anyway, and one row instead of one
 * per record is most of what the write path saves (history was half the
 * rows a batch inserted).
 */
export const history = pgTable(
  'history',
  {
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    instanceKey: key('instance_key').notNull(),
    position: integer('position').notNull(),
    // Arrays since history-records.ts (rows written before hold objects).
    records: jsonb('records').$type<(StoredRecord | HistoryRecord)[]>().notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.instanceKey, t.position] })],
);

/**
 * Per-element counts of a process version (the definition's statistics),
 * kept as the engine writes: each batch adds its deltas in the same commit
 * (element-stats.ts). One row per partition, so leaders of different
 * partitions never wait on each other's row locks; reads sum the partitions.
 * `element_id` '' holds the version's instance counts by state.
 */
export const elementStats = pgTable(
  'element_stats',
  {
    account: text('account').notNull(),
    bpmnProcessId: text('bpmn_process_id').notNull(),
    version: integer('version').notNull(),
    elementId: text('element_id').notNull(),
    partition: integer('partition').notNull(),
    active: bigint('active', { mode: 'number' }).notNull().default(0),
    incidents: bigint('incidents', { mode: 'number' }).notNull().default(0),
    completed: bigint('completed', { mode: 'number' }).notNull().default(0),
    canceled: bigint('canceled', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.account, t.bpmnProcessId, t.version, t.elementId, t.partition] })],
);

/** Partition leases with fencing epochs: the leader is whoever holds the current epoch. */
export const partitions = pgTable('partitions', {
  id: integer('id').primaryKey(),
  leader: text('leader'),
  epoch: bigint('epoch', { mode: 'number' }).notNull().default(0),
  leaseExpiresAt: instant('lease_expires_at'),
});

/** The durable command log: a command applied twice returns the stored result. */
export const commands = pgTable(
  'commands',
  {
    partition: integer('partition').notNull(),
    commandKey: text('command_key').notNull(),
    result: jsonb('result').$type<unknown>().notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.partition, t.commandKey] }),
    // Pruning finds old entries through this BRIN index: rows arrive in
    // created_at order, so it is tiny, and unlike a btree it costs next to
    // nothing on the insert every command makes.
    index('commands_created_brin').using('brin', t.createdAt),
  ],
);

/**
 * The command log of job commands (complete and fail, a client's keyed ones
 * above all): the same facts as `commands`, kept narrow because a worker's
 * keyed completion is the most frequent command there is. A row is found by
 * its job and the hash of its command key (hashtextextended, computed by
 * Postgres on write and lookup); the usual result, "done", is stored as
 * null, and the origin of a client's request as two plain columns. About
 * 60 % less WAL per keyed completion than a `commands` row.
 */
export const jobCommandResults = pgTable(
  'job_command_results',
  {
    jobKey: key('job_key').notNull(),
    keyHash: bigint('key_hash', { mode: 'bigint' }).notNull(),
    /** The reply without its origin; null for `{ok: true, value: {done: true}}`. */
    result: jsonb('result').$type<unknown>(),
    fingerprint: text('fingerprint'),
    request: text('request'),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.jobKey, t.keyHash] }), index('job_command_results_created_brin').using('brin', t.createdAt)],
);

/**
 * How often a leader has begun a command it never finished (crash-loop
 * detection, partition-leader isolation): written only while a leader
 * replays a backlog that earlier leaders died on, so a command that keeps
 * killing its leader is recognised after a restart and rejected.
 */
export const commandAttempts = pgTable(
  'command_attempts',
  {
    partition: integer('partition').notNull(),
    commandKey: text('command_key').notNull(),
    attempts: integer('attempts').notNull(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.partition, t.commandKey] })],
);

/**
 * Results of keyed requests that do not go through a partition's command
 * log (deploys): the client's key, a fingerprint of the request it named,
 * and the first result, for as long as the command log keeps results.
 * Written by the API side in the transaction that does the work, so a key
 * is stored exactly when its work committed.
 */
export const requestKeys = pgTable(
  'request_keys',
  {
    account: text('account').notNull(),
    requestKey: text('request_key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /** Null only inside the transaction that claimed the key. */
    result: jsonb('result').$type<unknown>(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.account, t.requestKey] }), index('request_keys_created_at').on(t.createdAt)],
);

export * from './schema-identity.ts';
export * from './schema-webhooks.ts';
export * from './schema-cases.ts';
