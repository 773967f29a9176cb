// The hot SQL of the write path: the one statement that commits a group of
// partition batches behind their epoch fences (commit-batch.ts runs it), and
// how its deliberate refusal is told from any other error. Kept apart from
// the TypeScript that calls it, as graphile-worker keeps src/sql/completeJobs.ts.
import { BatchRejectedError } from './errors.ts';
import type { Statement } from './statement.ts';

// What the statement raises on purpose to undo a batch: casting a text that
// starts with this to int fails with "invalid input syntax" (22P02) quoting
// it. Plain SQL has no RAISE; the text includes the statement's own counts,
// so the planner cannot fold the cast into an error at plan time.
const REFUSED = 'orca batch refused: ';

/**
 * The batch statement. Postgres runs data-modifying CTEs exactly once and to
 * completion, all on one snapshot; the fence rows are locked (FOR UPDATE)
 * before any write can pass its gate, and held until the statement's
 * transaction commits (its own implicit one on the store's handle; the
 * caller's on a drizzle transaction), so a new leader's acquireLease (an UPDATE of
 * that row) waits for this batch and every batch of the old epoch
 * happened-before the takeover. Under READ COMMITTED a lock that had to wait
 * sees the row as the takeover left it, so the gate sees the new epoch.
 *
 * Tenancy: an upsert whose row belongs to another account updates nothing
 * (the ON CONFLICT … WHERE) and returns nothing; keys are never reused across
 * accounts, so that is a bug upstream and the whole batch is refused (the
 * final SELECT fails, undoing every write) rather than half-applied.
 * Incidents are insert-only: their resolution belongs to the API, so a
 * replayed batch must not reopen one.
 *
 * History: one row per instance, holding its records of this batch in
 * order; positions continue from the instance's newest row (its primary
 * key (instance_key, position) serves the lookup).
 *
 * Every table access is a key lookup on a unique index (=, = any, ON
 * CONFLICT), so the plan does not depend on table sizes, and the statement
 * is prepared once per connection and runs on its cached plan (statement.ts)
 * — on the writer connections (database.ts), where the planner may not turn
 * an `= any` delete into a sequential scan because the table was empty when
 * the plan was made.
 * That is why the deletes name no partition: with a partition condition
 * beside the keys, a plan made while the table was small walks the
 * (partition, key) index through the whole partition. Keys carry their
 * partition (keys.ts) and only its leader holds them, so the keys alone
 * suffice (each delete list is gated on its own partition's fence).
 *
 * The payload is the one jsonb parameter, parsed once at bind, and each
 * CTE takes its field from the parameter itself: a CTE holding the whole
 * document would be copied out of its tuplestore at every use. The tenancy
 * check compares the rows each upsert wrote with the counts the fences
 * carry, instead of unpacking the fields a second time to count them.
 * Together about 6 % less backend CPU per instance than the statement
 * before (a scratch harness reading the backend's CPU time from /proc,
 * alternating the two on start and completion batches of one-task; not
 * committed).
 *
 * Case instances (payload `ci`, CMMN) are upserted like process instances,
 * into case_instances; their jobs, timers, incidents and history ride in
 * the same fields as a process instance's, under the case key.
 *
 * Webhook events (payload `ev`, engine-events.ts) become ONE outbox row
 * per batch (`webhook_batches`, keyed by the leader's batch key in `eb`, so
 * a replayed statement adds nothing), behind the fence like every other
 * write, holding the batch's events when at least one of them is wanted by
 * an enabled endpoint of its account (found through the partial index on
 * enabled endpoints by account: one index probe per event). `eb.l` is how
 * long the leader's own dispatcher holds the row while it sends the events
 * it took in memory (0: nobody here takes them, the row is due at once);
 * the deliveries themselves are worked out by the dispatcher, not here.
 *
 * Several partitions' batches share the statement (commitBatches): every
 * row carries its partition, and every write is gated on that partition's
 * fence (`ok`). The fence rows are locked in id order, so two statements
 * that fence overlapping partitions (a handover) cannot deadlock.
 */
