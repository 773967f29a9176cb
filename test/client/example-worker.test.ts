// examples/worker.ts, run as a newcomer would (its own process, ORCA_URL and
// ORCA_API_KEY from the environment), against a real server: it ships the
// orders of examples/order.bpmn, turns an order without an id into an
// incident, and on SIGTERM finishes and exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OrcaClient } from '../../client/index.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { eventually } from '../api/workflow-support.ts';

let api: ApiFixture;
let child: ChildProcess | undefined;

beforeAll(async () => {
  api = await apiFixture();
}, 60_000);
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await api?.close();
});

it('examples/worker.ts ships orders, fails the one without an id, and stops cleanly on SIGTERM', { timeout: 90_000 }, async () => {
  const { apiKey } = await api.newAccount();
  const client = new OrcaClient({ url: api.baseUrl, apiKey });
  await client.deploy({ name: 'order.bpmn', content: await readFile(new URL('../../examples/order.bpmn', import.meta.url), 'utf8') });
  const good = await client.startInstance({ bpmnProcessId: 'order', variables: { orderId: 'A1' } });
  const bad = await client.startInstance({ bpmnProcessId: 'order', variables: {} });

  let output = '';
  child = spawn(process.execPath, ['--import', 'tsx', 'examples/worker.ts'], {
    cwd: new URL('../..', import.meta.url),
    env: { ...process.env, ORCA_URL: api.baseUrl, ORCA_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

  await eventually(async () => ((await client.getInstance(good.processInstanceKey)).state === 'COMPLETED' ? true : undefined), 'order A1 shipped', 60_000);
  expect((await client.getInstance(good.processInstanceKey)).variables).toMatchObject({ orderId: 'A1', tracking: 'TRACK-A1' });
  await eventually(async () => ((await client.getInstance(bad.processInstanceKey)).state === 'INCIDENT' ? true : undefined), 'an incident', 30_000);
  const incidents = await client.listIncidents({ processInstanceKey: bad.processInstanceKey });
  expect(incidents.items[0].message).toContain('the order has no orderId');

  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(output).toContain('shipped order A1');
  expect(output).toContain('stopping: finishing the jobs in hand');
});

it('examples/worker.ts refuses to start without ORCA_API_KEY, saying what to set', { timeout: 30_000 }, async () => {
  const env = { ...process.env };
  delete env.ORCA_API_KEY;
  const run = spawn(process.execPath, ['--import', 'tsx', 'examples/worker.ts'], {
    cwd: new URL('../..', import.meta.url),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  run.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
  expect(code).toBe(2);
  expect(errors).toContain('Set ORCA_API_KEY');
});
