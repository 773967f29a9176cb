// `orca worker TYPE --exec COMMAND` against a real server: the command gets
// the job's variables on stdin and its facts in the environment, its JSON
// stdout completes the job, a failure fails it (until an incident), and a
// signal stops the worker after the jobs in hand, as Ctrl-C in a terminal
// sends it (to the whole foreground process group).
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from '../test/api/api-fixture.ts';
import { orca, repositoryRoot, spawnOrca, type RunningCli } from './testing.ts';

let api: ApiFixture;
let env: Record<string, string>;
let dir: string;
const running = new Set<RunningCli>();

beforeAll(async () => {
  api = await apiFixture();
  const { apiKey } = await api.newAccount();
  env = { ORCA_URL: api.baseUrl, ORCA_API_KEY: apiKey };
  dir = await mkdtemp(join(tmpdir(), 'orca-cli-worker-'));
}, 120_000);
afterAll(async () => {
  for (const cli of running) cli.child.kill('SIGKILL');
  // Commands run in process groups of their own: a loop waiting for this file must not outlive a failed test.
  if (dir) await writeFile(join(dir, 'go'), '').catch(() => {});
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** examples/order.bpmn as process `id` whose task has job type `type` (and a custom header `carrier`), deployed. */
async function deployOrder(id: string, type: string): Promise<void> {
  const xml = (await readFile(join(repositoryRoot, 'examples/order.bpmn'), 'utf8'))
    .replace('id="order"', `id="${id}"`)
    .replace(
      '<zeebe:taskDefinition type="ship" retries="3"/>',
      `<zeebe:taskDefinition type="${type}" retries="3"/><zeebe:taskHeaders><zeebe:header key="carrier" value="dhl"/></zeebe:taskHeaders>`,
    );
  const res = await api.call('POST', '/api/v1/process-definitions', {
    apiKey: env.ORCA_API_KEY,
    query: { resourceName: `${id}.bpmn` },
    headers: { 'content-type': 'application/xml' },
    body: xml,
  });
  expect(res.status).toBe(200);
}

async function startInstance(bpmnProcessId: string, variables: Record<string, unknown>): Promise<string> {
  const res = await api.call('POST', '/api/v1/process-instances', { apiKey: env.ORCA_API_KEY, json: { bpmnProcessId, variables } });
  expect(res.status).toBe(201);
  return res.json.processInstanceKey;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function instance(key: string): Promise<any> {
  return (await api.call('GET', `/api/v1/process-instances/${key}`, { apiKey: env.ORCA_API_KEY })).json;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function worker(args: string[], options: { group?: boolean; env?: Record<string, string> } = {}): RunningCli {
  const cli = spawnOrca(['worker', ...args], options.env ?? env, options);
  running.add(cli);
  void cli.exited.then(() => running.delete(cli));
  return cli;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('orca worker', () => {
  it("completes each job with the JSON object the command prints, given the job's variables on stdin", async () => {
    await deployOrder('w-ok', 'w-ok');
    const keys = [await startInstance('w-ok', { orderId: 'W1' }), await startInstance('w-ok', { orderId: 'W2', items: [1, 2] })];
    const cli = worker([
      'w-ok',
      '--exec',
      'vars=$(cat); printf \'{"tracking":"T-%s","seen":%s,"element":"%s","headers":%s}\' "$ORCA_JOB_KEY" "$vars" "$ORCA_ELEMENT_ID" "$ORCA_JOB_HEADERS"',
    ]);
    const done = await Promise.all(
      keys.map((key) =>
        until(
          `instance ${key}`,
          () => instance(key),
          (i) => i.state !== 'ACTIVE',
        ),
      ),
    );
    expect(done[0]).toMatchObject({ state: 'COMPLETED', variables: { orderId: 'W1', seen: { orderId: 'W1' }, element: 'ship', headers: { carrier: 'dhl' } } });
    expect(done[1]).toMatchObject({ state: 'COMPLETED', variables: { orderId: 'W2', seen: { orderId: 'W2', items: [1, 2] }, element: 'ship' } });
    expect(done[0].variables.tracking).toMatch(/^T-\d+$/);
    cli.child.kill('SIGTERM');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toMatch(/orca worker: stopped completed=2 failed=0/);
    expect(exit.stderr.match(/orca worker: completed job=\d+/g)).toHaveLength(2);
  });

  it('fails the job with what the command said on stderr until its retries run out and an incident is raised', async () => {
    await deployOrder('w-fail', 'w-fail');
    const key = await startInstance('w-fail', { orderId: 'F1' });
    const cli = worker(['w-fail', '--exec', 'echo "no carrier for $ORCA_BPMN_PROCESS_ID (retries $ORCA_JOB_RETRIES)" >&2; exit 3', '--json']);
    const failed = await until(
      `incident on ${key}`,
      () => instance(key),
      (i) => i.state === 'INCIDENT',
    );
    expect(failed.incidents).toEqual([expect.objectContaining({ elementId: 'ship', type: 'JOB_NO_RETRIES' })]);
    expect(failed.incidents[0].message).toContain('no carrier for w-fail (retries 1)');
    cli.child.kill('SIGINT');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    const lines = exit.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((l) => l.event === 'failed').map((l) => [l.retries, l.message])).toEqual([
      [2, 'no carrier for w-fail (retries 3)'],
      [1, 'no carrier for w-fail (retries 2)'],
      [0, 'no carrier for w-fail (retries 1)'],
    ]);
  });

  it('fails a job whose command prints something that is not a JSON object', async () => {
    await deployOrder('w-text', 'w-text');
    const key = await startInstance('w-text', {});
    const cli = worker(['w-text', '--exec', 'echo shipped']);
    const failed = await until(
      `incident on ${key}`,
      () => instance(key),
      (i) => i.state === 'INCIDENT',
    );
    expect(failed.incidents[0].message).toContain("the command's stdout is not JSON (expected an object of variables): shipped");
    cli.child.kill('SIGINT');
    expect((await cli.exited).code).toBe(0);
  });

  it('stops a command that outlives --timeout and fails its job, saying so', async () => {
    await deployOrder('w-slow', 'w-slow');
    await startInstance('w-slow', {});
    const cli = worker(['w-slow', '--exec', 'sleep 120', '--timeout', '1', '--json']);
    await cli.waitForStderr(/"event":"failed"/);
    cli.child.kill('SIGINT');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    // The failed job is offered again at once, so the worker may have taken it again before the signal.
    const failed = exit.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((l) => l.event === 'failed');
    expect(failed[0]).toMatchObject({ retries: 2, message: 'the command did not finish within 1000 ms and was stopped' });
    for (const line of failed) expect(line.message).toBe('the command did not finish within 1000 ms and was stopped');
  });

  it('on Ctrl-C stops taking jobs, lets the command in hand finish and completes its job, then exits 0', async () => {
    await deployOrder('w-stop', 'w-stop');
    const first = await startInstance('w-stop', { orderId: 'G1' });
    const started = join(dir, 'started');
    const go = join(dir, 'go');
    const cli = worker(['w-stop', '--exec', `touch ${started}; while [ ! -e ${go} ]; do sleep 0.05; done; echo '{"finished":true}'`], { group: true });
    await until('the command to start', () => exists(started), Boolean);
    // As a terminal does on Ctrl-C: the signal goes to the worker's whole process group.
    process.kill(-cli.child.pid!, 'SIGINT');
    await cli.waitForStderr(/orca worker: stopping signal=SIGINT inHand=1/);
    const second = await startInstance('w-stop', { orderId: 'G2' });
    await writeFile(go, '');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toMatch(/stopped completed=1 failed=0/);
    expect(await instance(first)).toMatchObject({ state: 'COMPLETED', variables: { finished: true } });
    // Nothing took the second instance's job: a worker that may have it is free to.
    const activated = await api.call('POST', '/api/v1/jobs/activate', { apiKey: env.ORCA_API_KEY, json: { type: 'w-stop', maxJobsToActivate: 5 } });
    expect(activated.json.jobs.map((j: { processInstanceKey: string }) => j.processInstanceKey)).toEqual([second]);
  });

  it('a second signal ends the commands in hand, failing their jobs so they are offered again', async () => {
    await deployOrder('w-kill', 'w-kill');
    const key = await startInstance('w-kill', {});
    const started = join(dir, 'started-kill');
    const cli = worker(['w-kill', '--exec', `touch ${started}; sleep 120`]);
    await until('the command to start', () => exists(started), Boolean);
    cli.child.kill('SIGTERM');
    await cli.waitForStderr(/stopping/);
    cli.child.kill('SIGTERM');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toMatch(/failed job=\d+ instance=\d+ retries=2 message="the command was killed by SIGTERM"/);
    const detail = await instance(key);
    expect(detail.jobs).toEqual([expect.objectContaining({ retries: 2 })]);
    const activated = await api.call('POST', '/api/v1/jobs/activate', { apiKey: env.ORCA_API_KEY, json: { type: 'w-kill', maxJobsToActivate: 5 } });
    expect(activated.json.jobs).toEqual([expect.objectContaining({ processInstanceKey: key, retries: 2 })]);
  });

  it('ends with exit 4 when the server refuses the key, and 2 without --exec', async () => {
    const refused = await worker(['anything', '--exec', 'true'], { env: { ORCA_URL: api.baseUrl, ORCA_API_KEY: 'orca_wrong' } }).exited;
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('(401)');
    const usage = await orca(['worker', 'anything'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--exec 'COMMAND' is required");
  });
});
