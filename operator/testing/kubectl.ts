// Running kubectl against the fake API server from a test: asynchronously,
// because the server lives in the test's own process and a synchronous child
// would block the very server it talks to; with flags rather than environment,
// so the discovery cache stays beside the kubeconfig, out of the user's
// ~/.kube. The binary comes from the chart tests' helm-tools (TOOLS.kubectl).
import { execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one kubectl command to its end. */
export function kubectl(binary: string, kubeconfig: string, args: string[]): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(binary, [...flags(kubeconfig), ...args], (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function flags(kubeconfig: string): string[] {
  return [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dirname(kubeconfig), 'cache')}`];
}

/**
 * Starts a long-running kubectl (e.g. `get -w`); `lines()` resolves once its
 * output has `count` complete lines, and `stop()` ends it and resolves with everything.
 */
export function kubectlStream(binary: string, kubeconfig: string, args: string[]): { lines(count: number): Promise<string[]>; stop(): Promise<KubectlResult> } {
  const child = spawn(binary, [...flags(kubeconfig), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let code: number | undefined;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((waiter) => waiter());
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) =>
    child.on('close', (exitCode) => {
      code = exitCode ?? 1;
      wake();
      resolve();
    }),
  );
  // Only lines ended by a newline: kubectl may write one in more than one chunk.
  const complete = () => (code === undefined ? stdout.slice(0, stdout.lastIndexOf('\n') + 1) : stdout).split('\n').filter(Boolean);
  return {
    async lines(count) {
      while (complete().length < count && code === undefined) await new Promise<void>((resolve) => waiters.push(resolve));
      return complete();
    },
    async stop() {
      if (code === undefined) child.kill();
      await exited;
      return { code: code ?? 1, stdout, stderr };
    },
  };
}
