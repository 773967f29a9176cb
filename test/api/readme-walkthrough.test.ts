// README.md's walkthrough is a test: the `curl` lines of its walkthrough
// block run, in order, through bash against a real server, with the values
// a reader would paste (the confirmation link and the key from the mail, the
// keys from earlier answers) taken from the same places a reader takes them.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function walkthroughCommands(): string[] {
  const readme = readFileSync(new URL('README.md', `file://${root}`), 'utf8');
  const start = readme.indexOf('<!-- walkthrough -->');
  expect(start, 'README.md has a walkthrough block').toBeGreaterThan(0);
  const block = readme.slice(readme.indexOf('```sh', start) + 5, readme.indexOf('```', readme.indexOf('```sh', start) + 5));
  return block.split('\n').filter((line) => line.startsWith('curl '));
}

function bash(command: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', command], { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

let fixture: ApiFixture;
beforeAll(async () => {
  fixture = await apiFixture();
}, 120_000);
afterAll(() => fixture?.close());

describe('README walkthrough', () => {
  it('goes from signup to a completed instance with the commands README.md shows', async () => {
    const [signup, confirm, deploy, startInstance, activate, complete, check] = walkthroughCommands();
    expect(check, 'the walkthrough has seven curl steps').toBeDefined();
    const env: Record<string, string> = { BASE: fixture.baseUrl };

    expect(JSON.parse(await bash(signup, env)).message).toContain('you@example.com');
    // Without SMTP_URL `npm start` prints the messages: the fixture reads what it would print.
    const [confirmation] = fixture.mail('you@example.com');
    env.CONFIRM_LINK = /https?:\/\/\S+\/api\/signup\/confirm\?token=\S+/.exec(confirmation.text)![0];

    await bash(confirm, env);
    const [welcome] = fixture.mail('you@example.com');
    env.KEY = /orca_[A-Za-z0-9_-]+/.exec(welcome.text)![0];

    expect(JSON.parse(await bash(deploy, env))).toMatchObject({ id: 'order' });
    const started = JSON.parse(await bash(startInstance, env));
    expect(started).toMatchObject({ bpmnProcessId: 'order', state: 'ACTIVE' });
    env.INSTANCE_KEY = started.processInstanceKey;

    let jobs: { key: string }[] = [];
    for (let i = 0; i < 100 && jobs.length === 0; i++) {
      jobs = JSON.parse(await bash(activate, env)).jobs;
      if (jobs.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(jobs).toHaveLength(1);
    env.JOB_KEY = jobs[0].key;
    expect(await bash(complete, env)).toBe('');

    const instance = JSON.parse(await bash(check, env));
    expect(instance).toMatchObject({ processInstanceKey: env.INSTANCE_KEY, state: 'COMPLETED', variables: { orderId: 'A1', tracking: 'T-1' } });
  });
});
