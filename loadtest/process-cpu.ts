// CPU time of processes, counted rather than timed (the machine is shared,
// so wall-clock figures are noisy): a process's user + system time from
// /proc, and that of the Postgres backends serving one application (the
// connections a server opened under its PGAPPNAME).
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** User + system CPU of a process so far in ms (Linux /proc), or null where it cannot be read. */
export function processCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * CPU so far of the Postgres backends whose application_name is `name`, in
 * ms, or null when none can be read (another host, no /proc). A backend that
 * exited between two readings takes its time with it, so a difference of two
 * readings is a floor; a server's pool keeps its connections while busy.
 */
export async function postgresCpuMs(databaseUrl: string, name: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [name]);
    let total: number | null = null;
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms !== null) total = (total ?? 0) + ms;
    }
    return total;
  } finally {
    await client.end();
  }
}
