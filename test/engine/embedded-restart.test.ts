// A restart of the embedded default (real `orca start` processes on one
// PGlite directory) loses no acknowledged completion, even when the new
// process is started before the old one is gone: `npm start` returns at
// once on SIGTERM and leaves the server running, and Ctrl-C gives the prompt
// back while it may still be shutting down. The new process waits for the
// directory instead of opening it beside the old one: opened beside it, it
// offered again every job the old one completed after that moment, and a
// second start that failed (its port taken) made the next crash recovery
// drop them from the files too.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createIdentity } from '../../api/identity/index.ts';
import { createMailer } from '../../api/mail/index.ts';
import { createStore, openDatabase } from '../../engine/store/index.ts';
import { freePort } from '../../loadtest/bench-e2e-server.ts';
import { pgliteTemplate } from '../../engine/store/testing/database.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ORCA_BIN = path.join(ROOT, 'bin', 'orca.js');
const INSTANCES = 200;

// Each test starts two or three Orca processes; PGlite's start is slow on a busy machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const dirs: string[] = [];
const running: OrcaProcess[] = [];
afterEach(() => {
  for (const orca of running.splice(0)) orca.child.kill('SIGKILL');
});
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

interface OrcaProcess {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the process prints a line matching `pattern`. */
  printed(pattern: RegExp): Promise<void>;
  /** The end of what it printed, for error messages. */
  output(): string;
}

/** `orca start` on the embedded default, as `npm start` runs it, on `dataDir` and `port`. */
function startOrca(dataDir: string, port: number): OrcaProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), ORCA_DATA_DIR: dataDir, ORCA_RATE_LIMIT_PER_SECOND: '0', SMTP_URL: '' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [ORCA_BIN, 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  const take = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of watchers.filter((w) => w.pattern.test(text))) {
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const orca: OrcaProcess = {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    printed: (pattern) => (pattern.test(text) ? Promise.resolve() : new Promise((resolve) => watchers.push({ pattern, resolve }))),
    // PGlite prints its whole bundle when it aborts: the tail is what tells.
    output: () => text.slice(-3_000),
  };
  running.push(orca);
  return orca;
}

