// The bulk fill of `bench:reads`: a million instances (or as many as asked)
// written straight into a fresh schema with INSERT … SELECT over
// generate_series, in chunks — not through HTTP and not through the engine.
// Each instance takes one of the engine-made shapes (bench-reads-shapes.ts),
// picked by a hash of its number so states and models are spread evenly in
// time, with its own keys (partition in the top bits, as the engine's),
// start and end times over the last 30 days, and realistic root variables
// (an order id, one of 5,000 customers, an amount, a priority, a region, an
// item). Its history row, its incident (a third of them closed), the
// completed review task of a completed approval instance, and the
// definition statistics (the shapes' deltas, summed per partition, as the
// commit statement keeps them) are written the same way. Finally the tables
// are vacuumed and analysed, as autovacuum would have done on a live system.
import type pg from 'pg';
import { buildShapes, keyToken, TOKEN_END, TOKEN_START, TOKEN_VARIABLES, TOKEN_VERSION, type Shape } from './bench-reads-shapes.ts';

export interface FillOptions {
  account: string;
  instances: number;
  partitions: number;
  /** Rows per INSERT statement. */
  chunk?: number;
  /** Progress lines (stderr). */
  log?: (line: string) => void;
}

export interface Filled {
  shapes: Shape[];
  /** Start of the 30-day window (epoch ms); instance n starts at from + n·step. */
  from: number;
  step: number;
  seconds: number;
}

/** The engine's key layout: partition in bits 55–62, an epoch (1,000: no leader of a fresh schema gets there) in 35–54, a sequence below. */
export const instanceKey = (n: number, partitions: number): bigint => (BigInt(n % partitions) << 55n) + (1000n << 35n) + BigInt(n);
/** Key i of an instance (elements, jobs, incidents): the instance key plus i · 2^24, so none collides with another instance's. */
const KEY_STRIDE = 16_777_216;
const WINDOW_MS = 30 * 24 * 3600 * 1000;
/** The people completed review tasks are assigned to: user-0 … user-39. */
export const ASSIGNEES = 40;

