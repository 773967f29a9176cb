// The exit codes of the commands that talk to a server, and how a failure
// becomes one. Scripts branch on them: 1 means the server understood and
// said no (repeating the same request will not help), 3 means it could not
// answer (trying later may), 4 means the credentials are wrong. The problem
// the server sent is printed to stderr: one readable line per fact, or the
// problem document itself as one JSON line with `--json`.
import { OrcaError } from '../../client/index.ts';
import { UsageError } from './args.ts';

export const EXIT = {
  OK: 0,
  /** The server refused the request (invalid input, unknown process, wrong state, out of credits…). */
  REFUSED: 1,
  /** Bad arguments or local input (a file, JSON in --vars, no API key): nothing was sent. */
  USAGE: 2,
  /** No answer, or the server is unavailable (transport error, timeout, 5xx, 429 after retries). */
  UNAVAILABLE: 3,
  /** The server refused the credentials (401, 403). */
  AUTH: 4,
} as const;

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.USAGE;
  if (!(error instanceof OrcaError)) return EXIT.REFUSED;
  if (error.status === 401 || error.status === 403) return EXIT.AUTH;
  if (error.status === 0 || error.status >= 500 || error.status === 429 || error.status === 408) return EXIT.UNAVAILABLE;
  return EXIT.REFUSED;
}

/** Prints what went wrong to stderr and returns the exit code. */
export function reportFailure(command: string, error: unknown, json: boolean): number {
  const code = exitCodeOf(error);
  if (error instanceof UsageError) {
    process.stderr.write(`orca ${command}: ${error.message}\n(orca help lists the commands and their arguments)\n`);
  } else if (error instanceof OrcaError) {
    if (json) {
      const problem =
        Object.keys(error.problem).length > 0 ? error.problem : { status: error.status, code: error.code, title: error.title, detail: error.detail };
      process.stderr.write(`${JSON.stringify(problem)}\n`);
    } else {
      const status = error.status === 0 ? 'no answer' : String(error.status);
      const lines = [`orca ${command}: ${error.code} (${status}): ${error.detail}`];
      for (const field of error.errors) lines.push(`  ${field.field}: ${field.message}`);
      if (code === EXIT.AUTH) lines.push(command.startsWith('credits') ? '  check ORCA_ADMIN_TOKEN (or --admin-token)' : '  check ORCA_API_KEY (or --api-key)');
      process.stderr.write(`${lines.join('\n')}\n`);
    }
  } else {
    process.stderr.write(`orca ${command}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  return code;
}

/** Runs a command's body and turns whatever it throws into its report and exit code. */
export async function guarded(command: string, argv: string[], body: () => Promise<number | void>): Promise<number> {
  try {
    return (await body()) ?? EXIT.OK;
  } catch (error) {
    return reportFailure(command, error, argv.includes('--json'));
  }
}
