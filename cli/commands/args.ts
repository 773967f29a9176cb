// Argument parsing for the commands that talk to a server: node:util's
// parseArgs in strict mode, with its complaints turned into UsageError so
// every command answers bad arguments the same way (exit 2, nothing sent),
// and the options every such command shares (where the server is, the key,
// JSON output).
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad arguments: the command did not reach the server. */
export class UsageError extends Error {}

export const connectionOptions = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The paging options of every listing command. */
export const pagingOptions = {
  limit: { type: 'string' },
  cursor: { type: 'string' },
} as const;

/** `--limit` and `--cursor` as the client's page query takes them. */
export function paging(values: { limit?: string; cursor?: string }): { limit?: number; cursor?: string } {
  return { limit: integer(values.limit, '--limit', 1, 1000), cursor: values.cursor };
}

export function parse<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Exactly the positional arguments `names` lists; a missing one is named, an extra one quoted. */
export function positionals(given: string[], names: string[]): string[] {
  if (given.length < names.length) throw new UsageError(`missing ${names.slice(given.length).join(' ')}`);
  if (given.length > names.length) throw new UsageError(`unexpected argument '${given[names.length]}'`);
  return given;
}

/** A JSON object given on the command line (`--vars`), or a UsageError saying what is wrong with it. */
export function jsonObject(text: string, flag: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${flag} must be a JSON object, like '{"orderId": "A1"}'`);
  return value as Record<string, unknown>;
}

/** A whole number within bounds (`--max`, `--limit`), or a UsageError. */
export function integer(text: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not '${text}'`);
  }
  return value;
}
