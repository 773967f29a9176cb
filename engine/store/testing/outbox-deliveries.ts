// For tests: every delivery the outbox stands for, as rows shaped like
// webhook_deliveries' — its delivery rows, and the deliveries the leaders'
// batch rows (webhook_batches) hold, one per enabled endpoint subscribed to
// each event's type (as a takeover would write them). Use it where a test
// asks which deliveries a change wrote, whichever table holds them.
export const OUTBOX_DELIVERIES = `(
  select w.id as endpoint_id, e.a as account, e.i as event_id, e.ty as type,
         jsonb_build_object('type', e.ty, 'timestamp', e.ts, 'data', e.d) as payload, 'pending'::text as status,
         -- \`id\` orders all by when they were written (then as written within one statement).
         (extract(epoch from b.created_at) * 1000000)::int8 * 1000 + e.n as id
  from webhook_batches b
  cross join lateral rows from (jsonb_to_recordset(b.events) as (i text, a text, ty text, ts text, d jsonb)) with ordinality as e(i, a, ty, ts, d, n)
  join webhook_endpoints w on w.account = e.a and w.status = 'enabled' and w.events ? e.ty
  where b.delivered_at is null
  union all
  select endpoint_id, account, event_id, type, payload, status, (extract(epoch from created_at) * 1000000)::int8 * 1000 + id % 1000
  from webhook_deliveries
) as webhook_deliveries`;
