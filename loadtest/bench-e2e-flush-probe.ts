// What the disk made a durable commit wait, measured beside the load
// (bench:e2e, pg-redis). Every request Orca answers as done waits for a
// Postgres commit, and a synchronous commit waits for the WAL flush; on a
// shared machine that wait has a tail of its own (checkpoints, writeback).
// So while the load runs, a connection of its own commits a one-row insert
// every `intervalMs` and times it: a long tail in the open model's latency
// beside a long tail here is the disk's, not Orca's. It also counts the
// checkpoints Postgres began during each phase.
import pg from 'pg';
import { summarise, type Summary } from './bench-e2e-load.ts';

export interface FlushFigures {
  /** Commit time of the probe's insert, ms. */
  commit: Summary;
  /** Checkpoints Postgres began (timed or requested) while the phase ran. */
  checkpoints: number;
}

export interface FlushProbe {
  /** Attributes the samples from now on to `phase`, until `end`. */
  begin(phase: string): Promise<void>;
  end(phase: string): Promise<void>;
  figures(phase: string): FlushFigures | undefined;
  stop(): Promise<void>;
}

const TABLE = 'bench_flush_probe';

export async function startFlushProbe(databaseUrl: string, schema: string, intervalMs = 50): Promise<FlushProbe> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(TABLE)}`;
  let counting: string | undefined;
  const samples = new Map<string, number[]>();
  const checkpoints = new Map<string, number>();
  const done = new Map<string, FlushFigures>();
  // Postgres 17 moved the checkpoint counters to pg_stat_checkpointer.
  const version = Number((await client.query<{ v: string }>(`select current_setting('server_version_num') as v`)).rows[0].v);
  const checkpointCount = async () =>
    Number(
      (
        await client.query<{ n: string }>(
          version >= 170000
            ? 'select num_timed + num_requested as n from pg_stat_checkpointer'
            : 'select checkpoints_timed + checkpoints_req as n from pg_stat_bgwriter',
        )
      ).rows[0].n,
    );
  await client.query(`create table if not exists ${table} (id bigserial primary key, at timestamptz not null default now())`);

  let stopped = false;
  let failure: unknown;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      try {
        await client.query(`insert into ${table} default values`);
      } catch (error) {
        failure ??= error;
        return;
      }
      const phase = counting;
      if (phase !== undefined) samples.get(phase)!.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();

  return {
    async begin(phase) {
      samples.set(phase, []);
      checkpoints.set(phase, await checkpointCount());
      counting = phase;
    },
    async end(phase) {
      if (counting === phase) counting = undefined;
      done.set(phase, { commit: summarise(samples.get(phase) ?? []), checkpoints: (await checkpointCount()) - (checkpoints.get(phase) ?? 0) });
    },
    figures: (phase) => done.get(phase),
    async stop() {
      stopped = true;
      await loop;
      await client.end();
      if (failure !== undefined) throw new Error(`the flush probe failed: ${failure instanceof Error ? failure.message : String(failure)}`, { cause: failure });
    },
  };
}