export const COMMIT_BATCH: Statement = {
  name: 'orca-commit-batch',
  // The leading comment names the statement for whoever watches the wire (test/faults/postgres-cut).
  text: `/* orca:commit-batch */
with want as materialized (
  select x.p, x.e, x.i, x.j, x.t, coalesce(x.ci, 0) as ci from jsonb_to_recordset($1::jsonb->'f') as x(p int, e int8, i int, j int, t int, ci int)
),
fence as materialized (
  select p.id, p.epoch from partitions p
  where p.id = any (array(select want.p from want))
  order by p.id
  for update
),
ok as materialized (select f.id from fence f join want w on w.p = f.id and f.epoch = w.e),
inst as (
  insert into instances as t (key, account, partition, bpmn_process_id, version, state, document, variables, parent_key, created_at, ended_at)
  select (x.d->>'key')::int8, x.a, x.p, x.d->>'bpmnProcessId', (x.d->>'version')::int, x.d->>'state', x.d,
         coalesce(nullif(x.d->'variables'->(x.d->>'key'), 'null'::jsonb), '{}'::jsonb), x.pk,
         timestamptz 'epoch' + (x.d->>'startedAt')::int8 * interval '1 millisecond',
         timestamptz 'epoch' + (x.d->>'endedAt')::int8 * interval '1 millisecond'
  from jsonb_to_recordset($1::jsonb->'i') as x(p int, a text, pk int8, d jsonb)
  where x.p in (select id from ok)
  on conflict (key) do update set
    state = excluded.state, document = excluded.document, variables = excluded.variables,
    ended_at = excluded.ended_at, updated_at = now()
  where t.account = excluded.account
  returning 1
),
case_up as (
  insert into case_instances as t (key, account, partition, case_definition_id, version, state, document, variables, parent_key, created_at, ended_at)
  select (x.d->>'key')::int8, x.a, x.p, x.d->>'caseDefinitionId', (x.d->>'version')::int, x.d->>'state', x.d,
         coalesce(x.d->'variables', '{}'::jsonb), x.pk,
         timestamptz 'epoch' + (x.d->>'startedAt')::int8 * interval '1 millisecond',
         timestamptz 'epoch' + (x.d->>'endedAt')::int8 * interval '1 millisecond'
  from jsonb_to_recordset($1::jsonb->'ci') as x(p int, a text, pk int8, d jsonb)
  where x.p in (select id from ok)
  on conflict (key) do update set
    state = excluded.state, document = excluded.document, variables = excluded.variables,
    ended_at = excluded.ended_at, updated_at = now()
  where t.account = excluded.account
  returning 1
),
job_up as (
  insert into jobs as t (key, account, partition, instance_key, bpmn_process_id, process_version, element_id,
                         element_instance_key, type, retries, state, worker, custom_headers, error_message, activated_at)
  select x.k, x.a, x.p, x.ik, x.b, x.v, x.el, x.ek, x.ty, x.r, x.s, x.w, coalesce(x.h, '{}'::jsonb), x.m, x.at
  from jsonb_to_recordset($1::jsonb->'j')
       as x(p int, k int8, a text, ik int8, b text, v int, el text, ek int8, ty text, r int, s text, w text, h jsonb, m text, at timestamptz)
  where x.p in (select id from ok)
  on conflict (key) do update set
    retries = excluded.retries, state = excluded.state, worker = excluded.worker,
    custom_headers = excluded.custom_headers, error_message = excluded.error_message, activated_at = excluded.activated_at
  where t.account = excluded.account
  returning 1
),
job_del as (
  delete from jobs t
  where t.key = any (array(select x.k from jsonb_to_recordset($1::jsonb->'jd') as x(p int, k int8)
                           where x.p in (select id from ok)))
),
-- Reads the job row as it was before job_del (one snapshot for the whole statement).
task_done as (
  insert into completed_tasks (key, account, partition, instance_key, bpmn_process_id, process_version, element_id,
                               element_instance_key, assignee, created_at, completed_at)
  select x.k, x.a, x.p, x.ik, x.b, x.v, x.el, x.ek, nullif(j.worker, ''),
         coalesce(j.created_at, timestamptz 'epoch' + x.at * interval '1 millisecond'),
         timestamptz 'epoch' + x.at * interval '1 millisecond'
  from jsonb_to_recordset($1::jsonb->'tc')
       as x(p int, k int8, a text, ik int8, b text, v int, el text, ek int8, at int8)
  left join jobs j on j.key = x.k and j.account = x.a
  where x.p in (select id from ok)
  on conflict (key) do nothing
),
timer_up as (
  insert into timers as t (key, account, partition, instance_key, owner_key, bpmn_process_id, process_version,
                           element_id, due_at, schedule, fired_count)
  select x.k, x.a, x.p, x.ik, x.ok, x.b, x.v, x.el, x.due, x.sc, x.f
  from jsonb_to_recordset($1::jsonb->'t')
       as x(p int, k int8, a text, ik int8, ok int8, b text, v int, el text, due timestamptz, sc jsonb, f int)
  where x.p in (select id from ok)
  on conflict (key) do update set
    due_at = excluded.due_at, schedule = excluded.schedule, fired_count = excluded.fired_count
  where t.account = excluded.account
  returning 1
),
timer_del as (
  delete from timers t
  where t.key = any (array(select x.k from jsonb_to_recordset($1::jsonb->'td') as x(p int, k int8)
                           where x.p in (select id from ok)))
),
msg_ins as (
  insert into buffered_messages (partition, key, account, name, correlation_key, variables, message_id, expires_at)
  select x.p, x.k, x.a, x.n, x.ck, x.v, x.mi, x.exp
  from jsonb_to_recordset($1::jsonb->'mi')
       as x(p int, k int8, a text, n text, ck text, v jsonb, mi text, exp timestamptz)
  where x.p in (select id from ok)
  on conflict (partition, key) do nothing
),
msg_del as (
  delete from buffered_messages t
  where (t.partition, t.key) in (select x.p, x.k from jsonb_to_recordset($1::jsonb->'md') as x(p int, k int8)
                                 where x.p in (select id from ok))
),
incident_ins as (
  insert into incidents (key, account, partition, instance_key, bpmn_process_id, element_id, element_instance_key, job_key, type, message, created_at)
  select x.k, x.a, x.p, x.ik, x.b, x.el, x.ek, x.jk, x.ty, x.m, coalesce(x.c, now())
  from jsonb_to_recordset($1::jsonb->'x')
       as x(p int, k int8, a text, ik int8, b text, el text, ek int8, jk int8, ty text, m text, c timestamptz)
  where x.p in (select id from ok)
  on conflict (key) do nothing
),
hist as (
  insert into history (account, partition, instance_key, position, records)
  select x.a, x.p, x.k,
         coalesce((select h.position + jsonb_array_length(h.records) from history h
                   where h.instance_key = x.k order by h.position desc limit 1), 1),
         x.r
  from jsonb_to_recordset($1::jsonb->'h') as x(p int, a text, k int8, r jsonb)
  where x.p in (select id from ok)
),
hook as (
  insert into webhook_batches (key, partition, events, claimed_until)
  select b.k, b.p, e.events, case when b.l > 0 then now() + b.l * interval '1 millisecond' end
  from jsonb_to_recordset($1::jsonb->'eb') as b(p int, k text, l int8)
  cross join lateral (
    select jsonb_agg(x) as events
    from jsonb_to_recordset($1::jsonb->'ev') as x(p int, i text, a text, ty text, ts text, d jsonb)
    -- A subplan, not a semi-join: probed per event with the account as its index condition.
    where x.p = b.p
      and (select true from webhook_endpoints w where w.account = x.a and w.status = 'enabled' and w.events ? x.ty limit 1)
  ) e
  where b.p in (select id from ok) and e.events is not null
  on conflict (key) do nothing
),
stats as (
  insert into element_stats as t (account, bpmn_process_id, version, element_id, partition, active, incidents, completed, canceled)
  select x.a, x.b, x.v, x.el, x.p, sum(x.da), sum(x.di), sum(x.dc), sum(x.dx)
  from jsonb_to_recordset($1::jsonb->'s') as x(p int, a text, b text, v int, el text, da int8, di int8, dc int8, dx int8)
  where x.p in (select id from ok)
  group by x.a, x.b, x.v, x.el, x.p
  on conflict (account, bpmn_process_id, version, element_id, partition) do update set
    active = t.active + excluded.active, incidents = t.incidents + excluded.incidents,
    completed = t.completed + excluded.completed, canceled = t.canceled + excluded.canceled
),
cmd as (
  insert into commands (partition, command_key, result)
  select x.p, x.k, coalesce(x.r, 'null'::jsonb)
  from jsonb_to_recordset($1::jsonb->'c') as x(p int, k text, r jsonb)
  where x.p in (select id from ok)
  on conflict (partition, command_key) do nothing
),
job_cmd as (
  insert into job_command_results (job_key, key_hash, result, fingerprint, request)
  select x.j, hashtextextended(x.k, 0), x.r, x.f, x.q
  from jsonb_to_recordset($1::jsonb->'jc') as x(p int, j int8, k text, r jsonb, f text, q text)
  where x.p in (select id from ok)
  on conflict (job_key, key_hash) do nothing
),
written as (
  select (select count(*) from inst) as i,
         (select coalesce(sum(w.i), 0) from want w where w.p in (select id from ok)) as ni,
         (select count(*) from job_up) as j,
         (select coalesce(sum(w.j), 0) from want w where w.p in (select id from ok)) as nj,
         (select count(*) from timer_up) as t,
         (select coalesce(sum(w.t), 0) from want w where w.p in (select id from ok)) as nt,
         (select count(*) from case_up) as ci,
         (select coalesce(sum(w.ci), 0) from want w where w.p in (select id from ok)) as nci
)
select w.p as id,
       f.epoch::text as epoch,
       w.p in (select id from ok) as ok,
       case
         when c.i <> c.ni then ('orca batch refused: instance key collision with another account (' || c.i || ' of ' || c.ni || ' written)')::int
         when c.j <> c.nj then ('orca batch refused: job key collision with another account (' || c.j || ' of ' || c.nj || ' written)')::int
         when c.t <> c.nt then ('orca batch refused: timer key collision with another account (' || c.t || ' of ' || c.nt || ' written)')::int
         when c.ci <> c.nci then ('orca batch refused: case instance key collision with another account (' || c.ci || ' of ' || c.nci || ' written)')::int
         else 0
       end as refused
from want w left join fence f on f.id = w.p cross join written c`,
};

/** The statement's deliberate failure, as the error it stands for; undefined for any other error. */
export function refusal(error: unknown): Error | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause === e ? undefined : e.cause) {
    const at = e.message.indexOf(REFUSED);
    if ((e as { code?: unknown }).code === '22P02' && at >= 0) {
      const reason = e.message.slice(at + REFUSED.length).replace(/"\s*$/, '');
      return new BatchRejectedError(`${reason}; batch refused`, undefined, { cause: error });
    }
  }
  return undefined;
}
