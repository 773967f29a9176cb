// A batch as the commit statement reads it: sealing turns a Batch into JSON
// text per payload field (short field names, every row tagged with its
// partition, the last write per key), and the sealed batches of one group
// commit are joined into the statement's one jsonb parameter. No query
// builder runs on the write path: JSON.stringify is the only per-row work.
import type { Batch, CommandWrite, SealedBatch } from './batch-types.ts';
import { statsDeltas } from './element-stats.ts';
import { encodeRecord, type StoredRecord } from './history-records.ts';
import { webhookBatchKey } from './webhook-outbox.ts';

export function sealBatch(batch: Batch): SealedBatch {
  const parts = new Map<string, string>();
  const rows: { i: number; j: number; t: number; ci?: number } = { i: 0, j: 0, t: 0 };
  addBatch(batch, (name, items) => {
    if (name === 'i' || name === 'j' || name === 't') rows[name] = items.length;
    // Only batches with cases carry their count, so a batch of processes seals as before.
    if (name === 'ci' && items.length > 0) rows.ci = items.length;
    if (items.length > 0) parts.set(name, JSON.stringify(items).slice(1, -1));
  });
  return { partition: batch.partition, epoch: batch.epoch, parts, rows };
}

/**
 * The batches as the statement reads them: short field names (the payload is
 * parsed by Postgres once per statement), every row tagged with its
 * partition `p`, arrays left out when empty; `f` holds the fences, each with
 * its batch's row counts. Joined from the sealed texts, so nothing is
 * serialised twice.
 */
