// The partition leader's write path (DESIGN §1): everything a batch of
// commands produced — instance documents, jobs, timers, incidents, history
// and the command results that make replays idempotent — is committed in
// ONE transaction, behind a fence on the partition's epoch. A leader that
// lost its lease gets StaleEpochError and nothing of its batch is written.
// Each table gets one multi-row statement per batch (more only past the
// bind-parameter limit), so hundreds of commands cost a handful of round trips.
import { eq, inArray, and, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { TimerSchedule } from '../runtime/timer/index.ts';
import type { HistoryRecord, ProcessInstance } from '../runtime/types.ts';
import { chunks, rows, type Db } from './db.ts';
import { guard, StaleEpochError } from './errors.ts';
import { commands, history, incidents, instances, jobs, partitions, timers, type StoredJobState } from './schema.ts';

export interface InstanceWrite {
  account: string;
  /** The whole runtime document; key, process, version, state, root variables and times are read from it. */
  document: ProcessInstance;
  /** The calling instance; defaults to `document.parent.instanceKey`. */
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

export interface CommandWrite {
  /** The command's idempotency key. */
  key: string;
  /** What the command answered; returned as-is when the command is applied again. */
  result: unknown;
}

export interface Batch {
  partition: number;
  /** The epoch of the caller's lease; the commit is refused unless it is still current. */
  epoch: number;
  instances?: InstanceWrite[];
  jobsUpsert?: JobWrite[];
  jobsDelete?: string[];
  timersUpsert?: TimerWrite[];
  timersDelete?: string[];
  incidentsInsert?: IncidentWrite[];
  /** In order; positions per instance continue from what is already stored. */
  history?: HistoryWrite[];
  commands?: CommandWrite[];
}

/**
 * Commits a batch atomically behind the epoch fence. Throws StaleEpochError
 * (nothing written) when the partition's epoch is not `batch.epoch`.
 */
export function commitBatch(db: Db, batch: Batch): Promise<void> {
  return guard(() =>
    db.transaction(async (tx) => {
      await fence(tx, batch.partition, batch.epoch);
      await writeInstances(tx, batch.partition, batch.instances ?? []);
      await writeJobs(tx, batch.partition, batch.jobsUpsert ?? [], batch.jobsDelete ?? []);
      await writeTimers(tx, batch.partition, batch.timersUpsert ?? [], batch.timersDelete ?? []);
      await writeIncidents(tx, batch.partition, batch.incidentsInsert ?? []);
      await writeHistory(tx, batch.partition, batch.history ?? []);
      await writeCommands(tx, batch.partition, batch.commands ?? []);
    }),
  );
}

// FOR UPDATE holds the partition row until commit, so a new leader's
// acquireLease (an UPDATE of the same row) waits for this batch to finish and
// every batch committed under the old epoch happened-before the takeover.
async function fence(tx: Db, partition: number, epoch: number): Promise<void> {
  const [row] = await tx
    .select({ epoch: partitions.epoch })
    .from(partitions)
    .where(eq(partitions.id, partition))
    .for('update');
  if (!row || Number(row.epoch) !== epoch) throw new StaleEpochError(partition, epoch, row ? Number(row.epoch) : null);
}

/** Last write per key wins: a multi-row upsert may not touch one row twice. */
function lastByKey<T>(items: T[], keyOf: (item: T) => string): T[] {
  const map = new Map<string, T>();
  for (const item of items) {
    const k = keyOf(item);
    map.delete(k);
    map.set(k, item);
  }
  return [...map.values()];
}

const excluded = (column: PgColumn): SQL => sql.raw(`excluded."${column.name}"`);

// An upsert whose row belongs to another account updates nothing (setWhere)
// and returns nothing; keys are never reused across accounts, so this is a
// bug upstream, and the whole batch is refused rather than half-applied.
function refuseCollisions(what: string, written: number, sent: number): void {
  if (written !== sent) throw new Error(`${what} key collision with another account; batch refused`);
}

async function writeInstances(tx: Db, partition: number, writes: InstanceWrite[]): Promise<void> {
  const values = lastByKey(writes, (w) => w.document.key).map(({ account, document, parentKey }) => ({
    key: document.key,
    account,
    partition,
    bpmnProcessId: document.bpmnProcessId,
    version: document.version,
    state: document.state,
    document,
    variables: document.variables[document.key] ?? {},
    parentKey: parentKey ?? document.parent?.instanceKey ?? null,
    createdAt: new Date(document.startedAt),
    endedAt: document.endedAt === undefined ? null : new Date(document.endedAt),
  }));
  for (const part of chunks(values, 11)) {
    const written = await tx
      .insert(instances)
      .values(part)
      .onConflictDoUpdate({
        target: instances.key,
        set: {
          state: excluded(instances.state),
          document: excluded(instances.document),
          variables: excluded(instances.variables),
          endedAt: excluded(instances.endedAt),
          updatedAt: sql`now()`,
        },
        // A key is never reused across accounts; if it were, refuse rather than overwrite.
        setWhere: sql`${instances.account} = excluded."account"`,
      })
      .returning({ key: instances.key });
    refuseCollisions('instance', written.length, part.length);
  }
}

async function writeJobs(tx: Db, partition: number, upserts: JobWrite[], deletes: string[]): Promise<void> {
  const values = lastByKey(upserts, (j) => j.key).map((j) => ({
    key: j.key,
    account: j.account,
    partition,
    instanceKey: j.instanceKey,
    bpmnProcessId: j.bpmnProcessId,
    processVersion: j.processVersion,
    elementId: j.elementId,
    elementInstanceKey: j.elementInstanceKey,
    type: j.type,
    retries: j.retries,
    state: j.state,
    worker: j.worker ?? null,
    customHeaders: j.customHeaders ?? {},
    errorMessage: j.errorMessage ?? null,
    activatedAt: j.activatedAt ?? null,
  }));
  for (const part of chunks(values, 15)) {
    const written = await tx
      .insert(jobs)
      .values(part)
      .onConflictDoUpdate({
        target: jobs.key,
        set: {
          retries: excluded(jobs.retries),
          state: excluded(jobs.state),
          worker: excluded(jobs.worker),
          customHeaders: excluded(jobs.customHeaders),
          errorMessage: excluded(jobs.errorMessage),
          activatedAt: excluded(jobs.activatedAt),
        },
        setWhere: sql`${jobs.account} = excluded."account"`,
      })
      .returning({ key: jobs.key });
    refuseCollisions('job', written.length, part.length);
  }
  // After the upserts: a job created and finished within one batch ends up gone.
  for (const part of chunks([...new Set(deletes)], 1)) {
    await tx.delete(jobs).where(and(eq(jobs.partition, partition), inArray(jobs.key, part)));
  }
}

async function writeTimers(tx: Db, partition: number, upserts: TimerWrite[], deletes: string[]): Promise<void> {
  const values = lastByKey(upserts, (t) => t.key).map((t) => ({
    key: t.key,
    account: t.account,
    partition,
    instanceKey: t.instanceKey ?? null,
    ownerKey: t.ownerKey ?? null,
    bpmnProcessId: t.bpmnProcessId,
    processVersion: t.processVersion,
    elementId: t.elementId,
    dueAt: t.dueAt,
    schedule: t.schedule,
    firedCount: t.firedCount ?? 0,
  }));
  for (const part of chunks(values, 11)) {
    const written = await tx
      .insert(timers)
      .values(part)
      .onConflictDoUpdate({
        target: timers.key,
        set: {
          dueAt: excluded(timers.dueAt),
          schedule: excluded(timers.schedule),
          firedCount: excluded(timers.firedCount),
        },
        setWhere: sql`${timers.account} = excluded."account"`,
      })
      .returning({ key: timers.key });
    refuseCollisions('timer', written.length, part.length);
  }
  for (const part of chunks([...new Set(deletes)], 1)) {
    await tx.delete(timers).where(and(eq(timers.partition, partition), inArray(timers.key, part)));
  }
}

async function writeIncidents(tx: Db, partition: number, inserts: IncidentWrite[]): Promise<void> {
  const values = lastByKey(inserts, (i) => i.key).map((i) => ({
    key: i.key,
    account: i.account,
    partition,
    instanceKey: i.instanceKey,
    elementId: i.elementId,
    elementInstanceKey: i.elementInstanceKey,
    jobKey: i.jobKey ?? null,
    type: i.type,
    message: i.message,
    ...(i.createdAt ? { createdAt: i.createdAt } : {}),
  }));
  // Insert-only: an incident's resolution belongs to the API (resolveIncident),
  // so a replayed batch must not reopen it.
  for (const part of chunks(values, 10)) {
    await tx.insert(incidents).values(part).onConflictDoNothing({ target: incidents.key });
  }
}

// One statement for the whole batch whatever its size: the records travel as
// a single jsonb parameter, and each instance's positions continue from its
// highest stored one (the unique (instance_key, position) index serves the lookup).
async function writeHistory(tx: Db, partition: number, writes: HistoryWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const payload = JSON.stringify(writes.map((w) => ({ a: w.account, k: w.instanceKey, r: w.record })));
  await rows(
    tx,
    sql`insert into ${history} ("account", "partition", "instance_key", "position", "record")
        select e.value->>'a', ${partition}::int, (e.value->>'k')::int8,
               coalesce(last.position, 0) + row_number() over (partition by e.value->>'k' order by e.ord),
               e.value->'r'
        from jsonb_array_elements(${payload}::jsonb) with ordinality as e(value, ord)
        left join lateral (
          select max(h."position") as position from ${history} h where h."instance_key" = (e.value->>'k')::int8
        ) last on true
        order by e.ord`,
  );
}

async function writeCommands(tx: Db, partition: number, writes: CommandWrite[]): Promise<void> {
  const values = lastByKey(writes, (c) => c.key).map((c) => ({
    partition,
    commandKey: c.key,
    // jsonb null, not SQL NULL: "applied, answered nothing" is still applied.
    result: c.result === undefined || c.result === null ? sql`'null'::jsonb` : c.result,
  }));
  for (const part of chunks(values, 3)) {
    await tx.insert(commands).values(part).onConflictDoNothing({ target: [commands.partition, commands.commandKey] });
  }
}
