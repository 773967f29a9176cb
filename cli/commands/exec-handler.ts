// The job handler of `orca worker TYPE --exec 'command'`: runs the command
// through /bin/sh with the job's variables as JSON on stdin and the job's
// facts in ORCA_JOB_* variables. A JSON object on stdout (or nothing)
// completes the job with those variables; a non-zero exit, a signal, a
// timeout or anything on stdout that is not a JSON object fails it, with
// stderr (or the reason) as the error message.
//
// Each command runs in a process group of its own: Ctrl-C in a terminal
// signals the whole foreground group, and the worker's promise is to finish
// the jobs in hand when stopped, not to have them killed under it.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ShellJob {
  key: string;
  type: string;
  retries: number;
  processInstanceKey: string;
  bpmnProcessId: string;
  elementId: string;
  customHeaders: Record<string, string>;
  variables: Record<string, unknown>;
}

export interface ExecOptions {
  /** Kill the command (SIGTERM to its group) after this long; the job then fails. */
  timeoutMs?: number;
}

/** The server keeps at most this much of a failed job's message (docs/api.md, free text). */
export const MAX_ERROR_MESSAGE = 10_000;
/** More than the server accepts as variables (4 MiB): what is past it can only be refused. */
const MAX_STDOUT_BYTES = 8 * 1024 * 1024;

export interface ExecHandler {
  (job: ShellJob): Promise<Record<string, unknown>>;
  /** Commands running now (their jobs are in hand). */
  running(): number;
  /** Ends every running command (SIGTERM to its group); their jobs fail. */
  killAll(): void;
}

export function execHandler(command: string, options: ExecOptions = {}): ExecHandler {
  const children = new Set<ChildProcess>();
  const handler = (job: ShellJob) => run(command, job, options, children);
  return Object.assign(handler, {
    running: () => children.size,
    killAll: () => {
      for (const child of children) killGroup(child, 'SIGTERM');
    },
  });
}

function run(command: string, job: ShellJob, options: ExecOptions, children: Set<ChildProcess>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ORCA_JOB_KEY: job.key,
        ORCA_JOB_TYPE: job.type,
        ORCA_JOB_RETRIES: String(job.retries),
        ORCA_PROCESS_INSTANCE_KEY: job.processInstanceKey,
        ORCA_BPMN_PROCESS_ID: job.bpmnProcessId,
        ORCA_ELEMENT_ID: job.elementId,
        ORCA_JOB_HEADERS: JSON.stringify(job.customHeaders),
      },
    });
    children.add(child);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: string | undefined;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            failure ??= `the command did not finish within ${options.timeoutMs} ms and was stopped`;
            killGroup(child, 'SIGTERM');
          }, options.timeoutMs);

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes <= MAX_STDOUT_BYTES) stdout.push(chunk);
      else if (failure === undefined) {
        failure = `the command printed more than ${MAX_STDOUT_BYTES} bytes on stdout`;
        killGroup(child, 'SIGTERM');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // The end of stderr says why a command failed; its beginning is usually noise.
      stderr = (stderr + chunk).slice(-MAX_ERROR_MESSAGE);
    });
    // A command that does not read its stdin closes the pipe early: that is its right, not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(job.variables));

    child.on('error', (error) => {
      failure ??= `cannot run the command: ${error.message}`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      const message = failure ?? exitProblem(code, signal, stderr);
      if (message !== undefined) {
        reject(new Error(message.slice(0, MAX_ERROR_MESSAGE)));
        return;
      }
      const parsed = completionVariables(Buffer.concat(stdout).toString('utf8'));
      if (typeof parsed === 'string') reject(new Error(parsed));
      else resolve(parsed);
    });
  });
}

function exitProblem(code: number | null, signal: NodeJS.Signals | null, stderr: string): string | undefined {
  if (code === 0) return undefined;
  const why = signal !== null ? `the command was killed by ${signal}` : `the command exited with code ${code}`;
  const said = stderr.trim();
  return said === '' ? why : said;
}

/** The variables to complete with, or why stdout cannot be them. */
export function completionVariables(stdout: string): Record<string, unknown> | string {
  const text = stdout.trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `the command's stdout is not JSON (expected an object of variables): ${text.slice(0, 200)}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `the command's stdout must be a JSON object of variables, not ${text.slice(0, 200)}`;
  }
  return value as Record<string, unknown>;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // The negative pid is the group: the shell and whatever it started.
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
