// The k6 scripts work against a real Orca, as far as Node can tell without
// k6: loadtest/k6-smoke.ts runs each one briefly (its setup and a few
// iterations of each scenario, k6's modules stood in for by loadtest/k6-shim)
// against an embedded Orca it starts, and exits 0 only when no request or
// check failed and every instance the scripts started is COMPLETED.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('k6 scripts, run in Node against an embedded Orca', () => {
  it('make only successful requests and complete every instance they start', { timeout: 180_000 }, () => {
    const env = { ...process.env };
    // Its own embedded server, whatever the environment points at.
    delete env.BASE_URL;
    delete env.API_KEY;
    const run = spawnSync('npx', ['tsx', 'loadtest/k6-smoke.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 170_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ scripts: 5, requests: expect.any(Number), failed_requests: 0, failed_checks: 0 });
    for (const script of ['start-instances.js', 'job-workers.js', 'end-to-end.js', 'task-list-users.js']) expect(run.stdout).toContain(`${script}: `);
    expect(run.stdout).toContain('instances: {"orca-load-service-task":{"COMPLETED":12},"orca-load-user-task":{"COMPLETED":12}}');
  });
});
