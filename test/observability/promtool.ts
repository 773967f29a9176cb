// Prometheus's own tools for the tests: Debian's `prometheus` package puts
// `promtool` and the `prometheus` server on the PATH (.ci/run installs it).
// Tests that need them skip, saying so, where they are missing.
import { execFileSync, spawn } from 'node:child_process';

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const HAS_PROMTOOL = onPath('promtool');
export const HAS_PROMETHEUS = onPath('prometheus');
export const PROMETHEUS_SKIP = "(skipped: Debian's prometheus package is not installed; apt-get install prometheus)";

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs promtool with `args`, `input` on its stdin. */
export function promtool(args: string[], input?: string): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The families of a text exposition whose names pass `keep` (HELP, TYPE and sample lines alike). */
export function families(text: string, keep: (name: string) => boolean): string {
  return (
    text
      .split('\n')
      .filter((line) => {
        const name = line.startsWith('# ') ? line.split(' ')[2] : line.split(/[{\s]/)[0];
        return line !== '' && name !== undefined && keep(name);
      })
      .join('\n') + '\n'
  );
}