/** Until /readyz answers, or the process exits (then its output is the error). */
async function ready(orca: OrcaProcess): Promise<void> {
  let gone = false;
  void orca.exited.then(() => (gone = true));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`orca exited before it was ready:\n${orca.output()}`);
    try {
      if ((await fetch(`${orca.baseUrl}/readyz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`orca was not ready within 120 s:\n${orca.output()}`);
}

/** A fresh data directory with an account in it (created before any server opens the directory). */
async function newInstallation(): Promise<{ dataDir: string; apiKey: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'orca-restart-'));
  dirs.push(dataDir);
  const database = await openDatabase({ dataDir, pgliteTemplate: await pgliteTemplate() });
  try {
    await database.migrate();
    const store = createStore(database.db);
    const identity = createIdentity({
      store,
      mailer: createMailer({ outbox: store.mailOutbox }),
      config: { publicUrl: 'http://localhost', initialCredits: 10_000 },
    });
    const { apiKey } = await identity.createAccount(`restart-${randomBytes(4).toString('hex')}@example.com`);
    return { dataDir, apiKey };
  } finally {
    await database.close();
  }
}

/** The README's model driven over REST, remembering every completion that was acknowledged. */
class Client {
  /** Instances started, and the instance of each job whose completion was acknowledged. */
  readonly started = new Set<string>();
  readonly completed = new Map<string, string>();
  constructor(private readonly apiKey: string) {}

  async call(orca: OrcaProcess, pathname: string, body: unknown, contentType = 'application/json'): Promise<Response> {
    return fetch(orca.baseUrl + pathname, {
      method: 'POST',
      headers: { 'x-api-key': this.apiKey, 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async deployAndStart(orca: OrcaProcess, count: number): Promise<void> {
    const deployed = await this.call(
      orca,
      '/api/v1/process-definitions?resourceName=order.bpmn',
      await readFile(path.join(ROOT, 'examples', 'order.bpmn'), 'utf8'),
      'application/xml',
    );
    expect(deployed.status, await deployed.text()).toBe(200);
    for (let i = 0; i < count; i++) {
      const response = await this.call(orca, '/api/v1/process-instances', { bpmnProcessId: 'order', variables: { orderId: `A${i}` } });
      expect(response.status).toBe(201);
      this.started.add(((await response.json()) as { processInstanceKey: string }).processInstanceKey);
    }
  }

  async activate(orca: OrcaProcess, max: number): Promise<{ key: string; processInstanceKey: string }[]> {
    const response = await this.call(orca, '/api/v1/jobs/activate', { type: 'ship', maxJobsToActivate: max });
    expect(response.status).toBe(200);
    return ((await response.json()) as { jobs: { key: string; processInstanceKey: string }[] }).jobs;
  }

  /** Activates and completes `count` jobs, a few at a time and concurrently, as workers do. */
  async complete(orca: OrcaProcess, count: number): Promise<void> {
    let left = count;
    while (left > 0) {
      const jobs = await this.activate(orca, Math.min(left, 8));
      expect(jobs.length).toBeGreaterThan(0);
      await Promise.all(
        jobs.map(async (job) => {
          const response = await this.call(orca, `/api/v1/jobs/${job.key}/complete`, { variables: { tracking: `T-${job.key}` } });
          expect(response.status).toBe(204);
          this.completed.set(job.key, job.processInstanceKey);
        }),
      );
      left -= jobs.length;
    }
  }

  /** What a restarted server offers: every job until it has offered one per instance still waiting, then one more look. */
  async offered(orca: OrcaProcess): Promise<{ key: string; processInstanceKey: string }[]> {
    const waiting = this.started.size - this.completed.size;
    const offered: { key: string; processInstanceKey: string }[] = [];
    const deadline = Date.now() + 60_000;
    while (offered.length < waiting && Date.now() < deadline) {
      const jobs = await this.activate(orca, 100);
      offered.push(...jobs);
      if (jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    offered.push(...(await this.activate(orca, 100)));
    return offered;
  }

  /** The restarted server offers exactly the jobs not completed: none whose completion was acknowledged, none lost. */
  expectOffersExactlyTheWaitingJobs(offered: { key: string; processInstanceKey: string }[]): void {
    const acknowledged = offered.filter((job) => this.completed.has(job.key));
    expect(acknowledged, `${acknowledged.length} jobs whose completion was acknowledged were offered again`).toEqual([]);
    const done = new Set(this.completed.values());
    const waiting = [...this.started].filter((instance) => !done.has(instance)).sort();
    expect(offered.map((job) => job.processInstanceKey).sort()).toEqual(waiting);
  }
}

describe('restarting the embedded default over a process that is still running', () => {
  it('waits for the old process, and offers none of the jobs it completed meanwhile', async () => {
    const { dataDir, apiKey } = await newInstallation();
    const client = new Client(apiKey);
    const old = startOrca(dataDir, await freePort());
    await ready(old);
    await client.deployAndStart(old, INSTANCES);
    await client.complete(old, INSTANCES / 2);

    // The new process is started while the old one still serves. Without the
    // lock it is ready here; with it, it says it waits.
    const next = startOrca(dataDir, await freePort());
    await Promise.race([next.printed(/waiting for it to stop/), ready(next)]);
    await client.complete(old, 40);
    old.child.kill('SIGTERM');
    expect(await old.exited).toEqual({ code: 0, signal: null });

    await ready(next);
    client.expectOffersExactlyTheWaitingJobs(await client.offered(next));
  });

  it('loses nothing on a crash after a second start on the same port gave up', async () => {
    const { dataDir, apiKey } = await newInstallation();
    const client = new Client(apiKey);
    const port = await freePort();
    const old = startOrca(dataDir, port);
    await ready(old);
    await client.deployAndStart(old, INSTANCES);
    await client.complete(old, INSTANCES / 2);

    // `npm start` again while the first one still runs (its npm was killed,
    // not the server). Without the lock this one opened the directory and
    // then failed on the port; with it, it waits until it is stopped.
    const second = startOrca(dataDir, port);
    await Promise.race([second.printed(/waiting for it to stop/), second.exited]);
    second.child.kill('SIGKILL');
    await second.exited;
    await client.complete(old, 60);
    old.child.kill('SIGKILL');
    await old.exited;

    const next = startOrca(dataDir, port);
    await ready(next);
    client.expectOffersExactlyTheWaitingJobs(await client.offered(next));
  });
});
