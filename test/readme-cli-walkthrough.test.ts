// The walkthroughs with the client are tests (README.md's in TypeScript,
// docs/cli.md's with the command line), run against a real server with BASE
// and KEY set as README's curl walkthrough leaves them. The lines of the
// cli-walkthrough block run, as written, through
// bash in the repository root; the worker runs in the background, as in a
// second terminal, and is stopped with SIGINT, as Ctrl-C stops it. The
// client-walkthrough block runs as a TypeScript file of its own, importing
// `orca/client` as a project that installed Orca would.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api/api-fixture.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

/** The `language` code block after `<!-- marker -->` in `file` (a path from the repository root). */
function block(file: string, marker: string, language: string): string {
  const text = readFileSync(new URL(file, `file://${root}`), 'utf8');
  const at = text.indexOf(`<!-- ${marker} -->`);
  expect(at, `${file} has a ${marker} block`).toBeGreaterThan(0);
  const open = text.indexOf('```' + language, at) + 3 + language.length;
  return text.slice(open, text.indexOf('```', open));
}

function walkthroughLines(): string[] {
  return block('docs/cli.md', 'cli-walkthrough', 'sh')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

function environment(vars: Record<string, string>): NodeJS.ProcessEnv {
  const { ORCA_URL: _url, ORCA_API_KEY: _key, ...rest } = process.env;
  return { ...rest, ...vars };
}

function bash(command: string, vars: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd: root, env: environment(vars), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let fixture: ApiFixture;
beforeAll(async () => {
  fixture = await apiFixture();
}, 120_000);
afterAll(() => fixture?.close());

describe('README command-line walkthrough', () => {
  it('deploys, starts, works on the job and finds the completed instance with the lines README.md shows', async () => {
    const lines = walkthroughLines();
    expect(lines).toHaveLength(5);
    const [exportLine, deploy, start, worker, instances] = lines;
    expect(exportLine).toMatch(/^export ORCA_URL=\S+ ORCA_API_KEY=\S+$/);
    for (const line of lines.slice(1)) expect(line.startsWith('npx orca '), line).toBe(true);
    const { apiKey } = await fixture.newAccount();
    const vars = { BASE: fixture.baseUrl, KEY: apiKey };
    const run = (line: string) => bash(`${exportLine}\n${line}`, vars);

    const deployed = await run(deploy);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/^examples\/order\.bpmn +process +order +1 +yes$/m);

    const started = await run(start);
    expect(started.code, started.stderr).toBe(0);
    const key = /^(\d+) +order +1 +ACTIVE$/m.exec(started.stdout)?.[1];
    expect(key, started.stdout).toBeDefined();

    // The worker in a process group of its own, as a terminal's foreground job; Ctrl-C signals the group.
    const workerProcess = spawn('bash', ['-c', `${exportLine}\n${worker}`], {
      cwd: root,
      env: environment(vars),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let workerLog = '';
    workerProcess.stderr.setEncoding('utf8').on('data', (chunk: string) => (workerLog += chunk));
    const workerExit = new Promise<number | null>((resolve) => workerProcess.on('close', resolve));
    try {
      let listed = await run(instances);
      for (let attempt = 0; attempt < 300 && !/COMPLETED/.test(listed.stdout); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        listed = await run(instances);
      }
      expect(listed.code, listed.stderr).toBe(0);
      const rows = listed.stdout.trim().split('\n');
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatch(new RegExp(`^${key} +order v1 +COMPLETED +\\S+ +\\{"orderId":"A2","tracking":"T-2"\\}$`));
    } finally {
      process.kill(-workerProcess.pid!, 'SIGINT');
      await workerExit;
    }
    expect(workerLog).toMatch(new RegExp(`orca worker: completed job=\\d+ instance=${key} `));
    expect(workerLog).toMatch(/orca worker: stopped completed=1 failed=0/);
  });
});

describe('README client-library walkthrough', () => {
  it('deploys, starts and completes an instance with the TypeScript README.md shows', async () => {
    const code = block('README.md', 'client-walkthrough', 'ts');
    expect(code).toContain("from 'orca/client'");
    // A project of its own, beside the checkout, in which `orca` is installed (a link to this repository).
    const project = await mkdtemp(join(tmpdir(), 'orca-readme-client-'));
    try {
      await mkdir(join(project, 'node_modules'));
      await symlink(root, join(project, 'node_modules', 'orca'), 'dir');
      await writeFile(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module', dependencies: { orca: '*' } }));
      await writeFile(join(project, 'walkthrough.ts'), code);
      const { apiKey } = await fixture.newAccount();
      const tsx = join(root, 'node_modules', '.bin', 'tsx');
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          tsx,
          [join(project, 'walkthrough.ts')],
          { cwd: root, env: environment({ ORCA_URL: fixture.baseUrl, ORCA_API_KEY: apiKey }), timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("state: 'COMPLETED'");
      const listed = await fixture.call('GET', '/api/v1/process-instances', { apiKey, query: { 'filter.variable': 'orderId:A3' } });
      expect(listed.json.items).toEqual([
        expect.objectContaining({ bpmnProcessId: 'order', state: 'COMPLETED', variables: { orderId: 'A3', tracking: 'T-A3' } }),
      ]);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
