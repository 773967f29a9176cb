// The durable command log (DESIGN §4: every command is idempotent by key).
// A leader looks up a batch's command keys before applying them: a key
// already present was committed before — perhaps by a previous leader — and
// its stored result is the answer, without applying the command again. The
// lookup is on the leader's hot path, so it is one fixed statement (one
// round trip, an index probe per key) whatever the number of keys.
import { sql } from 'drizzle-orm';
import { rows, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { runStatement, type Statement } from './statement.ts';

// The keys travel as one jsonb array: no bind-parameter limit, and the same
// parameter type on node-postgres and PGlite.
const FIND_RESULTS: Statement = {
  text: `select c.command_key as key, c.result
         from commands c
         where c.partition = $1::int
           and c.command_key = any (array(select jsonb_array_elements_text($2::jsonb)))`,
};

// Job commands: by job and key hash in the narrow log, the reply rebuilt
// as it was sent (null stands for "done"); and in `commands` too, where a
// version before the narrow log kept them.
const FIND_WITH_JOBS: Statement = {
  text: `select c.command_key as key, c.result
         from commands c
         where c.partition = $1::int
           and c.command_key = any (array(select jsonb_array_elements_text($2::jsonb)))
         union all
         select x.k as key,
                coalesce(r.result, '{"ok":true,"value":{"done":true}}'::jsonb)
                  || case when r.fingerprint is null then '{}'::jsonb
                          else jsonb_build_object('origin', jsonb_build_object('fingerprint', r.fingerprint, 'request', r.request)) end
         from jsonb_to_recordset($3::jsonb) as x(j int8, k text)
         join job_command_results r on r.job_key = x.j and r.key_hash = hashtextextended(x.k, 0)`,
};

/** A job command to look up: its key, and the job it names. */
export interface JobCommandKey {
  key: string;
  jobKey: string;
}

export function commandsRepository(db: Db) {
  /**
   * Stored results of the given command keys on `partition`, and of the job
   * commands `jobs` names (their keys need not be in `keys`); keys never
   * applied are absent.
   */
  async function findCommandResults(partition: number, keys: readonly string[], jobs: readonly JobCommandKey[] = []): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    if (keys.length === 0 && jobs.length === 0) return found;
    const all = JSON.stringify([...new Set([...keys, ...jobs.map((j) => j.key)])]);
    const rows =
      jobs.length === 0
        ? await runStatement<{ key: string; result: unknown }>(db, FIND_RESULTS, [partition, all])
        : await runStatement<{ key: string; result: unknown }>(db, FIND_WITH_JOBS, [
            partition,
            all,
            JSON.stringify(jobs.map((j) => ({ j: j.jobKey, k: j.key }))),
          ]);
    for (const row of rows) found.set(row.key, row.result);
    return found;
  }

  /**
   * Forgets results older than `before`; returns how many. Run it with a
   * horizon well past how long a command can sit unacknowledged in a stream.
   */
  async function pruneCommands(partition: number, before: Date): Promise<number> {
    // Counted in SQL: a minute of a busy partition is ~100,000 rows, not worth sending back.
    // The partition's job commands are those of its job keys (engine/partition/keys.ts: the partition is in bits 55..62).
    const [row] = await rows<{ n: number }>(
      db,
      sql`with gone as (delete from commands where partition = ${partition} and created_at < ${before.toISOString()}::timestamptz returning 1),
               jobs_gone as (delete from job_command_results
                             where created_at < ${before.toISOString()}::timestamptz and job_key >> 55 = ${partition}
                             returning 1)
          select (select count(*) from gone)::int + (select count(*) from jobs_gone)::int as n`,
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Counts one more attempt at `key` on `partition` and returns the count.
   * Durable before the attempt starts, so a leader that dies in it leaves
   * the count behind for the next one (partition-leader's careful replay).
   */
  async function countAttempt(partition: number, key: string): Promise<number> {
    const [row] = await rows<{ attempts: number }>(
      db,
      sql`insert into command_attempts (partition, command_key, attempts) values (${partition}, ${key}, 1)
          on conflict (partition, command_key) do update set attempts = command_attempts.attempts + 1, updated_at = now()
          returning attempts`,
    );
    return Number(row.attempts);
  }

  /** Forgets the attempt counts of `partition` (its backlog was got through), but `keep`'s. */
  async function clearAttempts(partition: number, keep = ''): Promise<void> {
    await rows(db, sql`delete from command_attempts where partition = ${partition} and command_key <> ${keep}`);
  }

  return guarded({ findCommandResults, pruneCommands, countAttempt, clearAttempts });
}