export async function fillStore(client: pg.ClientBase, options: FillOptions): Promise<Filled> {
  const began = performance.now();
  const log = options.log ?? (() => {});
  const shapes = buildShapes();
  const { instances: total, partitions } = options;
  if (total >= KEY_STRIDE) throw new Error(`bench:reads fills at most ${KEY_STRIDE - 1} instances`);
  const chunk = options.chunk ?? 50_000;
  const from = Date.now() - WINDOW_MS - 3600_000 * 2;
  const step = WINDOW_MS / total;
  const maxKeys = Math.max(...shapes.map((s) => s.keys));

  await client.query(`create table bench_shapes (id int primary key, lo int, hi int, bpmn text, state text, ended bool, doc text, recs text,
                        inc_key int, inc_el text, inc_eik int, inc_type text, inc_message text)`);
  await client.query(`create table bench_shape_deltas (shape int, el text, da int8, di int8, dc int8, dx int8)`);
  let lo = 0;
  for (const s of shapes) {
    await client.query('insert into bench_shapes values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)', [
      s.id,
      lo,
      lo + s.weight,
      s.bpmnProcessId,
      s.state,
      s.state === 'COMPLETED' || s.state === 'TERMINATED',
      s.document,
      s.records,
      s.incident?.key ?? null,
      s.incident?.elementId ?? null,
      s.incident?.elementInstanceKey ?? null,
      s.incident?.type ?? null,
      s.incident?.message ?? null,
    ]);
    for (const d of s.deltas) await client.query('insert into bench_shape_deltas values ($1, $2, $3, $4, $5, $6)', [s.id, d.el, d.da, d.di, d.dc, d.dx]);
    lo += s.weight;
  }
  if (lo !== 1000) throw new Error(`bench:reads shapes cover ${lo} of 1000`);

  // One row per instance number: its shape, keys, version, times and variables.
  const generated = (first: string, last: string) => `
    select g.*, s.*,
           case when s.bpmn = 'order' and g.n > ${Math.floor(total * 0.6)} then 2 else 1 end as v,
           case when s.ended then g.c_ms + ((g.n * 13) % 3600 + 1) * 1000 end as e_ms
    from (
      select n, (n % ${partitions}) as p, ((n % ${partitions})::int8 << 55) + (1000::int8 << 35) + n as k,
             (n * 7919) % 1000 as r, (${from} + n * ${step})::int8 as c_ms,
             json_build_object('orderId', 'ORD-' || lpad(n::text, 8, '0'), 'customer', 'C-' || (n % 5000), 'amount', ((n * 37) % 100000) / 100.0,
                               'priority', case when n % 10 = 0 then 'high' else 'normal' end,
                               'region', (array['eu', 'us', 'apac'])[n % 3 + 1],
                               'items', json_build_array(json_build_object('sku', 'SKU-' || (n % 700), 'qty', n % 5 + 1)))::text as vars
      from generate_series(${first}::int8, ${last}::int8) n
    ) g join bench_shapes s on g.r >= s.lo and g.r < s.hi`;
  const expand = (column: string) => {
    let expr = `replace(replace(replace(replace(${column}, '${TOKEN_START}', x.c_ms::text), '${TOKEN_END}', coalesce(x.e_ms::text, 'null')), '${TOKEN_VERSION}', x.v::text), '${TOKEN_VARIABLES}', x.vars)`;
    for (let i = 0; i < maxKeys; i++) expr = `replace(${expr}, '${keyToken(i)}', (x.k + ${i * KEY_STRIDE})::text)`;
    return expr;
  };
  const at = (ms: string) => `timestamptz 'epoch' + ${ms} * interval '1 millisecond'`;

  for (let first = 1; first <= total; first += chunk) {
    const last = Math.min(total, first + chunk - 1);
    const x = generated(String(first), String(last));
    await client.query(
      `insert into instances (key, account, partition, bpmn_process_id, version, state, document, variables, parent_key, created_at, updated_at, ended_at)
       select x.k, $1, x.p, x.bpmn, x.v, x.state, ${expand('x.doc')}::jsonb, x.vars::jsonb, null,
              ${at('x.c_ms')}, ${at('coalesce(x.e_ms, x.c_ms)')}, ${at('x.e_ms')}
       from (${x}) x`,
      [options.account],
    );
    await client.query(
      `insert into history (account, partition, instance_key, position, records, created_at)
       select $1, x.p, x.k, 1, ${expand('x.recs')}::jsonb, ${at('coalesce(x.e_ms, x.c_ms)')} from (${x}) x`,
      [options.account],
    );
    await client.query(
      `insert into incidents (key, account, partition, instance_key, bpmn_process_id, element_id, element_instance_key, type, message, state, created_at, resolved_at)
       select x.k + x.inc_key * ${KEY_STRIDE}, $1, x.p, x.k, x.bpmn, x.inc_el, x.k + x.inc_eik * ${KEY_STRIDE}, x.inc_type, x.inc_message,
              case when x.n % 3 = 0 then 'RESOLVED' else 'OPEN' end, ${at('x.c_ms')},
              case when x.n % 3 = 0 then ${at('x.c_ms')} + interval '1 hour' end
       from (${x}) x where x.inc_key is not null`,
      [options.account],
    );
    // The approval model's completed instances each had their review done by
    // a person: one of 40 names, or nobody (a tenth), completed before the instance ended.
    await client.query(
      `insert into completed_tasks (key, account, partition, instance_key, bpmn_process_id, process_version, element_id, element_instance_key,
                                    assignee, created_at, completed_at)
       select x.k + ${maxKeys * KEY_STRIDE}, $1, x.p, x.k, x.bpmn, x.v, 'review', x.k + ${(maxKeys + 1) * KEY_STRIDE},
              case when x.n % 10 = 0 then null else 'user-' || ((x.n / 10) % ${ASSIGNEES}) end, ${at('x.c_ms')}, ${at('(x.e_ms - 1000)')}
       from (${x}) x where x.bpmn = 'approval' and x.state = 'COMPLETED'`,
      [options.account],
    );
    log(`bench:reads: filled ${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} instances`);
  }
  await client.query(
    `insert into element_stats (account, bpmn_process_id, version, element_id, partition, active, incidents, completed, canceled)
     select $1, x.bpmn, x.v, d.el, x.p, sum(d.da), sum(d.di), sum(d.dc), sum(d.dx)
     from (${generated('1', String(total))}) x join bench_shape_deltas d on d.shape = x.id
     group by x.bpmn, x.v, d.el, x.p`,
    [options.account],
  );
  await client.query('drop table bench_shapes, bench_shape_deltas');
  log('bench:reads: vacuum analyze');
  await client.query('vacuum analyze instances, history, incidents, element_stats, completed_tasks');
  return { shapes, from, step, seconds: (performance.now() - began) / 1000 };
}