export function payloadText(batches: readonly SealedBatch[]): string {
  const fields = new Map<string, string[]>();
  for (const batch of batches) {
    for (const [name, text] of batch.parts) (fields.get(name) ?? fields.set(name, []).get(name)!).push(text);
  }
  let out = `{"f":${JSON.stringify(batches.map((b) => ({ p: b.partition, e: b.epoch, ...b.rows })))}`;
  for (const [name, texts] of fields) out += `,"${name}":[${texts.join(',')}]`;
  return `${out}}`;
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

function addBatch(batch: Batch, put: (name: string, items: unknown[]) => void): void {
  const p = batch.partition;
  // Key, process, version, state and times are read from the document by
  // the statement: sent beside it they were a fifth of an instance row, and
  // two ISO dates to format per row.
  put(
    'i',
    lastByKey(batch.instances ?? [], (w) => w.document.key).map(({ account, document, parentKey }) => ({
      p,
      a: account,
      pk: parentKey ?? document.parent?.instanceKey ?? null,
      d: document,
    })),
  );
  put(
    'ci',
    lastByKey(batch.cases ?? [], (w) => w.document.key).map(({ account, document, parentKey }) => ({
      p,
      a: account,
      pk: parentKey ?? document.parent?.instanceKey ?? null,
      d: document,
    })),
  );
  // One statement cannot upsert a row and then delete it, and the old
  // two-step order (upserts, then deletes) ends with the row gone anyway:
  // a key that is deleted is simply not upserted.
  const jobsDeleted = new Set(batch.jobsDelete ?? []);
  put(
    'j',
    lastByKey(batch.jobsUpsert ?? [], (j) => j.key)
      .filter((j) => !jobsDeleted.has(j.key))
      .map((j) => ({
        p,
        k: j.key,
        a: j.account,
        ik: j.instanceKey,
        b: j.bpmnProcessId,
        v: j.processVersion,
        el: j.elementId,
        ek: j.elementInstanceKey,
        ty: j.type,
        r: j.retries,
        s: j.state,
        w: j.worker ?? null,
        h: j.customHeaders ?? {},
        m: j.errorMessage ?? null,
        at: j.activatedAt ?? null,
      })),
  );
  put(
    'jd',
    [...jobsDeleted].map((k) => ({ p, k })),
  );
  put(
    'tc',
    (batch.tasksCompleted ?? []).map((t) => ({
      p,
      k: t.key,
      a: t.account,
      ik: t.instanceKey,
      b: t.bpmnProcessId,
      v: t.processVersion,
      el: t.elementId,
      ek: t.elementInstanceKey,
      at: t.completedAt,
    })),
  );
  const timersDeleted = new Set(batch.timersDelete ?? []);
  put(
    't',
    lastByKey(batch.timersUpsert ?? [], (t) => t.key)
      .filter((t) => !timersDeleted.has(t.key))
      .map((t) => ({
        p,
        k: t.key,
        a: t.account,
        ik: t.instanceKey ?? null,
        ok: t.ownerKey ?? null,
        b: t.bpmnProcessId,
        v: t.processVersion,
        el: t.elementId,
        due: t.dueAt,
        sc: t.schedule,
        f: t.firedCount ?? 0,
      })),
  );
  put(
    'td',
    [...timersDeleted].map((k) => ({ p, k })),
  );
  const messagesDeleted = new Set(batch.messagesDelete ?? []);
  put(
    'mi',
    (batch.messagesInsert ?? [])
      .filter((m) => !messagesDeleted.has(m.key))
      .map((m) => ({
        p,
        k: m.key,
        a: m.account,
        n: m.name,
        ck: m.correlationKey,
        v: m.variables,
        mi: m.messageId ?? null,
        exp: new Date(m.expiresAt),
      })),
  );
  put(
    'md',
    [...messagesDeleted].map((k) => ({ p, k })),
  );
  put(
    'x',
    lastByKey(batch.incidentsInsert ?? [], (i) => i.key).map((i) => ({
      p,
      k: i.key,
      a: i.account,
      ik: i.instanceKey,
      b: i.bpmnProcessId,
      el: i.elementId,
      ek: i.elementInstanceKey,
      jk: i.jobKey ?? null,
      ty: i.type,
      m: i.message,
      c: i.createdAt ?? null,
    })),
  );
  put(
    'ev',
    (batch.events ?? []).map((e) => ({ p, i: e.id, a: e.account, ty: e.type, ts: e.timestamp, d: e.data })),
  );
  // The batch's one outbox row, if any of its events is wanted (commit-batch-sql.ts `hook`).
  put('eb', batch.events?.length ? [{ p, k: webhookBatchKey(batch), l: batch.webhookHoldMs ?? 0 }] : []);
  // One row per instance: its records of this batch, in order, compactly (history-records.ts).
  const history = new Map<string, { p: number; a: string; k: string; r: StoredRecord[] }>();
  for (const w of batch.history ?? []) {
    const row = history.get(w.instanceKey);
    if (row === undefined) history.set(w.instanceKey, { p, a: w.account, k: w.instanceKey, r: [encodeRecord(w.record)] });
    else row.r.push(encodeRecord(w.record));
  }
  put('h', [...history.values()]);
  // The definition statistics' deltas: one row per (process version, element) of the batch.
  put('s', statsDeltas(batch));
  // An absent or null result is stored as jsonb null (coalesce below), not
  // SQL NULL: "applied, answered nothing" is still applied.
  const commands = lastByKey(batch.commands ?? [], (c) => c.key);
  put(
    'c',
    commands.filter((c) => c.jobKey === undefined).map((c) => ({ p, k: c.key, r: c.result ?? null })),
  );
  put(
    'jc',
    commands.filter((c) => c.jobKey !== undefined).map((c) => jobCommandRow(p, c)),
  );
}

/** A job command's row, narrow (schema.ts job_command_results): the origin in columns of its own, "done" as null. */
function jobCommandRow(p: number, c: CommandWrite): { p: number; j: string; k: string; r: unknown; f: string | null; q: string | null } {
  const { origin, ...reply } = c.result as { origin?: { fingerprint: string; request: string }; ok?: unknown; value?: unknown };
  return { p, j: c.jobKey!, k: c.key, r: isDone(reply) ? null : reply, f: origin?.fingerprint ?? null, q: origin?.request ?? null };
}

/** `{ok: true, value: {done: true}}` and nothing else: what nearly every job command answers. */
function isDone(reply: { ok?: unknown; value?: unknown }): boolean {
  const value = reply.value as { done?: unknown } | undefined;
  return reply.ok === true && value?.done === true && Object.keys(reply).length === 2 && Object.keys(value).length === 1;
}
