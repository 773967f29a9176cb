// The durable command log (DESIGN §4: every command is idempotent by key).
// A leader looks up a batch's command keys before applying them: a key
// already present was committed before — perhaps by a previous leader — and
// its stored result is the answer, without applying the command again.
import { and, eq, inArray, lt } from 'drizzle-orm';
import { chunks, type Db } from './db.ts';
import { guarded } from './errors.ts';
import { commands } from './schema.ts';

export function commandsRepository(db: Db) {
  /** Stored results of the given command keys on `partition`; keys never applied are absent. */
  async function findCommandResults(partition: number, keys: string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    for (const part of chunks([...new Set(keys)], 1)) {
      const rows = await db
        .select({ key: commands.commandKey, result: commands.result })
        .from(commands)
        .where(and(eq(commands.partition, partition), inArray(commands.commandKey, part)));
      for (const row of rows) found.set(row.key, row.result);
    }
    return found;
  }

  /**
   * Forgets results older than `before`; returns how many. Run it with a
   * horizon well past how long a command can sit unacknowledged in a stream.
   */
  async function pruneCommands(partition: number, before: Date): Promise<number> {
    const deleted = await db
      .delete(commands)
      .where(and(eq(commands.partition, partition), lt(commands.createdAt, before)))
      .returning({ key: commands.commandKey });
    return deleted.length;
  }

  return guarded({ findCommandResults, pruneCommands });
}
