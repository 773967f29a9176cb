// Running the real `orca` command in tests: bin/orca.js in a child process,
// as a user runs it, with the environment given and nothing of ORCA_URL or
// ORCA_API_KEY inherited from the test's own environment.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/orca.js', import.meta.url));
export const repositoryRoot = fileURLToPath(new URL('../', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function environment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const { ORCA_URL: _url, ORCA_API_KEY: _key, ...rest } = process.env;
  return { ...rest, ...env };
}

export function orca(args: string[], env: Record<string, string | undefined> = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [bin, ...args], { cwd: repositoryRoot, env: environment(env), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input ?? '');
  });
}

/** A long-running `orca` (a worker): its output so far, a signal to send, and its exit. */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr has a line matching `pattern` (or rejects when the process ends first). */
  waitForStderr(pattern: RegExp): Promise<void>;
  exited: Promise<CliResult>;
}

/** `group`: in a process group of its own, as a terminal's foreground job, so `-child.pid` signals it as Ctrl-C does. */
export function spawnOrca(args: string[], env: Record<string, string | undefined> = {}, options: { group?: boolean } = {}): RunningCli {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: repositoryRoot,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  });
  let stdout = '';
  let stderr = '';
  let ended = false;
  const waiters: { pattern: RegExp; resolve: () => void; reject: (error: Error) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(stderr)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    check();
  });
  const exited = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      ended = true;
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(`orca ${args.join(' ')} ended (${code ?? signal}) before ${waiter.pattern}:\n${stderr}`));
      resolve({ code: code ?? 128, stdout, stderr });
    });
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStderr: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (ended && !pattern.test(stderr)) reject(new Error(`orca ${args.join(' ')} has ended; its stderr has no ${pattern}:\n${stderr}`));
        waiters.push({ pattern, resolve, reject });
        check();
      }),
    exited,
  };
}
